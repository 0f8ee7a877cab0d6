// Package bpeindex builds the lookup table of a byte-level BPE
// vocabulary file (every token's bytes by rank, each after its length in
// one byte): each rank's offset, and an open-addressing table from a
// token's bytes to its rank under a fixed hash, so that the table can be
// computed once (go generate) and embedded beside the vocabulary.
package bpeindex

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// Hash is the table's hash of a token's bytes: FNV-1a, 64 bits.
func Hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Build returns the offset of each rank's bytes in data, and the table:
// slots holding rank+1 (0 for empty), a power of two at least twice the
// ranks, a token in the first free slot from its hash on (a duplicate
// keeps its first rank).
func Build(data string) (at, slots []uint32, err error) {
	n := 0
	for i := 0; i < len(data); i += 1 + int(data[i]) {
		n++
	}
	at = make([]uint32, 0, n)
	for i := 0; i < len(data); {
		k := int(data[i])
		if i+1+k > len(data) {
			return nil, nil, errors.New("vocabulary file cut short")
		}
		at = append(at, uint32(i+1))
		i += 1 + k
	}
	token := func(r uint32) string { i := at[r]; return data[i : i+uint32(data[i-1])] }
	size := 1 << bits.Len(uint(2*len(at)))
	slots = make([]uint32, size)
	mask := uint64(size - 1)
	for r := range at {
		tok := token(uint32(r))
		if tok == "" {
			continue
		}
		for i := Hash(tok) & mask; ; i = (i + 1) & mask {
			s := slots[i]
			if s == 0 {
				slots[i] = uint32(r) + 1
				break
			}
			if token(s-1) == tok {
				break
			}
		}
	}
	return at, slots, nil
}

// Encode writes at and slots as one little-endian file: the number of
// ranks, the number of slots, then both arrays.
func Encode(at, slots []uint32) []byte {
	out := make([]byte, 8+4*(len(at)+len(slots)))
	binary.LittleEndian.PutUint32(out, uint32(len(at)))
	binary.LittleEndian.PutUint32(out[4:], uint32(len(slots)))
	for i, v := range at {
		binary.LittleEndian.PutUint32(out[8+4*i:], v)
	}
	for i, v := range slots {
		binary.LittleEndian.PutUint32(out[8+4*(len(at)+i):], v)
	}
	return out
}
