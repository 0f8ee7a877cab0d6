package split

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunktest"
	"github.com/gochunk/gochunk/tokenize"
)

// Long runs of letters without white space are one pre-token, whose
// ranges the engine counts from the whole text's tokens (InsidePiece)
// rather than encoding them again. token, recursive and semchunk keep the
// contract on them, exact sizes included, in both encodings: lower-case
// runs, mixed case (o200k_base splits where the case changes), accented
// letters, and a few spaces and digits between runs.
func TestLongLetterRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 29))
	gen := func(alphabet string, n int, breaks bool) string {
		runes := []rune(alphabet)
		var sb strings.Builder
		for sb.Len() < n {
			if breaks && rng.IntN(3000) == 0 {
				sb.WriteString([]string{" ", "7", "\n", ". "}[rng.IntN(4)])
			}
			sb.WriteRune(runes[rng.IntN(len(runes))])
		}
		return sb.String()
	}
	texts := map[string]string{
		"lower":        gen("abcdefghijklmnopqrstuvwxyz", 100_000, false),
		"mixed case":   gen("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", 100_000, false),
		"accented":     gen("aeiouéèüßñçøå", 60_000, true),
		"with breaks":  gen("abcdefghijklmnopqrstuvwxyz", 100_000, true),
		"longer piece": gen("etaoinshrdlu", 300_000, false),
	}
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		counter, err := tokenize.NewTikToken(enc)
		if err != nil {
			t.Fatal(err)
		}
		makers := map[string]func() (gochunk.Chunker, error){
			"token": func() (gochunk.Chunker, error) { return NewToken(TokenConfig{Size{Size: 512}}, counter) },
			"recursive": func() (gochunk.Chunker, error) {
				c := DefaultRecursiveConfig()
				c.Size = Size{Size: 300}
				return NewRecursive(c, counter)
			},
			"semchunk": func() (gochunk.Chunker, error) { return NewSemchunk(SemchunkConfig{Size{Size: 200}}, counter) },
		}
		for cname, mk := range makers {
			for tname, text := range texts {
				c, err := mk()
				if err != nil {
					t.Fatal(err)
				}
				chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
				if err != nil {
					t.Fatalf("%s %s %s: %v", enc, cname, tname, err)
				}
				limit := map[string]int{"token": 512, "recursive": 300, "semchunk": 200}[cname]
				if msg := chunktest.Verify(text, chunks, chunktest.Options{Counter: counter, Limit: limit}); msg != "" {
					t.Fatalf("%s %s %s: %s", enc, cname, tname, msg)
				}
			}
		}
	}
}
