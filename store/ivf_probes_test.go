package store

import (
	"math/rand/v2"
	"testing"
)

// TestIVFDefaultProbes checks the default search's recall@10 against the
// exact scan on vectors without clusters (tokenMix, where one list in
// eight found 0.94) and on clustered ones, and that the clustered queries
// read the fewest lists.
func TestIVFDefaultProbes(t *testing.T) {
	const dims = 128
	for _, set := range []struct {
		name      string
		vs, qs    func(*rand.Rand, int) [][]float32
		clustered bool
	}{
		{name: "words", vs: func(r *rand.Rand, n int) [][]float32 { return tokenMix(r, n, dims, 5000, 32) }},
		{name: "clustered", vs: func(r *rand.Rand, n int) [][]float32 { return clustered(r, n, dims) }, clustered: true},
	} {
		t.Run(set.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 3))
			s, _ := openTemp(t, dims)
			fill(t, s, "d", set.vs(rng, ivfMinChunks+4000))
			x, err := s.ivf.load(t.Context(), s.rdb)
			if err != nil || x == nil || x.kind != kindIVF {
				t.Fatalf("no IVF index: %v", err)
			}
			lists := len(x.centroids)
			least, most := IVFProbes(lists)
			queries := set.vs(rng, 200)
			read := 0
			for _, q := range queries {
				n := defaultProbes(x.nearestLists(unit(q)))
				if n < least || n > most {
					t.Fatalf("a query reads %d of %d lists, want %d to %d", n, lists, least, most)
				}
				read += n
			}
			mean := float64(read) / float64(len(queries))
			r := recall(t, s, queries, 10, 0)
			t.Logf("%d lists: recall@10 %.3f reading %.1f lists a query (one in eight: %.3f)", lists, r, mean, recall(t, s, queries, 10, (lists+7)/8))
			if r < 0.95 {
				t.Errorf("recall@10 %.3f at the default probes, want 0.95 or more", r)
			}
			if set.clustered && mean > float64(least)+1 {
				t.Errorf("clustered queries read %.1f lists on average, want about %d (the floor)", mean, least)
			}
		})
	}
}

func TestDefaultProbesBounds(t *testing.T) {
	scores := func(n int, first, rest float32) []listScore {
		out := make([]listScore, n)
		for i := range out {
			out[i] = listScore{i, rest}
		}
		if n > 0 {
			out[0].score = first
		}
		return out
	}
	for _, c := range []struct {
		name  string
		order []listScore
		want  int
	}{
		{"none", nil, 0},
		{"fewer lists than the floor", scores(5, 0.9, 0.1), 5},
		{"one near list", scores(300, 0.95, 0.2), 8},
		{"all as near", scores(300, 0.3, 0.3), 100},
		// cos 0.5 is distance 1; 1.15 allows cos down to 1 − 1.15²/2 = 0.33875.
		{"within the slack", append(scores(12, 0.5, 0.34), scores(288, 0, 0.33)...), 12},
	} {
		if got := defaultProbes(c.order); got != c.want {
			t.Errorf("%s: %d lists read, want %d", c.name, got, c.want)
		}
	}
}

// tokenMix returns n vectors of dims dimensions, each the sum of words
// random words' vectors out of a vocabulary of vocab random vectors, the
// frequent words more often (rank r drawn about as 1/r): as a static
// embedding model with a random table embeds text. Such vectors have no
// clusters; the nearest neighbours of a vector are those sharing its
// words, spread over many of an index's lists.
func tokenMix(rng *rand.Rand, n, dims, vocab, words int) [][]float32 {
	vrng := rand.New(rand.NewPCG(uint64(dims), uint64(vocab)))
	table := make([][]float32, vocab)
	for i := range table {
		table[i] = make([]float32, dims)
		for j := range table[i] {
			table[i][j] = float32(vrng.NormFloat64())
		}
	}
	out := make([][]float32, n)
	for i := range out {
		v := make([]float32, dims)
		topic := rng.IntN(vocab / 25)
		for range words {
			// exp of a uniform log-rank: P(rank r) ∝ 1/r.
			w := table[int(float64(vocab)*rng.Float64()*rng.Float64())]
			if rng.IntN(4) != 0 {
				w = table[(topic*25+rng.IntN(50))%vocab]
			}
			for j := range v {
				v[j] += w[j]
			}
		}
		out[i] = v
	}
	return out
}
