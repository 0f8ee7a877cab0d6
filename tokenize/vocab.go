package tokenize

import (
	_ "embed"
	"fmt"

	"github.com/gochunk/gochunk/tokenize/internal/bpeindex"
)

//go:generate go run ./internal/vocabgen vocab

// The tiktoken vocabularies, written by internal/vocabgen: every token's
// bytes by rank, each after its length in one byte (0 for a rank with no
// token), their lookup tables (package bpeindex), and their merges
// (package merges, read the first time a text has a long piece). Strings,
// so that they are read where the binary maps them and never copied or
// built at start-up.
var (
	//go:embed vocab/cl100k_base.bpe
	cl100kVocab string
	//go:embed vocab/cl100k_base.idx
	cl100kIndex string
	//go:embed vocab/o200k_base.bpe
	o200kVocab string
	//go:embed vocab/o200k_base.idx
	o200kIndex string
	//go:embed vocab/cl100k_base.merges
	cl100kMerges string
	//go:embed vocab/o200k_base.merges
	o200kMerges string
)

// vocab is a byte-level BPE vocabulary held in the files it is read from:
// the bytes of token r are data[at(r):at(r)+len], the length being the
// byte before them; idx holds at for every rank, then an open-addressing
// table from a token's bytes (under bpeindex.Hash) to its rank, both as
// little-endian 32-bit words. Nothing is built or copied: a process is
// ready to count as soon as it starts.
type vocab struct {
	data   string
	idx    string
	n      int    // ranks
	slots  int    // offset of the table in idx
	mask   uint64 // table size - 1
	merges string // the merges file, "" for none
}

// loadVocab returns the embedded vocabulary of encoding name.
func loadVocab(name string) (*vocab, error) {
	switch name {
	case "cl100k_base":
		return newVocab(cl100kVocab, cl100kIndex, cl100kMerges)
	case "o200k_base":
		return newVocab(o200kVocab, o200kIndex, o200kMerges)
	}
	return nil, fmt.Errorf("%w %q: tiktoken encodings are cl100k_base and o200k_base", ErrUnknown, name)
}

// newVocab reads a vocabulary, its table and its merges; an empty or
// inconsistent table is built again from the vocabulary.
func newVocab(data, idx, merges string) (*vocab, error) {
	if v, ok := fromIndex(data, idx); ok {
		v.merges = merges
		return v, nil
	}
	at, slots, err := bpeindex.Build(data)
	if err != nil {
		return nil, err
	}
	v, ok := fromIndex(data, string(bpeindex.Encode(at, slots)))
	if !ok {
		return nil, fmt.Errorf("vocabulary index built inconsistent")
	}
	v.merges = merges
	return v, nil
}

// fromIndex checks idx's shape against data.
func fromIndex(data, idx string) (*vocab, bool) {
	if len(idx) < 8 {
		return nil, false
	}
	n, size := int(le32(idx, 0)), int(le32(idx, 4))
	if size == 0 || size&(size-1) != 0 || size < 2*n || len(idx) != 8+4*(n+size) {
		return nil, false
	}
	v := &vocab{data: data, idx: idx, n: n, slots: 8 + 4*n, mask: uint64(size - 1)}
	// The first rank's bytes start after its length byte and the last
	// rank's end where the file does.
	if n == 0 || v.at(0) != 1 {
		return nil, false
	}
	if last := int(v.at(uint32(n - 1))); last < 1 || last > len(data) || last+int(data[last-1]) != len(data) {
		return nil, false
	}
	return v, true
}

func le32(s string, i int) uint32 {
	_ = s[i+3]
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

// at returns the offset of rank r's bytes in data.
func (v *vocab) at(r uint32) uint32 { return le32(v.idx, 8+4*int(r)) }

// token returns the bytes of rank r ("" for a rank with no token).
func (v *vocab) token(r uint32) string {
	i := v.at(r)
	return v.data[i : i+uint32(v.data[i-1])]
}

// ranks returns the number of ranks, the highest plus one.
func (v *vocab) ranks() int { return v.n }

// rank returns the rank of the token whose bytes are s.
func (v *vocab) rank(s string) (uint32, bool) {
	if s == "" || len(s) > 255 {
		return 0, false
	}
	for i := bpeindex.Hash(s) & v.mask; ; i = (i + 1) & v.mask {
		r := le32(v.idx, v.slots+4*int(i))
		if r == 0 {
			return 0, false
		}
		if v.token(r-1) == s {
			return r - 1, true
		}
	}
}
