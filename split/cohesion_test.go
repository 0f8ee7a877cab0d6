package split

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sentenceUnits makes one unit per sentence of text (ends at ". "), each
// of size its length in bytes.
func sentenceUnits(text string) []unit {
	var out []unit
	start := 0
	for start < len(text) {
		end := strings.Index(text[start:], ". ")
		if end < 0 {
			end = len(text)
		} else {
			end += start + 1
		}
		out = append(out, unit{start: uint32(start), end: uint32(end), size: uint32(end - start)})
		start = min(end+1, len(text))
	}
	return out
}

// bruteCohesion computes each end's cosine from scratch, with the windows
// cohesion slides.
func bruteCohesion(text string, units []unit, window int) []float64 {
	var table wordTable
	words := make([][]int32, len(units))
	vocab := 0
	for u, p := range units {
		words[u] = table.appendWords(nil, text[p.start:p.end])
		for _, id := range words[u] {
			vocab = max(vocab, int(id)+1)
		}
	}
	n := len(units)
	df := make([]float64, vocab)
	for u := range n {
		seen := map[int32]bool{}
		for _, id := range words[u] {
			if !seen[id] {
				seen[id] = true
				df[id]++
			}
		}
	}
	bag := func(from, to int) map[int32]float64 {
		m := map[int32]float64{}
		for u := from; u < to; u++ {
			for _, id := range words[u] {
				m[id]++
			}
		}
		return m
	}
	out := make([]float64, n-1)
	for i := range n - 1 {
		l, size := i, int(units[i].size)
		for l > 0 && size < window {
			l--
			size += int(units[l].size)
		}
		r, size := i+2, int(units[i+1].size)
		for r < n && size < window {
			size += int(units[r].size)
			r++
		}
		left, right := bag(l, i+1), bag(i+1, r)
		var dot, nl, nr float64
		for id, c := range left {
			w := math.Log(float64(n) / df[id])
			w *= w
			dot += w * c * right[id]
			nl += w * c * c
		}
		for id, c := range right {
			w := math.Log(float64(n) / df[id])
			nr += w * w * c * c
		}
		if nl > 0 && nr > 0 {
			out[i] = min(max(dot/math.Sqrt(nl*nr), 0), 1)
		}
	}
	return out
}

// The sliding windows give what computing every end afresh gives.
func TestCohesionSlidingIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := strings.Fields("cat mouse barn hay rates bond bank market Été café naïve 42 river boat fish net")
	for trial := range 20 {
		var b strings.Builder
		for range 40 + rng.IntN(40) {
			for range 1 + rng.IntN(12) {
				b.WriteString(vocab[rng.IntN(len(vocab))])
				b.WriteString(" ")
			}
			b.WriteString(". ")
		}
		text := b.String()
		units := sentenceUnits(text)
		window := 10 + rng.IntN(200)
		got, err := cohesion(context.Background(), text, units, window)
		if err != nil {
			t.Fatal(err)
		}
		want := bruteCohesion(text, units, window)
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-9 {
				t.Fatalf("trial %d, window %d, end %d: %v, computed afresh %v", trial, window, i, got[i], want[i])
			}
		}
	}
}

// Two topics: the ends inside each are cohesive, the end between them is
// the least cohesive of all.
func TestCohesionFindsTheShift(t *testing.T) {
	a := []string{"The cat chased the mouse into the barn", "In the barn the mouse hid under the hay",
		"The cat waited by the hay for the mouse", "At dawn the cat left the barn without the mouse"}
	b := []string{"Bond markets fell as the central bank raised rates", "The bank said rates would stay high",
		"Traders sold bonds before the bank spoke", "Higher rates hurt bond prices again"}
	text := strings.Join(a, ". ") + ". " + strings.Join(b, ". ") + "."
	units := sentenceUnits(text)
	if len(units) != 8 {
		t.Fatalf("%d units", len(units))
	}
	got, err := cohesion(context.Background(), text, units, 60)
	if err != nil {
		t.Fatal(err)
	}
	shift := got[3]
	for i, c := range got {
		if i != 3 && c <= shift {
			t.Errorf("end %d: cohesion %.3f, not above the topic shift's %.3f (%v)", i, c, shift, got)
		}
	}
	if shift > 0.05 {
		t.Errorf("the topic shift has cohesion %.3f: the topics share no content word", shift)
	}
	if got, err := cohesion(context.Background(), "One sentence.", []unit{{start: 0, end: 13, size: 13}}, 10); got != nil || err != nil {
		t.Errorf("one unit has no end to score: %v, %v", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := cohesion(ctx, text, units, 60); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestWordIDsInOrder reads back the ids of a text with more distinct
// words than two bytes number: a word's id is the order in which it first
// came, and the windows hold the words of the units they were given.
func TestWordIDsInOrder(t *testing.T) {
	var sb strings.Builder
	var want [][]int32
	var units []unit
	first := map[int]int32{}
	for u := range 1000 {
		start := sb.Len()
		var ids []int32
		for k := range 100 {
			w := u*100 + k
			if k%10 == 0 {
				w = k // a word seen before
			}
			sb.WriteString("w" + strconv.Itoa(w) + " ")
			id, ok := first[w]
			if !ok {
				id = int32(len(first))
				first[w] = id
			}
			ids = append(ids, id)
		}
		want = append(want, ids)
		units = append(units, unit{start: uint32(start), end: uint32(sb.Len()), size: uint32(sb.Len() - start)})
	}
	text := sb.String()
	var table wordTable
	for u, p := range units {
		if got := table.appendWords(nil, text[p.start:p.end]); !slices.Equal(got, want[u]) {
			t.Fatalf("unit %d: ids %v, want %v", u, got, want[u])
		}
	}
	if table.n != len(first) || table.n <= 1<<16 {
		t.Fatalf("vocab %d, want %d (over 65,536)", table.n, len(first))
	}
	// A window that slides over the units, 7 at a time, reads back what
	// it was given, through its compactions.
	var w wordWindow
	for u := range units {
		w.add(&table, text, units[u])
		if u >= 7 {
			w.drop()
		}
		for v := max(0, u-6); v <= u; v++ {
			if got := w.of(v); !slices.Equal(got, want[v]) {
				t.Fatalf("after unit %d, unit %d: ids %v, want %v", u, v, got[:min(len(got), 5)], want[v][:5])
			}
		}
	}
}
