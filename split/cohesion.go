package split

import (
	"context"
	"fmt"
	"math"
	"unicode"
	"unicode/utf8"

	"github.com/gochunk/gochunk/internal/pack"
)

// cohesion returns, for the end of each unit but the last, how alike the
// text is on its two sides: the TF-IDF cosine, in [0, 1], of the words of
// the units that reach window (in size units) before the end and of those
// that reach it after. Words are lowercased runs of letters and digits;
// a word's IDF is the log of the number of units over the number holding
// it. A topic that goes on across an end gives a high value, a shift of
// topic a low one, as in TextTiling. The windows slide over the units
// once, so the cost is linear in the text.
func cohesion(ctx context.Context, text string, units []pack.Piece, window int) ([]float64, error) {
	if len(units) < 2 {
		return nil, nil
	}
	out := make([]float64, len(units)-1)
	return out, addCohesion(ctx, text, units, window, 1, out)
}

// addCohesion adds weight times cohesion's value at each end to costs[i],
// in place: adaptive's costs, without a slice of the values besides.
func addCohesion(ctx context.Context, text string, units []pack.Piece, window int, weight float64, costs []float64) error {
	n := len(units)
	if n < 2 {
		return nil
	}
	ids, starts, vocab, err := unitWords(ctx, text, units)
	if err != nil {
		return err
	}
	// IDF² of each word, from the units that hold it.
	df := make([]int32, vocab)
	last := make([]int32, vocab)
	for i := range last {
		last[i] = -1
	}
	for u := range n {
		for p := starts[u]; p < starts[u+1]; {
			var id int
			id, p = nextID(ids, p)
			if last[id] != int32(u) {
				last[id] = int32(u)
				df[id]++
			}
		}
	}
	idf2 := make([]float64, vocab)
	for id, d := range df {
		w := math.Log(float64(n) / float64(d))
		idf2[id] = w * w
	}

	// The left window holds units [l, i], the right one [i+1, r). Counts of
	// each word in them, and the dot product and squared norms of their
	// TF-IDF vectors, are kept up to date as units come and go.
	left := make([]float64, vocab)
	right := make([]float64, vocab)
	var dot, normL, normR float64
	move := func(u int, mine, other []float64, norm *float64, sign float64) {
		for p := starts[u]; p < starts[u+1]; {
			var id int
			id, p = nextID(ids, p)
			w := idf2[id]
			dot += sign * w * other[id]
			*norm += w * (2*sign*mine[id] + 1)
			mine[id] += sign
		}
	}
	l, r := 0, 0
	sizeL, sizeR := 0, 0
	for i := range n - 1 {
		if r > i { // unit i leaves the right window for the left one
			move(i, right, left, &normR, -1)
			sizeR -= units[i].Size
		} else {
			r = i + 1
		}
		move(i, left, right, &normL, 1)
		sizeL += units[i].Size
		for l < i && sizeL-units[l].Size >= window {
			move(l, left, right, &normL, -1)
			sizeL -= units[l].Size
			l++
		}
		for r < n && (r == i+1 || sizeR < window) {
			move(r, right, left, &normR, 1)
			sizeR += units[r].Size
			r++
		}
		v := 0.0
		if normL > 0 && normR > 0 {
			v = min(max(dot/math.Sqrt(normL*normR), 0), 1)
		}
		costs[i] += weight * v
	}
	return nil
}

// unitWords returns the words of each unit as small integer ids, those
// of unit u in ids[starts[u]:starts[u+1]] (read with nextID), and the
// number of distinct ids. An id under idEscape takes two bytes, a larger
// one idEscape and its two halves: int32s took 4 bytes (22 MB for the 5.5
// million words of 30 MB of mixed text, twice that while the slice grew).
func unitWords(ctx context.Context, text string, units []pack.Piece) (ids []uint16, starts []int, vocab int, err error) {
	var table wordTable
	starts = make([]int, len(units)+1)
	ids = make([]uint16, 0, len(text)/5)
	for u, p := range units {
		if u%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, 0, fmt.Errorf("chunking cancelled: %w", err)
			}
		}
		starts[u] = len(ids)
		s := text[p.Start:p.End]
		for i := 0; i < len(s); {
			h, next := nextWord(s, i)
			i = next
			if h != 0 {
				if id := table.id(h); id < idEscape {
					ids = append(ids, uint16(id))
				} else {
					ids = append(ids, idEscape, uint16(id>>16), uint16(id))
				}
			}
		}
	}
	starts[len(units)] = len(ids)
	return ids, starts, table.n, nil
}

// idEscape marks an id of unitWords that takes three uint16s.
const idEscape = 0xFFFF

// nextID reads the id at ids[p] and returns it and where the next starts.
func nextID(ids []uint16, p int) (id, next int) {
	if v := ids[p]; v != idEscape {
		return int(v), p + 1
	}
	return int(ids[p+1])<<16 | int(ids[p+2]), p + 3
}

// wordTable numbers word hashes in the order they come: an open-addressing
// hash table (linear probing, at most half full), faster than a map for
// the many lookups of a long text.
type wordTable struct {
	keys []uint64 // 0: empty
	ids  []int32
	n    int
}

func (t *wordTable) id(h uint64) int32 {
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	mask := uint64(len(t.keys) - 1)
	for i := (h * 0x9E3779B97F4A7C15) >> 20 & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case h:
			return t.ids[i]
		case 0:
			t.keys[i], t.ids[i] = h, int32(t.n)
			t.n++
			return t.ids[i]
		}
	}
}

func (t *wordTable) grow() {
	keys, ids := t.keys, t.ids
	size := max(2*len(keys), 1024)
	t.keys, t.ids = make([]uint64, size), make([]int32, size)
	mask := uint64(size - 1)
	for j, h := range keys {
		if h == 0 {
			continue
		}
		i := (h * 0x9E3779B97F4A7C15) >> 20 & mask
		for t.keys[i] != 0 {
			i = (i + 1) & mask
		}
		t.keys[i], t.ids[i] = h, ids[j]
	}
}

// nextWord hashes (FNV-1a, lowercased) the word at or after s[i:] and
// returns the offset after it; the hash is 0 when no word is left.
func nextWord(s string, i int) (hash uint64, next int) {
	const offset, prime = 14695981039346656037, 1099511628211
	for i < len(s) { // skip to the word
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiLower[c] != 0 {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			break
		}
		i += size
	}
	if i == len(s) {
		return 0, i
	}
	hash = offset
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			l := asciiLower[c]
			if l == 0 {
				break
			}
			hash = (hash ^ uint64(l)) * prime
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		var buf [utf8.UTFMax]byte
		for _, b := range buf[:utf8.EncodeRune(buf[:], unicode.ToLower(r))] {
			hash = (hash ^ uint64(b)) * prime
		}
		i += size
	}
	if hash == 0 {
		hash = 1
	}
	return hash, i
}

// asciiLower maps the ASCII letters and digits to their lower case, and
// every other byte to 0.
var asciiLower = func() (t [utf8.RuneSelf]byte) {
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c
	}
	for c := byte('a'); c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = c, c
	}
	return
}()
