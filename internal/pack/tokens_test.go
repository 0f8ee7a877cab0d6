package pack

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/gochunk/gochunk/tokenize"
)

// The size of a run of token pieces that mergeRun computes from cut
// points equals counting its text, on text with spaces, tabs, line
// breaks, punctuation, digits and multi-byte characters.
func TestTokenCountMatchesCount(t *testing.T) {
	tok, err := tokenize.New("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	words := []string{"token", "ization", " ", "  ", "\t", "\n", "\n\n", "unbelievable", "42", "3.14", "!", "?!", "é", "日本語", "🎉", "don't", "—", "(x)", "www.example.com", "  \n "}
	var sb strings.Builder
	for sb.Len() < 20000 {
		sb.WriteString(words[rng.IntN(len(words))])
	}
	// And runs of letters of up to 3,000 bytes (accented ones among them)
	// between a space, a digit or punctuation: windows with no cut.
	var lb strings.Builder
	letters := []rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJéàöß")
	for lb.Len() < 60000 {
		for range 1 + rng.IntN(3000) {
			lb.WriteRune(letters[rng.IntN(len(letters))])
		}
		lb.WriteString([]string{" ", "7", ".", " x"}[rng.IntN(4)])
	}
	for _, text := range []string{sb.String(), lb.String()} {
		e := &Engine{Text: text, Counter: tok, Limit: 1 << 20}
		e.Init()
		e.cutter = tok.(tokenize.Cutter)
		r, err := e.unitRun(tok.(tokenize.Encoder), 0, len(text))
		if err != nil {
			t.Fatal(err)
		}
		for range 3000 {
			i := rng.IntN(r.len())
			k := min(r.len()-1, i+rng.IntN(400))
			if got, want := e.runCount(r, i, k, &runScan{}), e.Count(r.start(i), r.ends[k]); got != want {
				t.Fatalf("pieces %d..%d (%q): %d tokens, counting says %d", i, k, text[r.start(i):r.ends[k]], got, want)
			}
		}
		// The counts of a window's bisection share what their scans
		// learnt: from one piece, to ends in any order.
		for range 300 {
			i := rng.IntN(r.len())
			var scan runScan
			for range 12 {
				k := min(r.len()-1, i+rng.IntN(400))
				if got, want := e.runCount(r, i, k, &scan), e.Count(r.start(i), r.ends[k]); got != want {
					t.Fatalf("pieces %d..%d after others from %d (%.80q…): %d tokens, counting says %d", i, k, i, text[r.start(i):r.ends[k]], got, want)
				}
			}
		}
	}
}

// Pieces inside one run of letters are sized from their own tokens,
// without counting their text, from the text's first piece on and from a
// piece inside the run, however the bisection's counts come.
func TestRunCountInsideLetters(t *testing.T) {
	tok, err := tokenize.NewTikToken("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	b := make([]byte, 30000)
	for i := range b {
		b[i] = byte('a' + rng.IntN(26))
	}
	text := string(b) + " and the end"
	counter := &countCalls{TikToken: tok}
	e := &Engine{Text: text, Counter: counter, Limit: 1 << 20}
	e.Init()
	e.cutter = tok
	r, err := e.unitRun(tok, 0, len(text))
	if err != nil {
		t.Fatal(err)
	}
	last := sort.Search(r.len(), func(k int) bool { return r.ends[k] > len(b) }) - 1 // the run's last piece
	for _, i := range []int{0, 1, last / 2} {
		var scan runScan
		for _, k := range []int{last, i + (last-i)/2, i + 1, last - 3, i + (last-i)/4} {
			if got, want := e.runCount(r, i, k, &scan), r.cum[k+1]-r.cum[i]; got != want {
				t.Fatalf("pieces %d..%d: %d tokens, want %d", i, k, got, want)
			}
		}
	}
	if len(counter.texts) != 0 {
		t.Errorf("%d counts of text inside the run of letters", len(counter.texts))
	}
}

// listedOnly is a tiktoken counter without CountSegments: the engine then
// lists every token of a window.
type listedOnly struct{ t *tokenize.TikToken }

func (l listedOnly) Count(text string) int { return l.t.Count(text) }
func (l listedOnly) Name() string          { return l.t.Name() }
func (l listedOnly) AppendTokenEnds(dst []int, text string) []int {
	return l.t.AppendTokenEnds(dst, text)
}
func (l listedOnly) Cut(text string, from int) int { return l.t.Cut(text, from) }
func (l listedOnly) InsidePiece(s string) bool     { return l.t.InsidePiece(s) }

// TestCountedWindowsMatchListed compares the windows of the token level
// when most of each is counted segment by segment (splitTokensCounted)
// with those of merging every token listed, on text with the characters
// that make tokens join (combining marks, CR LF, emoji sequences, a
// prepended mark before a space), digits, long words and runs of space,
// at sizes and overlaps where the merge's exact counts and overlap walk
// reach back from a window's end.
func TestCountedWindowsMatchListed(t *testing.T) {
	tk, err := tokenize.NewTikToken("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	atoms := []string{" the", " chunk", "ing", ",", ".", " ", "  ", "\n", "\r\n", "\n\n", "\t", "e\u0301", " a\u0301\u0302\u0303",
		"👩\u200d💻", "🇫🇷", "\u0600 ", " 日本語", "42", " 3.14", "x1y2", "—", " supercalifragilistic", "'s", "  \n "}
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := range 600 {
		var sb strings.Builder
		for n := rng.IntN(6000) + 500; sb.Len() < n; {
			sb.WriteString(atoms[rng.IntN(len(atoms))])
		}
		text := sb.String()
		limit := []int{128, 160, 200, 512}[rng.IntN(4)]
		overlap := []int{0, 0, 10, 40}[rng.IntN(4)]
		// With no margin the merge looks into the counted piece often,
		// and the windows are merged again.
		checkCounted(t, tk, text, limit, overlap, []int{0, 1, countedMargin}[trial%3])
	}
}

// checkCounted compares the windows of text with most of each counted
// (tk) and with every token listed (listedOnly), at a margin.
func checkCounted(t *testing.T, tk *tokenize.TikToken, text string, limit, overlap, margin int) {
	t.Helper()
	var got, want []Range
	var gotErr, wantErr error
	for k, c := range []tokenize.Counter{tk, listedOnly{tk}} {
		e := &Engine{Text: text, Counter: c, Limit: limit, Overlap: overlap, SkipWords: true, margin: &margin}
		e.Init()
		out, err := e.Split(context.Background(), 0, len(text), nil)
		if k == 0 {
			got, gotErr = out, err
		} else {
			want, wantErr = out, err
		}
	}
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) { // a cluster over the limit is the same error both ways
		t.Fatalf("%.80q… (limit %d, overlap %d, margin %d): counted windows: %v, listed: %v", text, limit, overlap, margin, gotErr, wantErr)
	}
	if gotErr == nil && !slices.Equal(got, want) {
		t.Fatalf("%.80q… (limit %d, overlap %d, margin %d): counted windows %v, listed %v", text, limit, overlap, margin, got, want)
	}
}

// FuzzCountedWindows is TestCountedWindowsMatchListed on random text,
// repeated to hold several windows of 128 tokens or more.
func FuzzCountedWindows(f *testing.F) {
	for _, s := range []string{"The chunk, e\u0301 and 👩\u200d💻 42x1y2\r\n", "\u0600 a\u0301\u0302 🇫🇷🇫 — 'll\n\n  \t", "word "} {
		f.Add(s, uint8(0), uint8(0), uint8(0))
	}
	tk, err := tokenize.NewTikToken("cl100k_base")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string, size, ov, margin uint8) {
		if !utf8.ValidString(s) || s == "" || len(s) > 2000 {
			return
		}
		text := strings.Repeat(s, 4000/len(s)+1)
		overlap := int(ov) % 64
		checkCounted(t, tk, text, countedLimit+overlap+int(size), overlap, []int{0, 1, countedMargin}[margin%3])
	})
}

// countCalls is a tiktoken counter that records the texts Count is asked
// for (the blocks warmAhead counts).
type countCalls struct {
	*tokenize.TikToken
	mu    sync.Mutex
	texts []string
}

func (c *countCalls) Count(text string) int {
	c.mu.Lock()
	c.texts = append(c.texts, text)
	c.mu.Unlock()
	return c.TikToken.Count(text)
}

// warmAhead counts every block after the first once, the blocks being
// those blockCuts makes, while the merge stays at the start; it counts
// none under a cancelled context.
func TestWarmAheadCountsBlocks(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	tk, err := tokenize.NewTikToken("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("The chunk of words, e\u0301 and 42.\n", 40000) // 1.3 MB: 5 blocks
	cuts := blockCuts(tk, text, 0, len(text))
	if len(cuts) < 4 {
		t.Fatalf("%d cuts: the text should make several blocks", len(cuts))
	}
	var want []string
	for k := 1; k+1 < len(cuts); k++ {
		want = append(want, text[cuts[k]:cuts[k+1]])
	}
	slices.Sort(want)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, ctx := range []context.Context{context.Background(), cancelled} {
		c := &countCalls{TikToken: tk}
		e := &Engine{Text: text, Counter: c}
		e.warmAhead(ctx, func() []int { return cuts })()
		if e.progress != nil {
			t.Error("progress left set after the workers stopped")
		}
		slices.Sort(c.texts)
		if ctx.Err() != nil {
			if len(c.texts) != 0 {
				t.Errorf("cancelled: %d blocks counted, want none", len(c.texts))
			}
		} else if !slices.Equal(c.texts, want) {
			t.Errorf("%d blocks counted, want the %d after the first", len(c.texts), len(want))
		}
	}
}
