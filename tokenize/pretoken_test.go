package tokenize

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
)

// patternPieces returns the pieces a regular expression engine cuts text
// into: consecutive matches, as tiktoken and Hugging Face's tokenizers
// take them.
func patternPieces(re *regexp2.Regexp, text string) []string {
	var out []string
	for m, _ := re.FindStringMatch(text); m != nil; m, _ = re.FindNextMatch(m) {
		out = append(out, m.String())
	}
	return out
}

func codePieces(fn pieceEnd, text string) []string {
	var out []string
	for i := 0; i < len(text); {
		j := fn(text, i)
		if j <= i {
			return append(out, "<stuck>")
		}
		out = append(out, text[i:j])
		i = j
	}
	return out
}

// compiledPatterns compiles every hand-written pattern as tiktoken (no
// options) and Hugging Face's pipelines (Unicode) compile it.
func compiledPatterns(t testing.TB) map[string][]*regexp2.Regexp {
	out := map[string][]*regexp2.Regexp{}
	for p := range pretokenizers {
		for _, opt := range []regexp2.RegexOptions{regexp2.None, regexp2.Unicode} {
			re, err := regexp2.Compile("(?:"+p+")", opt)
			if err != nil {
				t.Fatal(err)
			}
			out[p] = append(out[p], re)
		}
	}
	return out
}

func comparePieces(t *testing.T, res map[string][]*regexp2.Regexp, text string) {
	t.Helper()
	for p, fn := range pretokenizers {
		got := codePieces(fn, text)
		for _, re := range res[p] {
			want := patternPieces(re, text)
			if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
				t.Fatalf("pattern %.30q…, text %q:\ncode    %q\npattern %q", p, text, got, want)
			}
		}
	}
}

// pretokenAlphabet holds what the patterns treat apart: ASCII letters of
// both cases, digits and other numbers (Arabic-Indic, full-width, Roman,
// superscript), every kind of white space, contractions in every case and
// with the long s (which (?i) folds to s), marks, modifier and other
// letters, title case, slashes, emoji and punctuation.
var pretokenAlphabet = []string{
	"a", "z", "A", "Z", "word", "Word", "WORD", "wOrD", "0", "7", "123", "4567", "٣", "３", "Ⅻ", "²",
	" ", "  ", "\t", "\n", "\r", "\r\n", "\v", "\f", "\u00a0", "\u2003", "\u3000", "\u0085", "\u2028",
	"'", "'s", "'S", "'t", "'re", "'RE", "'Ve", "'m", "'ll", "'lL", "'d", "'ſ", "'x", "’s",
	"\u0301", "\u0903", "ʰ", "日本", "א", "ǅ", "é", "É", "ß", "/", "//", "🎉", ".", ",", "!?", "-", "_", "(", "$", "\x00",
}

func randomPretokenText(rng *rand.Rand) string {
	var sb strings.Builder
	for range rng.IntN(14) + 1 {
		sb.WriteString(pretokenAlphabet[rng.IntN(len(pretokenAlphabet))])
	}
	return sb.String()
}

// TestPretokenizersMatchPatterns compares the hand-written pre-tokenizers
// with their patterns run by regexp2 on random texts of the characters
// where they differ, and on the Chroma corpora where they are present.
func TestPretokenizersMatchPatterns(t *testing.T) {
	res := compiledPatterns(t)
	rng := rand.New(rand.NewPCG(7, 8))
	n, corpora := 20000, chromaTexts(t)
	if raceEnabled {
		n, corpora = 1000, nil
	}
	for range n {
		comparePieces(t, res, randomPretokenText(rng))
	}
	for _, text := range corpora {
		if len(text) > 200<<10 {
			text = text[:200<<10]
			for !utf8.ValidString(text) {
				text = text[:len(text)-1]
			}
		}
		comparePieces(t, res, text)
	}
}

func FuzzPretokenizers(f *testing.F) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 20 {
		f.Add(randomPretokenText(rng))
	}
	res := compiledPatterns(f)
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		comparePieces(t, res, s)
	})
}

// chromaTexts returns the Chroma corpora of ../shared, or none (saying
// so) where they are absent.
func chromaTexts(t *testing.T) []string {
	var out []string
	for _, name := range []string{"wikitexts.md", "state_of_the_union.md", "chatlogs.md"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "shared", "eval", "chroma", name))
		if err != nil {
			t.Logf("the Chroma corpora are not here (%v): random texts only", err)
			return nil
		}
		out = append(out, string(b))
	}
	return out
}
