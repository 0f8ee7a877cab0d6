package tokenize

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"
)

// segmentEndByRunes is segmentEnd's definition, character by character:
// the first position after i of white space other than a line break
// that follows a character that is not white space.
func segmentEndByRunes(text string, i int) int {
	prevNonSpace := false
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		space := unicode.IsSpace(r)
		if space && prevNonSpace && r != '\n' && r != '\r' {
			return i
		}
		prevNonSpace = !space
		i += size
	}
	return i
}

// TestSegmentEndMatchesDefinition compares the eight-bytes-at-a-time scan
// with the definition on random texts of the characters where it could
// go wrong: every kind of ASCII white space, control characters next to
// them, the bytes around the ones it tests (0x08, 0x0E, 0x1F, 0x21),
// non-ASCII white space and letters, at every alignment.
func TestSegmentEndMatchesDefinition(t *testing.T) {
	alphabet := []string{" ", "\t", "\n", "\r", "\v", "\f", "\x00", "\x08", "\x0e", "\x1f", "!", "a", "Z", "~", "\x7f",
		"\u00a0", "\u0085", "\u2003", "\u3000", "é", "日", "🎉", "ab", "word", "  "}
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 20000 {
		var sb strings.Builder
		for range rng.IntN(40) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		text := sb.String()
		for i := 0; i < len(text); i = segmentEndByRunes(text, i) {
			if got, want := segmentEnd(text, i), segmentEndByRunes(text, i); got != want {
				t.Fatalf("trial %d: segmentEnd(%q, %d) = %d, want %d", trial, text, i, got, want)
			}
		}
	}
}

func FuzzSegmentEnd(f *testing.F) {
	for _, s := range []string{"hello world", "a  \n b\t\tc", "x\u00a0y z", "12345678 abcdefgh\r\n ijk"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		for i := 0; i < len(s); i = segmentEndByRunes(s, i) {
			if got, want := segmentEnd(s, i), segmentEndByRunes(s, i); got != want {
				t.Fatalf("segmentEnd(%q, %d) = %d, want %d", s, i, got, want)
			}
		}
	})
}

// TestTikTokenConcurrent counts and lists the tokens of texts on several
// goroutines at once with one counter, from an empty cache: the table
// grows while others read it, and long segments go to the map beside it.
// Every result must equal the same call made alone (go test -race checks
// the reads that take no lock).
func TestTikTokenConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	words := make([]string, 20000) // more distinct segments than the first tables hold
	for i := range words {
		var sb strings.Builder
		for range rng.IntN(12) + 1 {
			sb.WriteByte(byte('a' + rng.IntN(26)))
		}
		if i%50 == 0 {
			sb.WriteString("-and-a-very-long-compound-word") // over inlineKey bytes
		}
		words[i] = sb.String()
	}
	texts := make([]string, 16)
	for k := range texts {
		var sb strings.Builder
		for range 4000 {
			sb.WriteString(words[rng.IntN(len(words))])
			sb.WriteString([]string{" ", "  ", ", ", ".\n", "\t"}[rng.IntN(5)])
		}
		texts[k] = sb.String()
	}
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		alone, err := NewTikToken(enc)
		if err != nil {
			t.Fatal(err)
		}
		wantN := make([]int, len(texts))
		wantEnds := make([][]int, len(texts))
		for k, s := range texts {
			wantN[k], wantEnds[k] = alone.Count(s), alone.AppendTokenEnds(nil, s)
		}
		shared, err := NewTikToken(enc)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]string, len(texts))
		for k, s := range texts {
			wg.Go(func() {
				if k%2 == 0 {
					if n := shared.Count(s); n != wantN[k] {
						errs[k] = fmt.Sprintf("Count = %d, want %d", n, wantN[k])
					}
					return
				}
				if ends := shared.AppendTokenEnds(nil, s); !slices.Equal(ends, wantEnds[k]) {
					errs[k] = fmt.Sprintf("%d token ends, want %d", len(ends), len(wantEnds[k]))
				}
			})
		}
		wg.Wait()
		for k, e := range errs {
			if e != "" {
				t.Errorf("%s, text %d on its goroutine: %s", enc, k, e)
			}
		}
	}
}

// TestSegIterMatchesDefinition compares the segments of segIter, found
// 64 bytes at a time, with the definition, on random texts long enough
// to hold several blocks, made of the characters of
// TestSegmentEndMatchesDefinition, ASCII runs and characters that straddle
// blocks.
func TestSegIterMatchesDefinition(t *testing.T) {
	alphabet := []string{" ", "\t", "\n", "\r", "\v", "\f", "\x00", "\x08", "\x0e", "\x1f", "!", "a", "Z", "~", "\x7f",
		"\u00a0", "\u0085", "\u2003", "\u3000", "é", "日", "🎉", "ab", "word", "  ", " the", " chunking", "\xff",
		"\u1680", "\u2028", "\u0300"}
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 20000 {
		var sb strings.Builder
		ascii := trial%3 == 0 // mostly ASCII: whole blocks by their masks
		for range rng.IntN(200) {
			if ascii && rng.IntN(20) > 0 {
				sb.WriteString(alphabet[10+rng.IntN(5)*0+rng.IntN(2)*16])
				sb.WriteString([]string{" ", "word", "\n", "ab"}[rng.IntN(4)])
				continue
			}
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		checkSegIter(t, sb.String())
	}
}

func checkSegIter(t *testing.T, text string) {
	t.Helper()
	for _, swar := range []bool{false, true} {
		it := newSegIter(text)
		it.s.swar = swar
		for i := 0; i < len(text); {
			got, want := it.next(i), segmentEndByRunes(text, i)
			if got != want {
				t.Fatalf("segment of %q at %d ends at %d, want %d (eight bytes at a time: %v)", text, i, got, want, swar)
			}
			i = want
		}
	}
}

func FuzzSegIter(f *testing.F) {
	f.Add("Hello world!  two  spaces\n\nnew paranaïve café 123456 😀 中文字符 and some more words to pass a block")
	f.Fuzz(func(t *testing.T, s string) { checkSegIter(t, s) })
}

// TestWalkMatchesSegments compares the token ends and counts of
// TikToken, which go through the segments a block at a time and read the
// table in place, with the segments of the definition encoded one by one,
// on texts of words that repeat (table hits) and characters that do not,
// over several blocks.
func TestWalkMatchesSegments(t *testing.T) {
	parts := []string{" the", " chunk", "ing", ",", "\n", "  ", "\t", " 日本語", "é", " 🎉", "\u00a0", "\u3000x",
		" supercalifragilistic", " a-very-long-compound-word-of-more-than-sixty-four-bytes-in-one-segment", "123", "'s", "\r\n"}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		tk, err := NewTikToken(enc)
		if err != nil {
			t.Fatal(err)
		}
		for trial := range 3000 {
			text := randomText(rng, parts, rng.IntN(120))
			var want []int
			for i := 0; i < len(text); {
				j := segmentEndByRunes(text, i)
				off := i
				tk.bpe.tokens(text[i:j], func(n int) {
					off += n
					want = append(want, off)
				})
				i = j
			}
			if got := tk.AppendTokenEnds(nil, text); !slices.Equal(got, want) {
				t.Fatalf("%s trial %d: AppendTokenEnds(%q) = %v, want %v", enc, trial, text, got, want)
			}
			if got := tk.Count(text); got != len(want) {
				t.Fatalf("%s trial %d: Count(%q) = %d, want %d", enc, trial, text, got, len(want))
			}
		}
	}
}

// TestCountSegments checks the runs of whole segments CountSegments
// returns against the segments of the definition: the longest run within
// the budget, and its count.
func TestCountSegments(t *testing.T) {
	parts := []string{" the", " chunk", "ing", ",", "\n", "  ", "\t", " 日本語", " 🎉",
		" supercalifragilistic", " a-very-long-compound-word-of-more-than-sixty-four-bytes-in-one-segment", "123"}
	rng := rand.New(rand.NewPCG(11, 12))
	tk, err := NewTikToken("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	for trial := range 3000 {
		text := randomText(rng, parts, rng.IntN(80))
		budget := rng.IntN(200)
		wantEnd, wantN := 0, 0
		for i := 0; i < len(text); {
			j := segmentEndByRunes(text, i)
			n := tk.Count(text[i:j])
			if wantN+n > budget {
				break
			}
			wantEnd, wantN = j, wantN+n
			i = j
		}
		if end, n := tk.CountSegments(text, budget); end != wantEnd || n != wantN {
			t.Fatalf("trial %d: CountSegments(%q, %d) = %d, %d, want %d, %d", trial, text, budget, end, n, wantEnd, wantN)
		}
	}
}

// TestASCIIMasks compares the masks of asciiMasks with the bytes'
// classes, on blocks of every ASCII byte and some others.
func TestASCIIMasks(t *testing.T) {
	if !hasMasks {
		t.Skip("no vector instructions for asciiMasks here")
	}
	rng := rand.New(rand.NewPCG(19, 20))
	for trial := range 20000 {
		var b [cutBlock]byte
		for i := range b {
			b[i] = byte(rng.IntN(128))
			if trial%4 == 0 && rng.IntN(16) == 0 {
				b[i] = byte(128 + rng.IntN(128))
			}
		}
		space, white, high := asciiMasks(&b[0])
		for i, c := range b {
			bit := uint64(1) << i
			if got, want := high&bit != 0, c >= 0x80; got != want {
				t.Fatalf("trial %d: byte %d (%#x) high %v", trial, i, c, got)
			}
			if c >= 0x80 {
				continue
			}
			if got, want := white&bit != 0, asciiSpace[c]; got != want {
				t.Fatalf("trial %d: byte %d (%#x) white %v", trial, i, c, got)
			}
			if got, want := space&bit != 0, asciiSpace[c] && c != '\n' && c != '\r'; got != want {
				t.Fatalf("trial %d: byte %d (%#x) space %v", trial, i, c, got)
			}
		}
	}
}

// randomText joins n parts drawn at random.
func randomText(rng *rand.Rand, parts []string, n int) string {
	var sb strings.Builder
	for range n {
		sb.WriteString(parts[rng.IntN(len(parts))])
	}
	return sb.String()
}
