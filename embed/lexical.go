package embed

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"sync"
	"unicode"
	"unicode/utf8"

	"gochunk/vec"
)

// LexicalConfig configures the Lexical embedder.
type LexicalConfig struct {
	// Dim is the vector length (the number of hash buckets); 0 means 512.
	Dim int `json:"dim"`
	// CharNGram is the length, in bytes, of the character n-grams taken
	// inside words of at least that length (with word boundary marks); 0
	// means 4, negative disables them.
	CharNGram int `json:"char_ngram"`
	// NoBigrams leaves out word bigrams.
	NoBigrams bool `json:"no_bigrams"`
	// KeepStopwords keeps common English function words as features.
	KeepStopwords bool `json:"keep_stopwords"`
}

// Lexical is a deterministic lexical embedding: sublinear TF-IDF over
// lowercased words (without common English function words), word bigrams
// and character n-grams inside words, hashed into Dim buckets (the hashing
// trick) and L2-normalised. Chunkers call ForDocument, which takes the IDF
// from the pieces of the document being chunked, as TextTiling-style topic
// segmentation does; without it every feature weighs the same.
//
// It measures shared vocabulary, not meaning: "car" and "automobile" are
// unrelated to it, and so are paraphrases. It is good enough to find where
// a text changes subject, needs no model and no download, is exactly
// reproducible, and runs at tens of MB/s per core. For meaning, use a
// static or transformer model.
type Lexical struct {
	cfg  LexicalConfig
	idf  []float32 // nil: all 1
	id   string
	pool *sync.Pool
}

// NewLexical returns a Lexical embedder.
func NewLexical(cfg LexicalConfig) *Lexical {
	if cfg.Dim <= 0 {
		cfg.Dim = 512
	}
	if cfg.CharNGram == 0 {
		cfg.CharNGram = 4
	}
	l := &Lexical{cfg: cfg}
	l.id = fmt.Sprintf("lexical-v1:d%d:c%d:b%v:s%v", cfg.Dim, cfg.CharNGram, !cfg.NoBigrams, cfg.KeepStopwords)
	l.pool = &sync.Pool{New: func() any { return &lexScratch{tf: make([]float32, cfg.Dim)} }}
	return l
}

type lexScratch struct {
	tf       []float32
	used     []int32
	word     []byte
	prev     []byte
	padded   []byte
	prevStop bool
	prevHash uint64
}

// Dim returns the vector length.
func (l *Lexical) Dim() int { return l.cfg.Dim }

// MaxTokens returns 0: any length is embedded whole.
func (l *Lexical) MaxTokens() int { return 0 }

// ModelID names the configuration, and the document IDF when there is one.
func (l *Lexical) ModelID() string { return l.id }

// ForDocument returns a Lexical embedder whose IDF comes from pieces (the
// sentences or passages of the document being chunked): a feature in df of
// the N pieces weighs ln((1+N)/(1+df)) + 1.
func (l *Lexical) ForDocument(pieces []string) Embedder {
	df := make([]float32, l.cfg.Dim)
	sc := l.pool.Get().(*lexScratch)
	h := fnv.New64a()
	for _, p := range pieces {
		l.features(p, sc)
		for _, b := range sc.used {
			df[b]++
		}
		l.reset(sc)
	}
	l.pool.Put(sc)
	n := float64(len(pieces))
	idf := make([]float32, l.cfg.Dim)
	for i, d := range df {
		idf[i] = float32(math.Log((1+n)/(1+float64(d))) + 1)
		bits := math.Float32bits(idf[i])
		h.Write([]byte{byte(bits), byte(bits >> 8), byte(bits >> 16), byte(bits >> 24)})
	}
	return &Lexical{cfg: l.cfg, idf: idf, pool: l.pool, id: fmt.Sprintf("%s:idf%016x", l.id, h.Sum64())}
}

// Embed returns the vectors of texts, computed on all cores.
func (l *Lexical) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := slab(len(texts), l.cfg.Dim)
	err := parallel(ctx, len(texts), func(i int) error {
		l.embedOne(texts[i], out[i])
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("lexical embedding: %w", err)
	}
	return out, nil
}

// embedOne writes the vector of text into v, which must be zero.
func (l *Lexical) embedOne(text string, v []float32) {
	sc := l.pool.Get().(*lexScratch)
	defer l.pool.Put(sc)
	l.features(text, sc)
	for _, b := range sc.used {
		w := log1p(sc.tf[b])
		if l.idf != nil {
			w *= l.idf[b]
		}
		v[b] = w
	}
	l.reset(sc)
	vec.Normalize(v)
}

func (l *Lexical) reset(sc *lexScratch) {
	for _, b := range sc.used {
		sc.tf[b] = 0
	}
	sc.used = sc.used[:0]
}

const (
	seedWord   = 0x9E3779B97F4A7C15
	seedBigram = 0xC2B2AE3D27D4EB4F
	seedGram   = 0x165667B19E3779F9
)

func (l *Lexical) add(sc *lexScratch, h uint64, w float32) {
	// Lemire's multiply-shift maps the hash's high bits to [0, Dim)
	// without a division.
	b := int32((h >> 32) * uint64(l.cfg.Dim) >> 32)
	if sc.tf[b] == 0 {
		sc.used = append(sc.used, b)
	}
	sc.tf[b] += w
}

// features counts the features of text into sc.tf.
func (l *Lexical) features(text string, sc *lexScratch) {
	havePrev := false
	for i := 0; i < len(text); {
		// Find the next word: a run of letters, digits and marks.
		c := text[i]
		if c < utf8.RuneSelf {
			if !asciiWord[c] {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(text[i:]); !isWordRune(r) {
			i += size
			continue
		}
		sc.word = sc.word[:0]
		for i < len(text) {
			c := text[i]
			if c < utf8.RuneSelf {
				if !asciiWord[c] {
					break
				}
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				sc.word = append(sc.word, c)
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if !isWordRune(r) {
				break
			}
			sc.word = utf8.AppendRune(sc.word, unicode.ToLower(r))
			i += size
		}
		word := sc.word
		hw := hashBytes(seedWord, word)
		stop := !l.cfg.KeepStopwords && isStopword(word, hw)
		if !stop {
			l.add(sc, hw, 1)
			if n := l.cfg.CharNGram; n > 0 && len(word) >= n+2 {
				// n-grams of "<word>", boundary marks included.
				sc.padded = append(append(append(sc.padded[:0], '<'), word...), '>')
				p := sc.padded
				if n <= 8 {
					// Roll the last n bytes through a word; one multiply
					// hashes each n-gram.
					mask := uint64(1)<<(8*uint(n)) - 1
					if n == 8 {
						mask = ^uint64(0)
					}
					var w uint64
					for k, ch := range p {
						w = (w<<8 | uint64(ch)) & mask
						if k >= n-1 {
							l.add(sc, (w^seedGram)*0x9E3779B97F4A7C15, 0.25)
						}
					}
				} else {
					for s := 0; s+n <= len(p); s++ {
						l.add(sc, hashBytes(seedGram, p[s:s+n]), 0.25)
					}
				}
			}
		}
		if !l.cfg.NoBigrams {
			if havePrev && !(stop && sc.prevStop) {
				// Combine the two word hashes: no second pass over the bytes.
				l.add(sc, (sc.prevHash*0x9E3779B97F4A7C15^hw^seedBigram)*0x100000001b3, 0.5)
			}
			sc.prevHash = hw
			sc.prevStop = stop
			havePrev = true
		}
	}
}

func hashBytes(seed uint64, b []byte) uint64 {
	h := seed
	for _, c := range b {
		h = (h ^ uint64(c)) * 0x100000001b3
	}
	return h
}

var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	return
}()

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r)
}

// stopwords are common English function words, left out of the unigram
// and character features.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "did", "do", "does",
		"for", "from", "had", "has", "have", "he", "her", "his", "i", "if", "in", "into", "is", "it", "its", "me", "my", "no",
		"not", "of", "on", "or", "our", "she", "so", "such", "than", "that", "the", "their", "them", "then", "there", "these",
		"they", "this", "those", "to", "up", "was", "we", "were", "what", "when", "where", "which", "while", "who", "will",
		"with", "would", "you", "your", "s", "t", "also", "just", "about", "all", "any", "more", "most", "other", "some", "very"} {
		m[w] = true
	}
	return m
}()

// log1p returns ln(1+x), from a table for the common small multiples of
// 0.25 that feature weights add up to.
func log1p(x float32) float32 {
	if k := int(x * 4); float32(k) == x*4 && k < len(log1pTable) {
		return log1pTable[k]
	}
	return float32(math.Log1p(float64(x)))
}

var log1pTable = func() (t [256]float32) {
	for k := range t {
		t[k] = float32(math.Log1p(float64(k) / 4))
	}
	return
}()

// maxStopword is the length of the longest stop word.
const maxStopword = 6

// isStopword reports whether w (whose word hash is h) is a stop word: a
// bitmap of the stop words' hashes answers most words without a map lookup.
func isStopword(w []byte, h uint64) bool {
	if len(w) > maxStopword || stopBits[h&0xffff>>6]&(1<<(h&63)) == 0 {
		return false
	}
	return stopwords[string(w)]
}

var stopBits = func() (bits [1024]uint64) {
	for w := range stopwords {
		h := hashBytes(seedWord, []byte(w))
		bits[h&0xffff>>6] |= 1 << (h & 63)
	}
	return
}()
