package tokenize

import (
	"container/heap"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// byteTokens returns the ids of the byte-fallback tokens <0x00>…<0xFF>
// (-1 where the vocabulary lacks one).
func byteTokens(vocab map[string]int) (ids [256]int, all bool) {
	all = true
	for b := range 256 {
		id, ok := vocab[fmt.Sprintf("<0x%02X>", b)]
		if !ok {
			id, all = -1, false
		}
		ids[b] = id
	}
	return ids, all
}

// ---- BPE ----

type bpeMerge struct{ rank, id int }

// bpeModel is the tokenizers library's BPE model: characters (or, with
// byte fallback, their bytes) merged pair by pair in the merges' order.
type bpeModel struct {
	vocab        map[string]int
	merges       map[[2]int]bpeMerge
	unk          int // -1: none
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool
	prefix       string
	suffix       string
	bytes        [256]int
}

func (t *HF) parseBPE(m hfModelJSON) (hfModel, error) {
	b := &bpeModel{unk: -1, fuseUnk: m.FuseUnk, byteFallback: m.ByteFallback, ignoreMerges: m.IgnoreMerges}
	if err := json.Unmarshal(m.Vocab, &b.vocab); err != nil || len(b.vocab) == 0 {
		return nil, fmt.Errorf("BPE model: want a vocabulary of token: id (%v)", err)
	}
	if m.ContinuingSubwordPrefix != nil {
		b.prefix = *m.ContinuingSubwordPrefix
	}
	if m.EndOfWordSuffix != nil {
		b.suffix = *m.EndOfWordSuffix
	}
	if m.UnkToken != nil {
		id, ok := b.vocab[*m.UnkToken]
		if !ok {
			return nil, fmt.Errorf("BPE model: unknown token %q is not in the vocabulary", *m.UnkToken)
		}
		b.unk = id
	}
	b.bytes, _ = byteTokens(b.vocab)
	// Merges come as "a b" strings or as ["a", "b"] pairs.
	var raw []json.RawMessage
	if err := json.Unmarshal(m.Merges, &raw); err != nil {
		return nil, fmt.Errorf("BPE model: merges: %w", err)
	}
	b.merges = make(map[[2]int]bpeMerge, len(raw))
	for rank, r := range raw {
		var pair [2]string
		var s string
		if json.Unmarshal(r, &s) == nil {
			a, c, ok := strings.Cut(s, " ")
			if !ok {
				return nil, fmt.Errorf("BPE model: merge %d %q is not two tokens", rank, s)
			}
			pair = [2]string{a, c}
		} else if err := json.Unmarshal(r, &pair); err != nil {
			return nil, fmt.Errorf("BPE model: merge %d: %w", rank, err)
		}
		a, ok1 := b.vocab[pair[0]]
		c, ok2 := b.vocab[pair[1]]
		id, ok3 := b.vocab[pair[0]+strings.TrimPrefix(pair[1], b.prefix)]
		if !ok1 || !ok2 || !ok3 {
			return nil, fmt.Errorf("BPE model: merge %d (%q %q) has a token outside the vocabulary", rank, pair[0], pair[1])
		}
		if _, dup := b.merges[[2]int{a, c}]; !dup {
			b.merges[[2]int{a, c}] = bpeMerge{rank, id}
		}
	}
	t.vocab, t.unkID = b.vocab, b.unk
	return b, nil
}

type bpeSym struct {
	id, end    int
	prev, next int
	dead       bool
}

type bpePair struct{ rank, left, a, b int }

type bpeHeap []bpePair

func (h bpeHeap) Len() int { return len(h) }
func (h bpeHeap) Less(i, j int) bool {
	return h[i].rank < h[j].rank || h[i].rank == h[j].rank && h[i].left < h[j].left
}
func (h bpeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *bpeHeap) Push(x any)   { *h = append(*h, x.(bpePair)) }
func (h *bpeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (b *bpeModel) tokenize(s string, yield func(id, end int)) {
	if b.ignoreMerges {
		if id, ok := b.vocab[s]; ok {
			yield(id, len(s))
			return
		}
	}
	syms := make([]bpeSym, 0, len(s))
	add := func(id, end int) {
		syms = append(syms, bpeSym{id: id, end: end, prev: len(syms) - 1, next: len(syms) + 1})
	}
	unkOpen := false
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		tok := s[i : i+size]
		if i > 0 && b.prefix != "" {
			tok = b.prefix + tok
		}
		if i+size == len(s) && b.suffix != "" {
			tok += b.suffix
		}
		if id, ok := b.vocab[tok]; ok {
			add(id, i+size)
			unkOpen = false
		} else if b.byteFallback && b.hasBytes(s[i:i+size]) {
			for k := i; k < i+size; k++ {
				add(b.bytes[s[k]], k+1)
			}
			unkOpen = false
		} else if b.unk >= 0 {
			if b.fuseUnk && unkOpen {
				syms[len(syms)-1].end = i + size
			} else {
				add(b.unk, i+size)
			}
			unkOpen = true
		}
		i += size
	}
	if len(syms) == 0 {
		return
	}
	syms[len(syms)-1].next = -1
	h := make(bpeHeap, 0, len(syms))
	push := func(l int) {
		if l < 0 || syms[l].next < 0 {
			return
		}
		r := syms[l].next
		if m, ok := b.merges[[2]int{syms[l].id, syms[r].id}]; ok {
			h = append(h, bpePair{m.rank, l, syms[l].id, syms[r].id})
		}
	}
	for i := range syms {
		push(i)
	}
	heap.Init(&h)
	for h.Len() > 0 {
		p := heap.Pop(&h).(bpePair)
		l := &syms[p.left]
		if l.dead || l.id != p.a || l.next < 0 || syms[l.next].id != p.b {
			continue // stale: one side was merged since
		}
		r := &syms[l.next]
		l.id, l.end = b.merges[[2]int{p.a, p.b}].id, r.end
		r.dead = true
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = p.left
		}
		if l.prev >= 0 {
			if m, ok := b.merges[[2]int{syms[l.prev].id, l.id}]; ok {
				heap.Push(&h, bpePair{m.rank, l.prev, syms[l.prev].id, l.id})
			}
		}
		if l.next >= 0 {
			if m, ok := b.merges[[2]int{l.id, syms[l.next].id}]; ok {
				heap.Push(&h, bpePair{m.rank, p.left, l.id, syms[l.next].id})
			}
		}
	}
	for i := 0; i >= 0; i = syms[i].next {
		yield(syms[i].id, syms[i].end)
	}
}

func (b *bpeModel) hasBytes(s string) bool {
	for k := 0; k < len(s); k++ {
		if b.bytes[s[k]] < 0 {
			return false
		}
	}
	return true
}

// ---- Unigram ----

// unigramModel is SentencePiece's unigram language model: the
// segmentation of highest total score (Viterbi), unknown characters as
// the unknown token (fused), or their bytes with byte fallback.
type unigramModel struct {
	vocab        map[string]int
	scores       []float64
	maxLen       int
	unk          int
	unkScore     float64
	byteFallback bool
	bytes        [256]int
}

func (t *HF) parseUnigram(m hfModelJSON) (hfModel, error) {
	var vocab [][2]any
	if err := json.Unmarshal(m.Vocab, &vocab); err != nil || len(vocab) == 0 {
		return nil, fmt.Errorf("Unigram model: want a vocabulary of [piece, score] pairs (%v)", err)
	}
	u := &unigramModel{vocab: make(map[string]int, len(vocab)), scores: make([]float64, len(vocab)), unk: -1, byteFallback: m.ByteFallback}
	minScore := math.Inf(1)
	for id, e := range vocab {
		s, ok1 := e[0].(string)
		score, ok2 := e[1].(float64)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("Unigram model: entry %d is not [piece, score]", id)
		}
		if _, dup := u.vocab[s]; !dup {
			u.vocab[s] = id
		}
		u.scores[id] = score
		u.maxLen = max(u.maxLen, len(s))
		minScore = min(minScore, score)
	}
	if m.UnkID != nil {
		if *m.UnkID < 0 || *m.UnkID >= len(vocab) {
			return nil, fmt.Errorf("Unigram model: unk_id %d is outside the vocabulary", *m.UnkID)
		}
		u.unk = *m.UnkID
	}
	u.unkScore = minScore - 10 // the tokenizers library's penalty for an unknown character
	u.bytes, _ = byteTokens(u.vocab)
	t.vocab, t.unkID = u.vocab, u.unk
	return u, nil
}

func (u *unigramModel) tokenize(s string, yield func(id, end int)) {
	n := len(s)
	best := make([]float64, n+1)
	from := make([]int, n+1) // start of the best last token ending here
	ids := make([]int, n+1)
	reached := make([]bool, n+1)
	reached[0] = true
	for i := 0; i < n; {
		_, size := utf8.DecodeRuneInString(s[i:])
		if !reached[i] {
			i += size
			continue
		}
		single := false
		for j := i + 1; j <= min(n, i+u.maxLen); j++ {
			if j < n && !utf8.RuneStart(s[j]) {
				continue
			}
			id, ok := u.vocab[s[i:j]]
			if !ok {
				continue
			}
			if j == i+size {
				single = true
			}
			if sc := best[i] + u.scores[id]; !reached[j] || sc > best[j] {
				best[j], from[j], ids[j], reached[j] = sc, i, id, true
			}
		}
		if !single {
			j := i + size
			if sc := best[i] + u.unkScore; !reached[j] || sc > best[j] {
				best[j], from[j], ids[j], reached[j] = sc, i, -1, true
			}
		}
		i += size
	}
	type tok struct{ id, start, end int }
	var toks []tok
	for j := n; j > 0; j = from[j] {
		toks = append(toks, tok{ids[j], from[j], j})
	}
	// Reverse, fuse unknown characters, and fall back to bytes.
	var prevUnk bool
	var out []tok
	for k := len(toks) - 1; k >= 0; k-- {
		t := toks[k]
		if t.id >= 0 {
			out, prevUnk = append(out, t), false
			continue
		}
		if prevUnk {
			out[len(out)-1].end = t.end
		} else {
			out = append(out, t)
		}
		prevUnk = true
	}
	for _, t := range out {
		if t.id >= 0 {
			yield(t.id, t.end)
			continue
		}
		if u.byteFallback && (&bpeModel{bytes: u.bytes}).hasBytes(s[t.start:t.end]) {
			for k := t.start; k < t.end; k++ {
				yield(u.bytes[s[k]], k+1)
			}
			continue
		}
		if u.unk >= 0 {
			yield(u.unk, t.end)
		}
	}
}

// ---- WordPiece in a general pipeline ----

type wordPieceModel struct {
	vocab    map[string]int
	unk      int
	prefix   string
	maxChars int
}

func (t *HF) parseWordPiece(m hfModelJSON) (hfModel, error) {
	w := &wordPieceModel{prefix: "##", maxChars: 100}
	if err := json.Unmarshal(m.Vocab, &w.vocab); err != nil || len(w.vocab) == 0 {
		return nil, fmt.Errorf("WordPiece model: want a vocabulary of token: id (%v)", err)
	}
	if m.ContinuingSubwordPrefix != nil {
		w.prefix = *m.ContinuingSubwordPrefix
	}
	unk := "[UNK]"
	if m.UnkToken != nil {
		unk = *m.UnkToken
	}
	id, ok := w.vocab[unk]
	if !ok {
		return nil, fmt.Errorf("WordPiece model: unknown token %q is not in the vocabulary", unk)
	}
	w.unk = id
	t.vocab, t.unkID = w.vocab, w.unk
	return w, nil
}

func (w *wordPieceModel) tokenize(s string, yield func(id, end int)) {
	if utf8.RuneCountInString(s) > w.maxChars {
		yield(w.unk, len(s))
		return
	}
	type tok struct{ id, end int }
	var toks []tok
	for st := 0; st < len(s); {
		found := false
		for e := len(s); e > st; {
			key := s[st:e]
			if st > 0 {
				key = w.prefix + key
			}
			if id, ok := w.vocab[key]; ok {
				toks, st, found = append(toks, tok{id, e}), e, true
				break
			}
			_, size := utf8.DecodeLastRuneInString(s[st:e])
			e -= size
		}
		if !found {
			yield(w.unk, len(s))
			return
		}
	}
	for _, t := range toks {
		yield(t.id, t.end)
	}
}
