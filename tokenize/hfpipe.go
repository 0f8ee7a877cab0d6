package tokenize

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	"golang.org/x/text/unicode/norm"
)

// This file holds the general Hugging Face tokenizers pipeline: added
// tokens, normalizers, pre-tokenizers and the BPE and Unigram models
// (WordPiece with the BERT normalizer keeps its own fast path in hf.go).
// Text moves through it as pieces that remember, for each of their bytes,
// where the character it came from ends in the original text, so every
// token has an exact end offset.

// piece is text on its way through the pipeline: s, for each byte of s
// the end offset in the original text of the character it came from, and
// where in the original text the piece starts.
type piece struct {
	s     string
	align []int
	start int
}

// sub returns the bytes [a, b) of p.
func (p piece) sub(a, b int) piece {
	start := p.start
	if a > 0 {
		start = p.align[a-1]
	}
	return piece{p.s[a:b], p.align[a:b], start}
}

type (
	normalizer   func(piece) piece
	preTokenizer func([]piece) []piece
)

// hfModel turns a pre-token into token ids, calling yield with each id and
// the end, in the pre-token's bytes, of the token.
type hfModel interface {
	tokenize(s string, yield func(id, end int))
}

// hfPipe is a tokenizer.json pipeline other than BERT's WordPiece.
type hfPipe struct {
	added   []addedToken
	byFirst map[byte][]int // added tokens by their first byte, longest first
	norm    []normalizer
	pre     []preTokenizer
	model   hfModel
	decode  func(tokens []string) string
	// segments is true when the text between added tokens may be cut into
	// the segments of forEachSegment and each tokenized alone with the same
	// result (see segmentSafe).
	segments bool
	// reverse maps ids to tokens (the vocabulary's and the added ones).
	reverse map[int]string
}

type addedToken struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

type hfPart struct {
	Type string `json:"type"`
	// Replace, Split
	Pattern *struct {
		String *string `json:"String"`
		Regex  *string `json:"Regex"`
	} `json:"pattern"`
	Content string `json:"content"`
	// Prepend
	Prepend string `json:"prepend"`
	// Split, Punctuation
	Behavior string `json:"behavior"`
	Invert   bool   `json:"invert"`
	// ByteLevel
	AddPrefixSpace *bool `json:"add_prefix_space"`
	UseRegex       *bool `json:"use_regex"`
	// Metaspace
	Replacement   string `json:"replacement"`
	PrependScheme string `json:"prepend_scheme"`
	Split         *bool  `json:"split"`
	// Digits
	IndividualDigits bool `json:"individual_digits"`
	// Strip
	Left  *bool `json:"left"`
	Right *bool `json:"right"`
	// Sequence
	Normalizers   []hfPart `json:"normalizers"`
	Pretokenizers []hfPart `json:"pretokenizers"`
	Decoders      []hfPart `json:"decoders"`
	// StripAccents etc. of BertNormalizer
	CleanText          *bool `json:"clean_text"`
	HandleChineseChars *bool `json:"handle_chinese_chars"`
	StripAccents       *bool `json:"strip_accents"`
	Lowercase          *bool `json:"lowercase"`
	// Decoder: Strip's start/stop, Metaspace
	Start int `json:"start"`
	Stop  int `json:"stop"`
}

type hfModelJSON struct {
	Type                    string          `json:"type"`
	UnkToken                *string         `json:"unk_token"`
	UnkID                   *int            `json:"unk_id"`
	ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
	FuseUnk                 bool            `json:"fuse_unk"`
	ByteFallback            bool            `json:"byte_fallback"`
	IgnoreMerges            bool            `json:"ignore_merges"`
	Vocab                   json.RawMessage `json:"vocab"`
	Merges                  json.RawMessage `json:"merges"`
}

type hfPipeFile struct {
	AddedTokens  []addedToken `json:"added_tokens"`
	Normalizer   *hfPart      `json:"normalizer"`
	PreTokenizer *hfPart      `json:"pre_tokenizer"`
	Decoder      *hfPart      `json:"decoder"`
	Model        hfModelJSON  `json:"model"`
}

// parsePipe builds the general pipeline of a tokenizer.json and fills in
// t's vocabulary and unknown token.
func (t *HF) parsePipe(data []byte) error {
	var f hfPipeFile
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("parse tokenizer.json: %w", err)
	}
	p := &hfPipe{byFirst: map[byte][]int{}, reverse: map[int]string{}}
	var err error
	switch f.Model.Type {
	case "BPE":
		p.model, err = t.parseBPE(f.Model)
	case "Unigram":
		p.model, err = t.parseUnigram(f.Model)
	case "WordPiece":
		p.model, err = t.parseWordPiece(f.Model)
	default:
		err = fmt.Errorf("tokenizer model %q is not supported: WordPiece, BPE and Unigram are", f.Model.Type)
	}
	if err != nil {
		return err
	}
	for tok, id := range t.vocab {
		p.reverse[id] = tok
	}
	for _, a := range f.AddedTokens {
		if a.Content == "" {
			continue
		}
		p.reverse[a.ID] = a.Content
		p.added = append(p.added, a)
	}
	// Longest first, so the longest added token at a position wins.
	slices.SortStableFunc(p.added, func(a, b addedToken) int { return len(b.Content) - len(a.Content) })
	for i, a := range p.added {
		p.byFirst[a.Content[0]] = append(p.byFirst[a.Content[0]], i)
	}
	if f.Normalizer != nil {
		if p.norm, err = normalizers(*f.Normalizer); err != nil {
			return err
		}
	}
	if f.PreTokenizer != nil {
		if p.pre, err = preTokenizers(*f.PreTokenizer); err != nil {
			return err
		}
	}
	p.decode = decoder(f.Decoder)
	p.segments = segmentSafe(f.Normalizer, f.PreTokenizer)
	t.pipe = p
	return nil
}

// ---- added tokens ----

// split cuts text around the added tokens it holds, calling text for the
// stretches between them and token for each one (with its end offset).
func (p *hfPipe) split(s string, text func(a, b int), token func(id, end int)) {
	start := 0
	for i := 0; i < len(s); {
		found := -1
		for _, k := range p.byFirst[s[i]] {
			if strings.HasPrefix(s[i:], p.added[k].Content) && p.addedFits(s, i, p.added[k]) {
				found = k
				break
			}
		}
		if found < 0 {
			i++
			continue
		}
		a := p.added[found]
		begin, end := i, i+len(a.Content)
		if a.LStrip {
			for begin > start && isSpaceByte(s[begin-1]) {
				begin--
			}
		}
		if a.RStrip {
			for end < len(s) && isSpaceByte(s[end]) {
				end++
			}
		}
		if begin > start {
			text(start, begin)
		}
		token(a.ID, end)
		start, i = end, end
	}
	if start < len(s) {
		text(start, len(s))
	}
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// addedFits checks an added token's single_word condition at s[i:].
func (p *hfPipe) addedFits(s string, i int, a addedToken) bool {
	if !a.SingleWord {
		return true
	}
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }
	if r, _ := utf8.DecodeLastRuneInString(s[:i]); i > 0 && isWord(r) {
		return false
	}
	end := i + len(a.Content)
	r, _ := utf8.DecodeRuneInString(s[end:])
	return end == len(s) || !isWord(r)
}

// tokens runs the pipeline on s, calling yield with each token id and its
// end offset in s (plus base).
func (p *hfPipe) tokens(s string, base int, cache func(string) []idEnd, yield func(id, end int)) {
	p.split(s, func(a, b int) { p.text(s, a, b, base, cache, yield) }, func(id, end int) { yield(id, base+end) })
}

// text runs the normalizers, the pre-tokenizers and the model on s[a:b],
// which holds no added token, calling yield with each token id and its
// end offset in s (plus base).
func (p *hfPipe) text(s string, a, b, base int, cache func(string) []idEnd, yield func(id, end int)) {
	align := make([]int, b-a)
	for i := a; i < b; i++ {
		align[i-a] = base + i + 1
	}
	// align holds byte ends; make them character ends.
	for i := b - a - 1; i > 0; i-- {
		if !utf8.RuneStart(s[a+i]) {
			align[i-1] = align[i]
		}
	}
	pc := piece{s[a:b], align, base + a}
	for _, n := range p.norm {
		pc = n(pc)
	}
	pieces := []piece{pc}
	for _, pre := range p.pre {
		pieces = pre(pieces)
	}
	for _, pc := range pieces {
		if pc.s == "" {
			continue
		}
		for _, t := range cache(pc.s) {
			yield(t.id, pc.align[t.end-1])
		}
	}
}

// Pre-tokenizer patterns under which no pre-token holds a character other
// than white space followed by a space or tab: Llama 3's (cl100k_base's)
// and Qwen2's and Qwen3's.
var segmentSafePatterns = map[string]bool{cl100kPattern: true, qwenPattern: true}

// segmentSafe reports whether a pipeline tokenizes text as it tokenizes
// the segments of forEachSegment one by one: cut before a space or tab
// that follows a character other than white space. That holds for the
// byte-level pipelines of GPT-2, Llama 3 and Qwen (no normalizer or NFC,
// then a Split by one of segmentSafePatterns or GPT-2's pattern, then the
// byte-level mapping without a prefix space): their pre-tokens never run
// from such a character into a space, so every cut is a pre-token
// boundary and the pattern's look-ahead never reaches past a segment's
// last, non-space character; NFC does not compose across a space, and the
// mapping and the model work within a pre-token.
func segmentSafe(normalizer, pre *hfPart) bool {
	if normalizer != nil && normalizer.Type != "NFC" || pre == nil {
		return false
	}
	noPrefix := func(n hfPart) bool { return n.AddPrefixSpace != nil && !*n.AddPrefixSpace }
	switch pre.Type {
	case "ByteLevel": // GPT-2's pattern
		return noPrefix(*pre) && (pre.UseRegex == nil || *pre.UseRegex)
	case "Sequence":
		ps := pre.Pretokenizers
		return len(ps) == 2 && ps[0].Type == "Split" && ps[0].Pattern != nil && ps[0].Pattern.Regex != nil &&
			segmentSafePatterns[*ps[0].Pattern.Regex] && ps[0].Behavior == "Isolated" && !ps[0].Invert &&
			ps[1].Type == "ByteLevel" && noPrefix(ps[1]) && ps[1].UseRegex != nil && !*ps[1].UseRegex
	}
	return false
}

type idEnd struct{ id, end int }

// ---- normalizers ----

func normalizers(n hfPart) ([]normalizer, error) {
	switch n.Type {
	case "Sequence":
		var out []normalizer
		for _, m := range n.Normalizers {
			ns, err := normalizers(m)
			if err != nil {
				return nil, err
			}
			out = append(out, ns...)
		}
		return out, nil
	case "NFC":
		return []normalizer{unicodeForm(norm.NFC)}, nil
	case "NFD":
		return []normalizer{unicodeForm(norm.NFD)}, nil
	case "NFKC":
		return []normalizer{unicodeForm(norm.NFKC)}, nil
	case "NFKD":
		return []normalizer{unicodeForm(norm.NFKD)}, nil
	case "Lowercase":
		return []normalizer{mapRunes(func(r rune, s string) string { return strings.ToLower(s) })}, nil
	case "StripAccents": // every mark (Mn, Mc, Me), as the tokenizers library's is_combining_mark
		return []normalizer{mapRunes(func(r rune, s string) string {
			if unicode.Is(unicode.M, r) {
				return ""
			}
			return s
		})}, nil
	case "Replace":
		if n.Pattern == nil {
			return nil, fmt.Errorf("normalizer Replace without a pattern")
		}
		if str := n.Pattern.String; str != nil && *str != "" {
			return []normalizer{func(p piece) piece { return replaceAt(p, literal(p.s, *str), n.Content) }}, nil
		}
		re, err := patternRegexp(n.Pattern.String, n.Pattern.Regex)
		if err != nil {
			return nil, err
		}
		return []normalizer{func(p piece) piece { return replace(p, re, n.Content) }}, nil
	case "Prepend":
		return []normalizer{func(p piece) piece {
			if p.s == "" {
				return p
			}
			return concat(piece{n.Prepend, repeatInt(p.start, len(n.Prepend)), p.start}, p)
		}}, nil
	case "Strip":
		left, right := n.Left == nil || *n.Left, n.Right == nil || *n.Right
		return []normalizer{func(p piece) piece {
			a, b := 0, len(p.s)
			for left && a < b {
				r, size := utf8.DecodeRuneInString(p.s[a:])
				if !unicode.IsSpace(r) {
					break
				}
				a += size
			}
			for right && b > a {
				r, size := utf8.DecodeLastRuneInString(p.s[:b])
				if !unicode.IsSpace(r) {
					break
				}
				b -= size
			}
			return p.sub(a, b)
		}}, nil
	}
	return nil, fmt.Errorf("normalizer %q is not supported (NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Replace, Prepend, Strip, Sequence and BertNormalizer are)", n.Type)
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func repeatInt(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func concat(a, b piece) piece {
	return piece{a.s + b.s, append(append(make([]int, 0, len(a.align)+len(b.align)), a.align...), b.align...), a.start}
}

// unicodeForm normalises p segment by segment (between normalisation
// boundaries), each output byte aligned to its segment's end.
func unicodeForm(f norm.Form) normalizer {
	return func(p piece) piece {
		if f.IsNormalString(p.s) {
			return p
		}
		out := piece{start: p.start}
		var b strings.Builder
		for i := 0; i < len(p.s); {
			n := f.NextBoundaryInString(p.s[i:], true)
			if n <= 0 {
				n = len(p.s) - i
			}
			seg := f.String(p.s[i : i+n])
			b.WriteString(seg)
			end := p.align[i+n-1]
			for range len(seg) {
				out.align = append(out.align, end)
			}
			i += n
		}
		out.s = b.String()
		return out
	}
}

// mapRunes replaces each character by fn's string.
func mapRunes(fn func(r rune, s string) string) normalizer {
	return func(p piece) piece {
		out := piece{start: p.start}
		var b strings.Builder
		for i := 0; i < len(p.s); {
			r, size := utf8.DecodeRuneInString(p.s[i:])
			s := fn(r, p.s[i:i+size])
			b.WriteString(s)
			for range len(s) {
				out.align = append(out.align, p.align[i+size-1])
			}
			i += size
		}
		out.s = b.String()
		return out
	}
}

func patternRegexp(str, re *string) (*regexp2.Regexp, error) {
	switch {
	case str != nil:
		return regexp2.MustCompile(regexp2.Escape(*str), regexp2.None), nil
	case re != nil:
		r, err := regexp2.Compile(*re, regexp2.Unicode)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", *re, err)
		}
		return r, nil
	}
	return nil, fmt.Errorf("a pattern needs String or Regex")
}

// matches returns the [start, end) byte ranges of re's non-empty matches
// in s.
func matches(re *regexp2.Regexp, s string) [][2]int {
	idx, _ := re.FindAllStringIndex(s, -1)
	out := make([][2]int, 0, len(idx))
	for _, m := range idx {
		if m[1] > m[0] {
			out = append(out, [2]int{m[0], m[1]})
		}
	}
	return out
}

// pieceRanges returns the [start, end) byte ranges of the pieces of a
// hand-written pre-tokenizer in s: the matches of its pattern.
func pieceRanges(fn pieceEnd, s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		j := fn(s, i)
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// replace replaces re's matches in p by content, the replacement aligned
// to the end of what it replaces.
func replace(p piece, re *regexp2.Regexp, content string) piece {
	return replaceAt(p, matches(re, p.s), content)
}

func replaceAt(p piece, ms [][2]int, content string) piece {
	if len(ms) == 0 {
		return p
	}
	var b strings.Builder
	b.Grow(len(p.s) + len(ms)*len(content))
	align := make([]int, 0, len(p.s)+len(ms)*len(content))
	at := 0
	for _, m := range ms {
		b.WriteString(p.s[at:m[0]])
		align = append(align, p.align[at:m[0]]...)
		b.WriteString(content)
		for range len(content) {
			align = append(align, p.align[m[1]-1])
		}
		at = m[1]
	}
	b.WriteString(p.s[at:])
	align = append(align, p.align[at:]...)
	return piece{b.String(), align, p.start}
}

// literal returns the [start, end) ranges of the occurrences of sub in s.
func literal(s, sub string) [][2]int {
	var ms [][2]int
	for at := 0; ; {
		k := strings.Index(s[at:], sub)
		if k < 0 {
			return ms
		}
		ms = append(ms, [2]int{at + k, at + k + len(sub)})
		at += k + len(sub)
	}
}

// ---- pre-tokenizers ----

func preTokenizers(n hfPart) ([]preTokenizer, error) {
	switch n.Type {
	case "Sequence":
		var out []preTokenizer
		for _, m := range n.Pretokenizers {
			ps, err := preTokenizers(m)
			if err != nil {
				return nil, err
			}
			out = append(out, ps...)
		}
		return out, nil
	case "Split":
		if n.Pattern == nil {
			return nil, fmt.Errorf("pre-tokenizer Split without a pattern")
		}
		if str := n.Pattern.String; str != nil && *str != "" {
			return []preTokenizer{each(func(p piece) []piece { return splitBy(p, literal(p.s, *str), n.Behavior, n.Invert) })}, nil
		}
		if re := n.Pattern.Regex; re != nil && pretokenizers[*re] != nil { // Llama 3's, Qwen's: matched by code
			fn := pretokenizers[*re]
			return []preTokenizer{each(func(p piece) []piece { return splitBy(p, pieceRanges(fn, p.s), n.Behavior, n.Invert) })}, nil
		}
		re, err := patternRegexp(n.Pattern.String, n.Pattern.Regex)
		if err != nil {
			return nil, err
		}
		return []preTokenizer{each(func(p piece) []piece { return splitBy(p, matches(re, p.s), n.Behavior, n.Invert) })}, nil
	case "ByteLevel":
		prefix := n.AddPrefixSpace == nil || *n.AddPrefixSpace
		useRegex := n.UseRegex == nil || *n.UseRegex
		return []preTokenizer{byteLevel(prefix, useRegex)}, nil
	case "Metaspace":
		return []preTokenizer{metaspace(n)}, nil
	case "Whitespace":
		re := regexp2.MustCompile(`\w+|[^\w\s]+`, regexp2.Unicode)
		return []preTokenizer{each(func(p piece) []piece { return splitBy(p, matches(re, p.s), "Removed", true) })}, nil
	case "WhitespaceSplit":
		return []preTokenizer{each(func(p piece) []piece { return splitRunes(p, unicode.IsSpace, "Removed") })}, nil
	case "BertPreTokenizer":
		return []preTokenizer{each(func(p piece) []piece {
			var out []piece
			for _, q := range splitRunes(p, unicode.IsSpace, "Removed") {
				out = append(out, splitRunes(q, isBertPunct, "Isolated")...)
			}
			return out
		})}, nil
	case "Punctuation":
		return []preTokenizer{each(func(p piece) []piece { return splitRunes(p, isBertPunct, cmpOr(n.Behavior, "Isolated")) })}, nil
	case "Digits":
		return []preTokenizer{each(func(p piece) []piece {
			if n.IndividualDigits {
				return splitRunes(p, unicode.IsDigit, "Isolated")
			}
			return splitBy(p, runsOf(p.s, unicode.IsDigit), "Isolated", false)
		})}, nil
	}
	return nil, fmt.Errorf("pre-tokenizer %q is not supported (Split, ByteLevel, Metaspace, Whitespace, WhitespaceSplit, BertPreTokenizer, Punctuation, Digits and Sequence are)", n.Type)
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func each(fn func(piece) []piece) preTokenizer {
	return func(ps []piece) []piece {
		var out []piece
		for _, p := range ps {
			out = append(out, fn(p)...)
		}
		return out
	}
}

// runsOf returns the runs of characters of s for which is holds.
func runsOf(s string, is func(rune) bool) [][2]int {
	var out [][2]int
	start := -1
	for i, r := range s {
		if is(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			out = append(out, [2]int{start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(s)})
	}
	return out
}

// splitRunes splits p at every character for which is holds, each such
// character a delimiter of its own.
func splitRunes(p piece, is func(rune) bool, behavior string) []piece {
	var ms [][2]int
	for i, r := range p.s {
		if is(r) {
			ms = append(ms, [2]int{i, i + utf8.RuneLen(r)})
		}
	}
	return splitBy(p, ms, behavior, false)
}

// splitBy splits p at the delimiters ms as the tokenizers library's
// SplitDelimiterBehavior says.
func splitBy(p piece, ms [][2]int, behavior string, invert bool) []piece {
	type part struct {
		a, b  int
		delim bool
	}
	parts := make([]part, 0, 2*len(ms)+1)
	at := 0
	for _, m := range ms {
		if m[0] > at {
			parts = append(parts, part{at, m[0], invert})
		}
		parts = append(parts, part{m[0], m[1], !invert})
		at = m[1]
	}
	if at < len(p.s) {
		parts = append(parts, part{at, len(p.s), invert})
	}
	out := make([][2]int, 0, len(parts))
	switch behavior {
	case "Removed":
		for _, q := range parts {
			if !q.delim {
				out = append(out, [2]int{q.a, q.b})
			}
		}
	case "MergedWithPrevious":
		for _, q := range parts {
			if q.delim && len(out) > 0 && out[len(out)-1][1] == q.a {
				out[len(out)-1][1] = q.b
			} else {
				out = append(out, [2]int{q.a, q.b})
			}
		}
	case "MergedWithNext":
		pending := -1
		for _, q := range parts {
			if q.delim {
				if pending < 0 {
					pending = q.a
				}
				continue
			}
			a := q.a
			if pending >= 0 {
				a, pending = pending, -1
			}
			out = append(out, [2]int{a, q.b})
		}
		if pending >= 0 {
			out = append(out, [2]int{pending, len(p.s)})
		}
	case "Contiguous":
		for i, q := range parts {
			if q.delim && i > 0 && parts[i-1].delim && len(out) > 0 {
				out[len(out)-1][1] = q.b
			} else {
				out = append(out, [2]int{q.a, q.b})
			}
		}
	default: // Isolated
		for _, q := range parts {
			out = append(out, [2]int{q.a, q.b})
		}
	}
	res := make([]piece, 0, len(out))
	for _, r := range out {
		if r[1] > r[0] {
			res = append(res, p.sub(r[0], r[1]))
		}
	}
	return res
}

// byteChars maps each byte to the printable character GPT-2's byte-level
// alphabet gives it.
var byteChars = func() (t [256]string) {
	n := 0
	for b := range 256 {
		if b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE && b <= 0xFF {
			t[b] = string(rune(b))
		} else {
			t[b] = string(rune(256 + n))
			n++
		}
	}
	return
}()

func byteLevel(prefix, useRegex bool) preTokenizer {
	return func(ps []piece) []piece {
		out := make([]piece, 0, len(ps))
		for i, p := range ps {
			if prefix && i == 0 && p.s != "" && !strings.HasPrefix(p.s, " ") {
				p = concat(piece{" ", []int{p.start}, p.start}, p)
			}
			parts := []piece{p}
			if useRegex {
				parts = splitBy(p, pieceRanges(gpt2Piece, p.s), "Isolated", false) // GPT-2's pattern
			}
			for _, q := range parts {
				// The bytes' characters are one or two bytes long: size the
				// string and its alignment once.
				n := 0
				for k := 0; k < len(q.s); k++ {
					n += len(byteChars[q.s[k]])
				}
				var b strings.Builder
				b.Grow(n)
				align := make([]int, 0, n)
				for k := 0; k < len(q.s); k++ {
					c := byteChars[q.s[k]]
					b.WriteString(c)
					align = append(align, q.align[k])
					if len(c) == 2 {
						align = append(align, q.align[k])
					}
				}
				out = append(out, piece{b.String(), align, q.start})
			}
		}
		return out
	}
}

func metaspace(n hfPart) preTokenizer {
	rep := cmpOr(n.Replacement, "▁")
	scheme := cmpOr(n.PrependScheme, "always")
	split := n.Split == nil || *n.Split
	return func(ps []piece) []piece {
		var out []piece
		for i, p := range ps {
			p = replaceAt(p, literal(p.s, " "), rep)
			if p.s != "" && (scheme == "always" || scheme == "first" && i == 0) && !strings.HasPrefix(p.s, rep) {
				p = concat(piece{rep, repeatInt(p.start, len(rep)), p.start}, p)
			}
			if !split {
				out = append(out, p)
				continue
			}
			out = append(out, splitBy(p, literal(p.s, rep), "MergedWithNext", false)...)
		}
		return out
	}
}

// ---- decoders ----

// decoder returns the text of a sequence of tokens, as the tokenizer.json
// decoder says (byte-level, metaspace, byte fallback, word pieces).
func decoder(d *hfPart) func([]string) string {
	if d == nil {
		return func(toks []string) string { return strings.Join(toks, "") }
	}
	var steps []func([]string) []string
	var add func(d hfPart)
	add = func(d hfPart) {
		switch d.Type {
		case "Sequence":
			for _, e := range d.Decoders {
				add(e)
			}
		case "ByteLevel":
			unbyte := map[rune]byte{}
			for b, c := range byteChars {
				unbyte[firstRune(c)] = byte(b)
			}
			steps = append(steps, func(toks []string) []string {
				var b []byte
				for _, t := range toks {
					for _, r := range t {
						if c, ok := unbyte[r]; ok {
							b = append(b, c)
						} else {
							b = utf8.AppendRune(b, r)
						}
					}
				}
				return []string{strings.ToValidUTF8(string(b), "\uFFFD")}
			})
		case "Replace":
			if d.Pattern != nil && d.Pattern.String != nil {
				from, to := *d.Pattern.String, d.Content
				steps = append(steps, func(toks []string) []string {
					for i, t := range toks {
						toks[i] = strings.ReplaceAll(t, from, to)
					}
					return toks
				})
			}
		case "ByteFallback":
			steps = append(steps, func(toks []string) []string {
				var out []string
				var pend []byte
				flush := func() {
					if pend != nil {
						out = append(out, strings.ToValidUTF8(string(pend), "\uFFFD"))
						pend = nil
					}
				}
				for _, t := range toks {
					var v byte
					if len(t) == 6 && strings.HasPrefix(t, "<0x") && t[5] == '>' {
						if _, err := fmt.Sscanf(t, "<0x%02X>", &v); err == nil {
							pend = append(pend, v)
							continue
						}
					}
					flush()
					out = append(out, t)
				}
				flush()
				return out
			})
		case "Fuse":
			steps = append(steps, func(toks []string) []string { return []string{strings.Join(toks, "")} })
		case "Strip":
			steps = append(steps, func(toks []string) []string {
				for i, t := range toks {
					r := []rune(t)
					a, b := min(d.Start, len(r)), max(len(r)-d.Stop, 0)
					if a < b {
						toks[i] = string(r[a:b])
					} else {
						toks[i] = ""
					}
				}
				return toks
			})
		case "Metaspace":
			rep := cmpOr(d.Replacement, "▁")
			steps = append(steps, func(toks []string) []string {
				for i, t := range toks {
					t = strings.ReplaceAll(t, rep, " ")
					if i == 0 {
						t = strings.TrimPrefix(t, " ")
					}
					toks[i] = t
				}
				return toks
			})
		case "WordPiece":
			steps = append(steps, func(toks []string) []string {
				for i, t := range toks {
					if rest, ok := strings.CutPrefix(t, "##"); ok {
						toks[i] = rest
					} else if i > 0 {
						toks[i] = " " + t
					}
				}
				return toks
			})
		}
	}
	add(*d)
	return func(toks []string) string {
		toks = slices.Clone(toks)
		for _, s := range steps {
			toks = s(toks)
		}
		return strings.Join(toks, "")
	}
}
