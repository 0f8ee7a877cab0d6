// Package textgen generates deterministic English-like prose for
// benchmarks and tests that must not depend on external corpora.
package textgen

import (
	"math/rand/v2"
	"strings"
)

var words = strings.Fields(`the of and to in a is that for it as was with be by on not he this are or his from at which
but have an they you were her she there been one all we their has would when if so no will more what up out about
into than them can only other new some time could these two may then first any my now such like our over man me even
most made after also did many before must through back years where much your way well down should because each just
those people how too little state good very make world still own see men work long get here between both life being
under never day same another know while last might us great old year off come since against go came right used take
three retrieval chunk document embedding vector model token sentence paragraph boundary semantic similarity cluster
index query answer evaluation recall precision language window overlap segment heading section table figure corpus
résumé café naïve Zürich São Paulo München`)

// Prose returns about n bytes of generated text: sentences of 5 to 24
// words, paragraphs of 2 to 7 sentences separated by blank lines, and a
// markdown heading every few paragraphs. The same seed gives the same text.
func Prose(n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var b strings.Builder
	b.Grow(n + 256)
	para := 0
	for b.Len() < n {
		if para%6 == 0 {
			b.WriteString("## ")
			b.WriteString(title(r))
			b.WriteString("\n\n")
		}
		sentences := 2 + r.IntN(6)
		for s := range sentences {
			if s > 0 {
				b.WriteByte(' ')
			}
			sentence(&b, r)
		}
		b.WriteString("\n\n")
		para++
	}
	return b.String()
}

func title(r *rand.Rand) string {
	n := 2 + r.IntN(4)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = words[r.IntN(len(words))]
	}
	parts[0] = strings.ToUpper(parts[0][:1]) + parts[0][1:]
	return strings.Join(parts, " ")
}

func sentence(b *strings.Builder, r *rand.Rand) {
	n := 5 + r.IntN(20)
	for i := range n {
		w := words[r.IntN(len(words))]
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		if i < n-1 && r.IntN(12) == 0 {
			b.WriteByte(',')
		}
	}
	switch r.IntN(10) {
	case 0:
		b.WriteByte('?')
	case 1:
		b.WriteByte('!')
	default:
		b.WriteByte('.')
	}
}
