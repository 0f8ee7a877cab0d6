package tokenize

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// TikToken counts tokens of an OpenAI tiktoken encoding (cl100k_base or
// o200k_base). The vocabularies are compiled into the binary by
// github.com/tiktoken-go/tokenizer; nothing is downloaded.
//
// Counting is made fast by a cache: the text is cut where the encoding's
// pre-tokenizer always cuts (between a non-space character and a following
// space or tab), and the token count of each such word-sized segment is
// cached, so a word is encoded once however many times chunkers measure
// text around it. Counts are exact: they equal those of encoding the whole
// text at once (tests check this against the reference implementation).
type TikToken struct {
	name  string
	codec tokenizer.Codec

	// The cache maps a segment to the byte length of each of its tokens.
	// Lookups read a published map without a lock (so counting scales
	// across cores); new segments wait in pending, under mu, until enough
	// gather to publish a new map with them (copying costs O(1) per
	// segment, amortised).
	cache   atomic.Pointer[map[string][]uint16]
	mu      sync.Mutex
	pending map[string][]uint16
	// pendingHits counts the lookups that took the lock since the last
	// publication; published is the size of the published map.
	pendingHits, published int
}

// maxCachedSegment is the longest segment, in bytes, whose tokens are cached;
// maxCacheEntries bounds the cache, which is emptied when it is reached.
const (
	maxCachedSegment = 64
	maxCacheEntries  = 1 << 20
)

// NewTikToken returns a counter for encoding "cl100k_base" or "o200k_base".
func NewTikToken(encoding string) (*TikToken, error) {
	var enc tokenizer.Encoding
	switch encoding {
	case "cl100k_base":
		enc = tokenizer.Cl100kBase
	case "o200k_base":
		enc = tokenizer.O200kBase
	default:
		return nil, fmt.Errorf("%w %q: tiktoken encodings are cl100k_base and o200k_base", ErrUnknown, encoding)
	}
	codec, err := tokenizer.Get(enc)
	if err != nil {
		return nil, fmt.Errorf("load tiktoken %s: %w", encoding, err)
	}
	return &TikToken{name: encoding, codec: codec, pending: map[string][]uint16{}}, nil
}

// Name returns the encoding's name.
func (t *TikToken) Name() string { return t.name }

// Count returns the number of tokens of text.
func (t *TikToken) Count(text string) int {
	n := 0
	forEachSegment(text, func(seg string) {
		if len(seg) > maxCachedSegment {
			c, _ := t.codec.Count(seg)
			n += c
			return
		}
		n += len(t.segment(seg))
	})
	return n
}

// AppendTokenEnds appends the end offset of every token of text. Tokens of
// byte-level BPE may end inside a multi-byte character.
func (t *TikToken) AppendTokenEnds(dst []int, text string) []int {
	off := 0
	forEachSegment(text, func(seg string) {
		if len(seg) > maxCachedSegment {
			_, toks, _ := t.codec.Encode(seg)
			for _, tok := range toks {
				off += len(tok)
				dst = append(dst, off)
			}
			return
		}
		for _, l := range t.segment(seg) {
			off += int(l)
			dst = append(dst, off)
		}
	})
	return dst
}

// segment returns the token lengths of a short segment, from the cache or
// by encoding it.
func (t *TikToken) segment(seg string) []uint16 {
	if published := t.cache.Load(); published != nil {
		if lens, ok := (*published)[seg]; ok {
			return lens
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	lens, ok := t.pending[seg]
	if !ok {
		_, toks, _ := t.codec.Encode(seg)
		lens = make([]uint16, len(toks))
		for i, tok := range toks {
			lens[i] = uint16(len(tok))
		}
		t.pending[string([]byte(seg))] = lens // copy: do not pin the caller's text
	}
	// Publish when the segments waiting are many, or often looked up: a
	// lookup in pending takes the lock.
	t.pendingHits++
	if t.pendingHits >= 256+t.published/4 {
		next := t.pending
		if old := t.cache.Load(); old != nil && len(*old)+len(next) <= maxCacheEntries {
			for k, v := range *old {
				next[k] = v
			}
		}
		t.cache.Store(&next)
		t.published = len(next)
		t.pending, t.pendingHits = map[string][]uint16{}, 0
	}
	return lens
}

// forEachSegment calls fn with consecutive pieces of text whose
// concatenation is text, cut wherever a non-space character is followed by
// a space that is not a line break. The pre-tokenizers of every tiktoken
// encoding always cut there (no pattern extends a token from a non-space
// character into a following space or tab), so encoding the pieces one by one
// gives the same tokens as encoding the text.
func forEachSegment(text string, fn func(string)) {
	start := 0
	prevNonSpace := false
	for i := 0; i < len(text); {
		c := text[i]
		var r rune
		size := 1
		if c < utf8.RuneSelf {
			r = rune(c)
		} else {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		space := isRegexSpace(r)
		if space && prevNonSpace && r != '\n' && r != '\r' && i > start {
			fn(text[start:i])
			start = i
		}
		prevNonSpace = !space
		i += size
	}
	if start < len(text) {
		fn(text[start:])
	}
}

// isRegexSpace reports whether r matches \s in the tiktoken patterns
// (regexp2's .NET semantics: the Unicode White_Space characters).
func isRegexSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiSpace[r]
	}
	return unicode.IsSpace(r)
}
