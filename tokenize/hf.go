package tokenize

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// HF is a Hugging Face tokenizer read from a tokenizer.json file: its
// added tokens, normalizer (NFC, NFD, NFKC, NFKD, Lowercase, StripAccents,
// Replace, Prepend, Strip, BertNormalizer, Sequence), pre-tokenizer (Split,
// ByteLevel, Metaspace, Whitespace, WhitespaceSplit, BertPreTokenizer,
// Punctuation, Digits, Sequence) and model (WordPiece, BPE with merges,
// byte fallback and ignore_merges, Unigram), as the BERT family
// (all-MiniLM-L6-v2, Model2Vec's potion models), byte-level BPE (GPT-2,
// Llama 3, Qwen) and SentencePiece BPE and Unigram models (Gemma, T5)
// define them. Counts exclude the special tokens the post-processor adds
// ([CLS], [SEP], <bos>): they measure the text itself. Every token's end
// offset in the text is exact.
type HF struct {
	name string
	// pipe is the general pipeline; nil for BERT's WordPiece, which has a
	// faster path of its own.
	pipe *hfPipe

	// normalizer
	cleanText, chineseChars, stripAccents, lowercase bool

	vocab        map[string]int
	unkID        int
	prefix       string
	maxWordChars int

	// prefix and suffix ids are the special tokens the post-processor adds
	// around one sequence ([CLS] and [SEP] for BERT).
	before, after []int
	// pair is how the post-processor lays out a pair of sequences; nil
	// without one (the two sequences one after the other).
	pair []pairPiece

	mu      sync.RWMutex
	cache   map[string][]int   // raw word -> token ids
	pieces  map[string][]idEnd // pre-token -> tokens (general pipeline)
	segs    map[string][]idEnd // segment -> tokens (pipe.segments)
	reverse map[int]string     // id -> token, for Decode
}

// hfFile is the part of tokenizer.json that HF reads.
type hfFile struct {
	Normalizer *struct {
		Type               string `json:"type"`
		CleanText          *bool  `json:"clean_text"`
		HandleChineseChars *bool  `json:"handle_chinese_chars"`
		StripAccents       *bool  `json:"strip_accents"`
		Lowercase          *bool  `json:"lowercase"`
	} `json:"normalizer"`
	PreTokenizer *struct {
		Type string `json:"type"`
	} `json:"pre_tokenizer"`
	PostProcessor *hfPost `json:"post_processor"`
	Model         struct {
		Type                    string          `json:"type"`
		UnkToken                string          `json:"unk_token"`
		ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    int             `json:"max_input_chars_per_word"`
		Vocab                   json.RawMessage `json:"vocab"`
	} `json:"model"`
}

// hfPost is a tokenizer.json post-processor.
type hfPost struct {
	Type          string          `json:"type"`
	Processors    []*hfPost       `json:"processors"`
	CLS           json.RawMessage `json:"cls"`
	SEP           json.RawMessage `json:"sep"`
	Single        []hfPiece       `json:"single"`
	Pair          []hfPiece       `json:"pair"`
	SpecialTokens map[string]struct {
		IDs []int `json:"ids"`
	} `json:"special_tokens"`
}

// hfPiece is a piece of a TemplateProcessing template: a special token or
// a sequence ("A" or "B"), with the token type id its tokens get.
type hfPiece struct {
	SpecialToken *struct {
		ID     string `json:"id"`
		TypeID int    `json:"type_id"`
	} `json:"SpecialToken"`
	Sequence *struct {
		ID     string `json:"id"`
		TypeID int    `json:"type_id"`
	} `json:"Sequence"`
}

// pairPiece is a piece of the input of a pair of sequences: the special
// tokens ids, or sequence seq (0 for the first, 1 for the second) when ids
// is nil, with their token type id.
type pairPiece struct {
	ids    []int
	seq    int
	typeID int
}

// LoadHF reads a tokenizer.json file, or the tokenizer.json in a directory.
func LoadHF(path string) (*HF, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, "tokenizer.json")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load hugging face tokenizer: %w", err)
	}
	t, err := ParseHF(data)
	if err != nil {
		return nil, fmt.Errorf("load hugging face tokenizer %s: %w", path, err)
	}
	t.name = "hf:" + path
	return t, nil
}

// ParseHF parses the contents of a tokenizer.json file.
func ParseHF(data []byte) (*HF, error) {
	var f hfFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("parse tokenizer.json: %w", err)
	}
	bert := f.Model.Type == "WordPiece" && (f.Normalizer == nil || f.Normalizer.Type == "BertNormalizer") &&
		(f.PreTokenizer == nil || f.PreTokenizer.Type == "BertPreTokenizer" || f.PreTokenizer.Type == "Whitespace")
	if !bert {
		t := &HF{name: "hf", pieces: map[string][]idEnd{}, segs: map[string][]idEnd{}}
		if err := t.parsePipe(data); err != nil {
			return nil, err
		}
		if err := t.specials(&f); err != nil {
			return nil, err
		}
		return t, nil
	}
	var vocab map[string]int
	if err := json.Unmarshal(f.Model.Vocab, &vocab); err != nil || len(vocab) == 0 {
		return nil, fmt.Errorf("tokenizer.json: want a vocabulary of token: id")
	}
	t := &HF{
		name:         "hf",
		vocab:        vocab,
		prefix:       "##",
		maxWordChars: f.Model.MaxInputCharsPerWord,
		cache:        make(map[string][]int),
	}
	if f.Model.ContinuingSubwordPrefix != nil {
		t.prefix = *f.Model.ContinuingSubwordPrefix
	}
	if t.maxWordChars <= 0 {
		t.maxWordChars = 100
	}
	unk := f.Model.UnkToken
	if unk == "" {
		unk = "[UNK]"
	}
	id, ok := t.vocab[unk]
	if !ok {
		return nil, fmt.Errorf("unknown token %q is not in the vocabulary", unk)
	}
	t.unkID = id
	if n := f.Normalizer; n != nil {
		if n.Type != "BertNormalizer" {
			return nil, fmt.Errorf("normalizer %q is not supported: only BertNormalizer is", n.Type)
		}
		t.cleanText = n.CleanText == nil || *n.CleanText
		t.chineseChars = n.HandleChineseChars == nil || *n.HandleChineseChars
		t.lowercase = n.Lowercase == nil || *n.Lowercase
		t.stripAccents = t.lowercase
		if n.StripAccents != nil {
			t.stripAccents = *n.StripAccents
		}
	}
	if p := f.PreTokenizer; p != nil && p.Type != "BertPreTokenizer" && p.Type != "Whitespace" {
		return nil, fmt.Errorf("pre-tokenizer %q is not supported: only BertPreTokenizer and Whitespace are", p.Type)
	}
	if err := t.specials(&f); err != nil {
		return nil, err
	}
	return t, nil
}

// specials reads the special tokens the post-processor adds around one
// sequence: BertProcessing, RobertaProcessing or TemplateProcessing (none
// without a post-processor, as Hugging Face tokenizers add none).
func (t *HF) specials(f *hfFile) error {
	pp := f.PostProcessor
	if pp == nil {
		return nil
	}
	switch pp.Type {
	case "ByteLevel":
		return nil // offsets only
	case "Sequence":
		for _, q := range pp.Processors {
			g := *f
			g.PostProcessor = q
			if err := t.specials(&g); err != nil {
				return err
			}
		}
		return nil
	case "BertProcessing", "RobertaProcessing":
		var cls, sep []any
		if json.Unmarshal(pp.CLS, &cls) != nil || json.Unmarshal(pp.SEP, &sep) != nil || len(cls) != 2 || len(sep) != 2 {
			return fmt.Errorf("post-processor %s: want cls and sep as [token, id]", pp.Type)
		}
		c, ok1 := cls[1].(float64)
		e, ok2 := sep[1].(float64)
		if !ok1 || !ok2 {
			return fmt.Errorf("post-processor %s: want cls and sep as [token, id]", pp.Type)
		}
		t.before, t.after = []int{int(c)}, []int{int(e)}
		cl, se := []int{int(c)}, []int{int(e)}
		if pp.Type == "BertProcessing" { // [CLS] A [SEP] B [SEP], B's type 1
			t.pair = []pairPiece{{ids: cl}, {seq: 0}, {ids: se}, {seq: 1, typeID: 1}, {ids: se, typeID: 1}}
		} else { // <s> A </s> </s> B </s>
			t.pair = []pairPiece{{ids: cl}, {seq: 0}, {ids: se}, {ids: se}, {seq: 1}, {ids: se}}
		}
	case "TemplateProcessing":
		seen := false
		for _, piece := range pp.Single {
			switch {
			case piece.Sequence != nil:
				seen = true
			case piece.SpecialToken != nil:
				sp, ok := pp.SpecialTokens[piece.SpecialToken.ID]
				if !ok {
					return fmt.Errorf("post-processor template: special token %q is not defined", piece.SpecialToken.ID)
				}
				if seen {
					t.after = append(t.after, sp.IDs...)
				} else {
					t.before = append(t.before, sp.IDs...)
				}
			}
		}
		t.pair = nil
		for _, piece := range pp.Pair {
			switch {
			case piece.Sequence != nil:
				seq := 0
				if piece.Sequence.ID == "B" {
					seq = 1
				} else if piece.Sequence.ID != "A" {
					return fmt.Errorf("post-processor pair template: sequence %q: want A or B", piece.Sequence.ID)
				}
				t.pair = append(t.pair, pairPiece{seq: seq, typeID: piece.Sequence.TypeID})
			case piece.SpecialToken != nil:
				sp, ok := pp.SpecialTokens[piece.SpecialToken.ID]
				if !ok {
					return fmt.Errorf("post-processor pair template: special token %q is not defined", piece.SpecialToken.ID)
				}
				t.pair = append(t.pair, pairPiece{ids: sp.IDs, typeID: piece.SpecialToken.TypeID})
			}
		}
	default:
		return fmt.Errorf("post-processor %q is not supported: BertProcessing, RobertaProcessing and TemplateProcessing are", pp.Type)
	}
	return nil
}

// Decode returns the text of WordPiece token ids: tokens joined by spaces,
// continuation pieces ("##ing") glued to the token before, special tokens
// left out.
func (t *HF) Decode(ids []int) (string, error) {
	if p := t.pipe; p != nil {
		toks := make([]string, 0, len(ids))
		special := map[int]bool{}
		for _, a := range p.added {
			special[a.ID] = a.Special
		}
		for _, id := range ids {
			tok, ok := p.reverse[id]
			if !ok {
				return "", fmt.Errorf("token id %d is not in the vocabulary", id)
			}
			if !special[id] {
				toks = append(toks, tok)
			}
		}
		return p.decode(toks), nil
	}
	t.mu.Lock()
	if t.reverse == nil {
		t.reverse = make(map[int]string, len(t.vocab))
		for s, id := range t.vocab {
			t.reverse[id] = s
		}
	}
	t.mu.Unlock()
	special := map[int]bool{}
	for _, id := range append(append([]int(nil), t.before...), t.after...) {
		special[id] = true
	}
	var sb strings.Builder
	for _, id := range ids {
		tok, ok := t.reverse[id]
		if !ok {
			return "", fmt.Errorf("token id %d is not in the vocabulary", id)
		}
		if special[id] {
			continue
		}
		if rest, cont := strings.CutPrefix(tok, t.prefix); cont && sb.Len() > 0 {
			sb.WriteString(rest)
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(tok)
	}
	return sb.String(), nil
}

// Specials returns the ids of the special tokens a model's input has
// before and after the text's own tokens ([CLS] and [SEP] for BERT).
func (t *HF) Specials() (before, after []int) { return t.before, t.after }

// EncodePair returns the model input of a pair of texts, as a
// cross-encoder reads a query and a passage: the token ids laid out by the
// tokenizer's post-processor ([CLS] a [SEP] b [SEP] for BERT, <s> a </s>
// </s> b </s> for RoBERTa; a then b without one) and each token's type id
// (BERT's segment: 0 for a's part, 1 for b's). When the pair is longer
// than maxTokens (0 for no limit), tokens are cut from the end of the
// longer text first, as the tokenizers library's longest_first truncation
// does.
func (t *HF) EncodePair(a, b string, maxTokens int) (ids, types []int) {
	return t.Pair(t.Encode(a), t.Encode(b), maxTokens)
}

// Pair is EncodePair for texts already encoded (a query encoded once for
// many passages); a and b are not modified.
func (t *HF) Pair(a, b []int, maxTokens int) (ids, types []int) {
	seqs := [2][]int{a, b}
	layout := t.pair
	if layout == nil {
		layout = []pairPiece{{seq: 0}, {seq: 1, typeID: 1}}
	}
	specials := 0
	for _, p := range layout {
		if p.ids != nil {
			specials += len(p.ids)
		}
	}
	if room := max(maxTokens-specials, 0); maxTokens > 0 && len(seqs[0])+len(seqs[1]) > room {
		// The tokenizers library's longest_first: the longer text is cut
		// to what the shorter leaves, or both to half the room (the
		// longer, or the second on a tie, gets an odd token).
		short := min(len(seqs[0]), len(seqs[1]))
		long := max(short, room-short)
		if short+long > room {
			short = room / 2
			long = short + room%2
		}
		if len(seqs[0]) > len(seqs[1]) {
			short, long = long, short
		}
		seqs[0], seqs[1] = seqs[0][:min(short, len(seqs[0]))], seqs[1][:min(long, len(seqs[1]))]
	}
	for _, p := range layout {
		part := p.ids
		if part == nil {
			part = seqs[p.seq]
		}
		ids = append(ids, part...)
		for range part {
			types = append(types, p.typeID)
		}
	}
	return ids, types
}

// Name returns "hf:" and the path the tokenizer was loaded from.
func (t *HF) Name() string { return t.name }

// VocabSize returns the number of entries of the vocabulary.
func (t *HF) VocabSize() int { return len(t.vocab) }

// Count returns the number of WordPiece tokens of text, without special
// tokens.
func (t *HF) Count(text string) int {
	if t.pipe != nil {
		n := 0
		t.pipeTokens(text, func(int, int) { n++ })
		return n
	}
	n := 0
	forEachWord(text, func(start, end int) { n += len(t.wordIDs(text[start:end])) })
	return n
}

// Encode returns the token ids of text, without special tokens.
func (t *HF) Encode(text string) []int {
	var ids []int
	if t.pipe != nil {
		t.pipeTokens(text, func(id, _ int) { ids = append(ids, id) })
		return ids
	}
	forEachWord(text, func(start, end int) { ids = append(ids, t.wordIDs(text[start:end])...) })
	return ids
}

// AppendTokenEnds appends the end offset, in text, of every token. Tokens
// of one word that come from one character (after normalisation) share that
// character's end.
func (t *HF) AppendTokenEnds(dst []int, text string) []int {
	if t.pipe != nil {
		t.pipeTokens(text, func(_, end int) { dst = append(dst, end) })
		return dst
	}
	forEachWord(text, func(start, end int) {
		dst = t.appendWordEnds(dst, text[start:end], start)
	})
	return dst
}

// forEachWord calls fn with the byte range of each run of text between
// whitespace. Whitespace here is what the BERT pre-tokenizer splits on and
// normalisation keeps or turns into a space, so tokenizing word by word
// equals tokenizing the whole text.
func forEachWord(text string, fn func(start, end int)) {
	start := -1
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if isBertSplitSpace(r) {
			if start >= 0 {
				fn(start, i)
				start = -1
			}
		} else if start < 0 {
			start = i
		}
		i += size
	}
	if start >= 0 {
		fn(start, len(text))
	}
}

// isBertSplitSpace reports whether r separates words both before and after
// BertNormalizer: the characters it maps to a space (tab, line feed,
// carriage return, space, category Zs) and the line and paragraph
// separators, which it keeps and the pre-tokenizer splits on. Other control
// characters (\v, \f, U+0085) are removed by normalisation, not split on.
func isBertSplitSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\u2028', '\u2029':
		return true
	}
	return r >= utf8.RuneSelf && unicode.Is(unicode.Zs, r)
}

// pipeTokens runs the general pipeline on text, calling yield with each
// token's id and end. Where the pipeline allows (pipe.segments), the text
// between added tokens is tokenized segment by segment (see
// forEachSegment), each distinct segment once.
func (t *HF) pipeTokens(text string, yield func(id, end int)) {
	if !t.pipe.segments {
		t.pipe.tokens(text, 0, t.pieceTokens, yield)
		return
	}
	t.pipe.split(text, func(a, b int) {
		at := a
		forEachSegment(text[a:b], func(seg string) {
			for _, tk := range t.segmentTokens(seg) {
				yield(tk.id, at+tk.end)
			}
			at += len(seg)
		})
	}, yield)
}

// segmentTokens returns the tokens of a segment of text between added
// tokens, their ends in the segment, cached.
func (t *HF) segmentTokens(seg string) []idEnd {
	if toks, ok := lookup(&t.mu, &t.segs, seg); ok {
		return toks
	}
	var toks []idEnd
	t.pipe.text(seg, 0, len(seg), 0, t.pieceTokens, func(id, end int) { toks = append(toks, idEnd{id, end}) })
	keep(&t.mu, &t.segs, seg, toks)
	return toks
}

// pieceTokens returns the tokens of a pre-token of the general pipeline,
// cached.
func (t *HF) pieceTokens(s string) []idEnd {
	if toks, ok := lookup(&t.mu, &t.pieces, s); ok {
		return toks
	}
	var toks []idEnd
	t.pipe.model.tokenize(s, func(id, end int) { toks = append(toks, idEnd{id, end}) })
	keep(&t.mu, &t.pieces, s, toks)
	return toks
}

// wordIDs returns the token ids of a run of non-space text, cached.
func (t *HF) wordIDs(word string) []int {
	if ids, ok := lookup(&t.mu, &t.cache, word); ok {
		return ids
	}
	var ids []int
	t.tokenizeWord(word, func(id, _ int) { ids = append(ids, id) })
	keep(&t.mu, &t.cache, word, ids)
	return ids
}

// lookup reads key's entry of one of HF's caches.
func lookup[V any](mu *sync.RWMutex, m *map[string]V, key string) (V, bool) {
	mu.RLock()
	v, ok := (*m)[key]
	mu.RUnlock()
	return v, ok
}

// keep stores v as key's entry of one of HF's caches: keys up to
// maxCachedSegment bytes, the cache emptied when it is full.
func keep[V any](mu *sync.RWMutex, m *map[string]V, key string, v V) {
	if len(key) > maxCachedSegment {
		return
	}
	mu.Lock()
	if len(*m) >= maxCacheEntries {
		*m = make(map[string]V)
	}
	(*m)[strings.Clone(key)] = v
	mu.Unlock()
}

func (t *HF) appendWordEnds(dst []int, word string, base int) []int {
	t.tokenizeWord(word, func(_, end int) { dst = append(dst, base+end) })
	return dst
}

// tokenizeWord normalises word, splits it into pre-tokens and runs WordPiece
// on each, calling yield with every token id and the end offset in word of
// the original character its last byte came from.
func (t *HF) tokenizeWord(word string, yield func(id, end int)) {
	norm, align := t.normalize(word)
	// Pre-tokenize: split on whitespace, isolate punctuation.
	start := -1
	flush := func(end int) {
		if start >= 0 {
			t.wordPiece(norm, start, end, align, yield)
			start = -1
		}
	}
	for i := 0; i < len(norm); {
		r, size := utf8.DecodeRuneInString(norm[i:])
		switch {
		case unicode.IsSpace(r):
			flush(i)
		case isBertPunct(r):
			flush(i)
			t.wordPiece(norm, i, i+size, align, yield)
		default:
			if start < 0 {
				start = i
			}
		}
		i += size
	}
	flush(len(norm))
}

// wordPiece runs greedy longest-match-first WordPiece on norm[start:end].
func (t *HF) wordPiece(norm string, start, end int, align []int, yield func(id, end int)) {
	w := norm[start:end]
	if utf8.RuneCountInString(w) > t.maxWordChars {
		yield(t.unkID, align[end-1])
		return
	}
	type tok struct{ id, end int }
	var toks []tok
	var buf strings.Builder
	for s := 0; s < len(w); {
		found := false
		for e := len(w); e > s; {
			buf.Reset()
			if s > 0 {
				buf.WriteString(t.prefix)
			}
			buf.WriteString(w[s:e])
			if id, ok := t.vocab[buf.String()]; ok {
				toks = append(toks, tok{id, start + e})
				s = e
				found = true
				break
			}
			// Step back one character.
			_, size := utf8.DecodeLastRuneInString(w[s:e])
			e -= size
		}
		if !found {
			yield(t.unkID, align[end-1])
			return
		}
	}
	for _, tk := range toks {
		yield(tk.id, align[tk.end-1])
	}
}

// normalize applies BertNormalizer to word and returns, for every byte of
// the result, the end offset in word of the character that produced it.
func (t *HF) normalize(word string) (string, []int) {
	var b strings.Builder
	align := make([]int, 0, len(word)+4)
	emit := func(s string, end int) {
		b.WriteString(s)
		for range len(s) {
			align = append(align, end)
		}
	}
	var rb [utf8.UTFMax]byte
	for i := 0; i < len(word); {
		r, size := utf8.DecodeRuneInString(word[i:])
		end := i + size
		i = end
		if t.cleanText {
			if r == 0 || r == utf8.RuneError || isBertControl(r) {
				continue
			}
			if r == '\t' || r == '\n' || r == '\r' || unicode.Is(unicode.Zs, r) {
				emit(" ", end)
				continue
			}
		}
		if t.chineseChars && isCJK(r) {
			emit(" ", end)
			emit(string(r), end)
			emit(" ", end)
			continue
		}
		s := word[end-size : end]
		if r < utf8.RuneSelf {
			if t.lowercase && 'A' <= r && r <= 'Z' {
				rb[0] = byte(r + 'a' - 'A')
				s = string(rb[:1])
			}
			emit(s, end)
			continue
		}
		if t.stripAccents {
			var sb strings.Builder
			for _, d := range norm.NFD.String(s) {
				if !unicode.Is(unicode.Mn, d) {
					sb.WriteRune(d)
				}
			}
			s = sb.String()
		}
		if t.lowercase {
			s = strings.ToLower(s)
		}
		emit(s, end)
	}
	return b.String(), align
}

// isBertControl reports the characters BertNormalizer removes: control,
// format and other C-category characters, except tab, newline and carriage
// return.
func isBertControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs) || !unicode.Is(unicode.L, r) && !unicode.In(r, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z) && r > 0x7f
}

// isBertPunct reports ASCII punctuation and Unicode category P characters.
func isBertPunct(r rune) bool {
	if r >= 33 && r <= 47 || r >= 58 && r <= 64 || r >= 91 && r <= 96 || r >= 123 && r <= 126 {
		return true
	}
	return unicode.IsPunct(r)
}

// isCJK reports the CJK ideograph blocks BERT pads with spaces.
func isCJK(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF || r >= 0x3400 && r <= 0x4DBF || r >= 0x20000 && r <= 0x2A6DF ||
		r >= 0x2A700 && r <= 0x2B73F || r >= 0x2B740 && r <= 0x2B81F || r >= 0x2B820 && r <= 0x2CEAF ||
		r >= 0xF900 && r <= 0xFAFF || r >= 0x2F800 && r <= 0x2FA1F
}

// UnknownID returns the id of the unknown token.
func (t *HF) UnknownID() int { return t.unkID }

// MaxID returns the largest token id of the vocabulary.
func (t *HF) MaxID() int {
	m := 0
	for _, id := range t.vocab {
		m = max(m, id)
	}
	return m
}

// MedianTokenLength returns the median length, in characters, of the
// vocabulary's tokens (as Model2Vec computes it to pre-truncate long texts).
func (t *HF) MedianTokenLength() int {
	lens := make([]int, 0, len(t.vocab))
	for tok := range t.vocab {
		lens = append(lens, utf8.RuneCountInString(tok))
	}
	slices.Sort(lens)
	if len(lens) == 0 {
		return 1
	}
	n := len(lens)
	if n%2 == 1 {
		return lens[n/2]
	}
	return (lens[n/2-1] + lens[n/2]) / 2 // numpy's median, truncated as Model2Vec's int() does
}
