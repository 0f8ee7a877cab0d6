package embed

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
)

// LexicalConfig configures the Lexical embedder.
type LexicalConfig struct {
	// Dim is the vector length (the number of hash buckets); 0 means 1024.
	Dim int `json:"dim"`
	// CharNGram is the length, in bytes, of the character n-grams taken
	// inside words of at least that length (with word boundary marks); 0
	// leaves them out (the default: on topic segmentation they blur
	// vocabulary that should be disjoint), negative too.
	CharNGram int `json:"char_ngram"`
	// Bigrams adds word bigrams (off by default: on long documents they
	// take dimensions from the words that tell topics apart).
	Bigrams bool `json:"bigrams"`
	// KeepStopwords keeps common English function words as features.
	KeepStopwords bool `json:"keep_stopwords"`
	// NoStemming keeps English words whole instead of stripping common
	// inflections ("valleys", "carved", "carving" → "valley", "carv").
	NoStemming bool `json:"no_stemming"`
}

// Lexical is a deterministic lexical embedding: sublinear TF-IDF over
// lowercased, lightly stemmed words (without common English function
// words), optionally word bigrams and character n-grams inside words,
// projected into Dim
// dimensions by signed feature hashing and L2-normalised.
//
// Term frequencies and document frequencies are those of exact features
// (64-bit hashes); only the final weighted vector is hashed, each feature
// added with a sign drawn from its hash, so collisions cancel out on
// average instead of adding up: the dot product of two vectors is an
// unbiased estimate of the dot product of their exact TF-IDF vectors, and
// texts with no word in common have a similarity near 0 (within about
// 1/√Dim), not the 0.1–0.5 that unsigned hashing gives.
//
// Chunkers call ForDocument, which takes the IDF from the pieces of the
// document being chunked, as TextTiling-style topic segmentation does;
// without it every feature weighs the same.
//
// It measures shared vocabulary, not meaning: "car" and "automobile" are
// unrelated to it, and so are paraphrases. It is good enough to find where
// a text changes subject, needs no model and no download, is exactly
// reproducible, and runs at tens of MB/s per core. For meaning, use a
// static or transformer model.
type Lexical struct {
	cfg   LexicalConfig
	idf   map[uint64]float32 // nil: all 1
	idf0  float32            // IDF of a feature no piece holds
	index map[uint64]int32   // the dimension of each feature that has one
	dim   int                // the adapted vector length; 0: cfg.Dim
	// overflow: more features are shared than there are dimensions; those
	// without one are hashed over all of them.
	overflow bool
	id       string
	pool     *sync.Pool
}

// NewLexical returns a Lexical embedder.
func NewLexical(cfg LexicalConfig) *Lexical {
	if cfg.Dim <= 0 {
		cfg.Dim = 1024
	}
	if cfg.CharNGram < 0 {
		cfg.CharNGram = 0
	}
	l := &Lexical{cfg: cfg}
	l.id = fmt.Sprintf("lexical-v2:d%d:c%d:b%v:s%v:m%v", cfg.Dim, cfg.CharNGram, cfg.Bigrams, cfg.KeepStopwords, !cfg.NoStemming)
	l.pool = &sync.Pool{New: func() any { return &lexScratch{} }}
	return l
}

// feature is one occurrence, or after aggregation the total weight, of a
// hashed feature.
type feature struct {
	h uint64
	w float32
}

type lexScratch struct {
	feats    []feature
	touched  []int32
	word     []byte
	padded   []byte
	prevStop bool
	prevHash uint64
}

// Dim returns the vector length.
func (l *Lexical) Dim() int {
	if l.dim > 0 {
		return l.dim
	}
	return l.cfg.Dim
}

// MaxTokens returns 0: any length is embedded whole.
func (l *Lexical) MaxTokens() int { return 0 }

// ModelID names the configuration, and the document IDF when there is one.
func (l *Lexical) ModelID() string { return l.id }

// ForDocument returns a Lexical embedder adapted to pieces (the sentences
// or passages of the document being chunked). A feature in df of the N
// pieces weighs ln((1+N)/(1+df)) + 1. Features that two or more pieces
// share get a dimension of their own, up to Dim minus the residual
// dimensions (those with the largest total weight df·idf first): the
// similarities the chunkers compare, between disjoint blocks of the
// document, come only from shared features, so they are exact and free of
// hashing noise. Every other feature is hashed with a sign into the
// residual dimensions, which keeps the vectors' norms. The adapted
// embedder's Dim is the number of dimensions used, at most Dim.
func (l *Lexical) ForDocument(pieces []string) Embedder {
	df := l.docFreq(pieces)
	n := float64(len(pieces))
	idfOf := func(d int32) float32 { return float32(math.Log((1+n)/(1+float64(d))) + 1) }
	type ranked struct {
		h      uint64
		weight float32
	}
	var shared []ranked
	idf := make(map[uint64]float32, len(df))
	for h, d := range df {
		w := idfOf(d)
		idf[h] = w
		if d >= 2 {
			shared = append(shared, ranked{h, float32(d) * w})
		}
	}
	slices.SortFunc(shared, func(a, b ranked) int {
		if c := cmp.Compare(b.weight, a.weight); c != 0 {
			return c
		}
		return cmp.Compare(a.h, b.h)
	})
	overflow := len(shared) > l.cfg.Dim
	shared = shared[:min(len(shared), l.cfg.Dim)]
	index := make(map[uint64]int32, len(shared))
	// The model id hashes the vocabulary and its weights in rank order.
	sum := uint64(len(pieces))
	for i, f := range shared {
		index[f.h] = int32(i)
		sum = (sum ^ f.h ^ uint64(math.Float32bits(idf[f.h]))) * 0x100000001b3
	}
	return &Lexical{cfg: l.cfg, idf: idf, idf0: idfOf(0), index: index, dim: max(1, len(shared)), overflow: overflow, pool: l.pool,
		id: fmt.Sprintf("%s:doc%d:v%d:%016x", l.id, len(pieces), len(shared), sum)}
}

// ForCollection returns a Lexical embedder weighted for retrieval over
// texts: each feature weighs its inverse document frequency in texts,
// ln((1+N)/(1+df)) + 1 (a feature none holds, as in a query, the highest),
// and every feature keeps its hashed dimension, so a word only one text
// holds still matches a query that has it. Texts and queries must then be
// embedded by the returned embedder.
func (l *Lexical) ForCollection(texts []string) Embedder {
	df := l.docFreq(texts)
	n := float64(len(texts))
	idfOf := func(d int32) float32 { return float32(math.Log((1+n)/(1+float64(d))) + 1) }
	idf := make(map[uint64]float32, len(df))
	sum := uint64(len(texts))
	for h, d := range df {
		idf[h] = idfOf(d)
		sum += h * uint64(d) // order-free: a sum
	}
	cfg := l.cfg
	cfg.Dim = max(cfg.Dim, collectionDim)
	return &Lexical{cfg: cfg, idf: idf, idf0: idfOf(0), dim: cfg.Dim, overflow: true, pool: l.pool,
		id: fmt.Sprintf("%s:idf%d:%016x", l.id, len(texts), sum)}
}

// Embed returns the vectors of texts, computed on all cores.
func (l *Lexical) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := slab(len(texts), l.Dim())
	err := parallel(ctx, len(texts), func(i int) error {
		l.embedOne(texts[i], out[i])
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("lexical embedding: %w", err)
	}
	return out, nil
}

// embedOne writes the vector of text into v, which must be zero. Only
// the entries it writes are touched, normalisation included, so the cost
// follows the text's length, not the dimension.
func (l *Lexical) embedOne(text string, v []float32) {
	sc := l.pool.Get().(*lexScratch)
	defer l.pool.Put(sc)
	dim := uint64(len(v))
	sc.touched = sc.touched[:0]
	for _, f := range l.aggregate(text, sc) {
		w := log1p(f.w)
		if l.idf != nil {
			if x, ok := l.idf[f.h]; ok {
				w *= x
			} else {
				w *= l.idf0
			}
			if d, ok := l.index[f.h]; ok {
				v[d] += w
				sc.touched = append(sc.touched, d)
				continue
			}
			if !l.overflow {
				continue // no other piece holds it
			}
		}
		// Lemire's multiply-shift maps the hash's high bits to [0, dim)
		// without a division; the lowest bit gives the sign.
		b := int32((f.h >> 32) * dim >> 32)
		if f.h&1 != 0 {
			w = -w
		}
		v[b] += w
		sc.touched = append(sc.touched, b)
	}
	slices.Sort(sc.touched)
	sc.touched = slices.Compact(sc.touched)
	var sum float64
	for _, b := range sc.touched {
		sum += float64(v[b]) * float64(v[b])
	}
	if sum == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sum))
	for _, b := range sc.touched {
		v[b] *= inv
	}
}

// aggregate returns the features of text with their summed weights, in
// hash order; the slice is sc's and valid until the next call.
func (l *Lexical) aggregate(text string, sc *lexScratch) []feature {
	sc.feats = sc.feats[:0]
	l.features(text, sc)
	fs := sc.feats
	slices.SortFunc(fs, func(a, b feature) int { return cmp.Compare(a.h, b.h) })
	out := fs[:0]
	for _, f := range fs {
		if n := len(out); n > 0 && out[n-1].h == f.h {
			out[n-1].w += f.w
			continue
		}
		out = append(out, f)
	}
	return out
}

const (
	seedWord   = 0x9E3779B97F4A7C15
	seedBigram = 0xC2B2AE3D27D4EB4F
	seedGram   = 0x165667B19E3779F9
)

func (l *Lexical) add(sc *lexScratch, h uint64, w float32) {
	// Finalise the hash (a murmur3 mix) so that its high bits, which pick
	// the bucket, and its low bit, the sign, are independent.
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	sc.feats = append(sc.feats, feature{h, w})
}

// features appends the features of text to sc.feats.
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
		if !stop && !l.cfg.NoStemming {
			if st := stem(word); len(st) < len(word) {
				word = st
				hw = hashBytes(seedWord, word)
			}
		}
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
		if l.cfg.Bigrams {
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

// stem strips the common inflectional suffixes of a lowercase English
// word: plural -s/-es/-ies, -ed, -ing and a final -e, so that "valleys"
// and "valley", or "carve", "carved" and "carving", are one feature. It
// is a light stemmer (far less than Porter's): derivational suffixes stay,
// and words of other scripts or with digits are kept whole.
func stem(w []byte) []byte {
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return w
		}
	}
	n := len(w)
	switch {
	case n > 4 && hasSuffix(w, "ies"):
		w = append(w[:n-3], 'y')
	case n > 4 && hasSuffix(w, "sses"):
		w = w[:n-2]
	case n > 3 && w[n-1] == 's' && w[n-2] != 's' && w[n-2] != 'u' && w[n-2] != 'i':
		w = w[:n-1]
	case n > 5 && hasSuffix(w, "ing"):
		w = w[:n-3]
	case n > 4 && hasSuffix(w, "ed"):
		w = w[:n-2]
	}
	if n := len(w); n > 3 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	return w
}

func hasSuffix(w []byte, s string) bool {
	return len(w) >= len(s) && string(w[len(w)-len(s):]) == s
}

// docFreq returns, for each feature, the number of texts that hold it.
func (l *Lexical) docFreq(texts []string) map[uint64]int32 {
	df := map[uint64]int32{}
	sc := l.pool.Get().(*lexScratch)
	defer l.pool.Put(sc)
	for _, t := range texts {
		for _, f := range l.aggregate(t, sc) {
			df[f.h]++
		}
	}
	return df
}

// collectionDim is the least dimension of ForCollection's vectors: a
// collection's vocabulary is larger than a document's, and fewer hash
// collisions keep rare terms apart.
const collectionDim = 8192
