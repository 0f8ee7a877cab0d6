package split

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunktest"
	"github.com/gochunk/gochunk/tokenize"
)

func adaptive(t testing.TB, size int, counter tokenize.Counter) *Adaptive {
	t.Helper()
	cfg := DefaultAdaptiveConfig()
	cfg.Size = size
	a, err := NewAdaptive(cfg, counter)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Two paragraphs of three sentences: greedy packing (the sentence chunker)
// fills its first chunk across the paragraph break; adaptive ends its
// chunks at the break.
func TestAdaptiveParagraphs(t *testing.T) {
	p1 := "The cat sat on a mat. It purred all day. Then it slept well."
	p2 := "Markets fell sharply. Rates rose again. Bonds were bought."
	text := p1 + "\n\n" + p2
	got := texts(mustChunk(t, adaptive(t, 100, nil), text))
	if len(got) != 2 || got[0] != p1 || got[1] != p2 {
		t.Errorf("adaptive: %q", got)
	}
	sc := DefaultSentenceConfig()
	sc.Size = Size{Size: 100}
	s, _ := NewSentence(sc, nil)
	if greedy := texts(mustChunk(t, s, text)); len(greedy) == 2 && greedy[0] == p1 {
		t.Errorf("the sentence chunker already cuts at the paragraph (%q): the case tests nothing", greedy)
	}
}

// Ten equal sentences on one line, size 45: greedy packing gives 4, 4 and
// 2 sentences; adaptive spreads them evenly.
func TestAdaptiveBalanced(t *testing.T) {
	text := strings.TrimSpace(strings.Repeat("Abcdefgh. ", 10))
	chunks := mustChunk(t, adaptive(t, 45, nil), text)
	lo, hi := math.MaxInt, 0
	for _, c := range chunks {
		lo, hi = min(lo, c.TokenCount), max(hi, c.TokenCount)
	}
	if hi > 45 || hi-lo > 11 {
		t.Errorf("sizes from %d to %d: %q", lo, hi, texts(chunks))
	}
}

// A sentence over the size is cut into parts that fit. Text of many tiny
// sentences ("ok." lines) is searched in units of several lines, and its
// chunks still come near the target: 200,000 characters at size 8,192
// (target 4,096) make between 25 and 49 chunks.
func TestAdaptiveLongAndTiny(t *testing.T) {
	text := "Short one. " + strings.Repeat("x", 300) + ". End."
	chunktest.Check(t, adaptive(t, 64, nil), text, chunktest.Options{Limit: 64})
	tiny := strings.Repeat("ok.\n", 50_000)
	chunks := mustChunk(t, adaptive(t, 8192, nil), tiny)
	if len(chunks) < 25 || len(chunks) > 49 {
		t.Errorf("%d chunks", len(chunks))
	}
	chunktest.Check(t, adaptive(t, 8192, nil), tiny, chunktest.Options{Limit: 8192})
	chunktest.Check(t, adaptive(t, 1_000_000, nil), strings.Repeat("Yes. ", 50_000), chunktest.Options{Limit: 1_000_000})
}

func TestAdaptiveBadConfig(t *testing.T) {
	for _, cfg := range []AdaptiveConfig{{Size: 0, Target: 0.5}, {Size: 10, Target: 0}, {Size: 10, Target: 1.5}, {Size: 10, Target: math.NaN()},
		{Size: 10, Target: 0.5, Density: -1}, {Size: 10, Target: 0.5, Density: 11}, {Size: 10, Target: 0.5, Density: math.NaN()},
		{Size: 10, Target: 0.5, Cohesion: -0.1}, {Size: 10, Target: 0.5, Cohesion: 10.5}, {Size: 10, Target: 0.5, Cohesion: math.Inf(1)}} {
		if _, err := NewAdaptive(cfg, nil); !errors.Is(err, gochunk.ErrConfig) {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
	if _, err := NewAdaptive(AdaptiveConfig{Size: 10, Target: 1}, nil); err != nil {
		t.Error(err)
	}
}

// The golden file pins adaptive's output on the sample document, in
// cl100k_base tokens.
func TestAdaptiveGolden(t *testing.T) {
	cl100k, err := tokenize.NewTikToken("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "adaptive", mustChunk(t, adaptive(t, 60, cl100k), sample(t)))
}

// Prose of long sentences, then a list of short lines: with a density
// weight, chunks shrink over the prose and grow over the list; without
// one, both get chunks near the target.
func TestAdaptiveDensity(t *testing.T) {
	var b strings.Builder
	for i := range 24 {
		fmt.Fprintf(&b, "Sentence %02d of the prose holds a statement long enough to carry a fact, a date and a place in it. ", i)
	}
	prose := b.Len() - 1
	b.WriteString("\n\n")
	for i := range 120 {
		fmt.Fprintf(&b, "- list item %03d\n", i)
	}
	text := strings.TrimSpace(b.String())
	mean := func(density float64) (proseSize, listSize float64) {
		cfg := AdaptiveConfig{Size: 800, Target: 0.5, Density: density}
		a, err := NewAdaptive(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		chunks := mustChunk(t, a, text)
		chunktest.Check(t, a, text, chunktest.Options{Limit: 800})
		var n [2]int
		var sum [2]float64
		for _, c := range chunks {
			k := 0
			if c.Start() >= prose {
				k = 1
			}
			n[k]++
			sum[k] += float64(c.TokenCount)
		}
		if n[0] == 0 || n[1] == 0 {
			t.Fatalf("density %v: a chunk holds both prose and list: %q", density, texts(chunks))
		}
		return sum[0] / float64(n[0]), sum[1] / float64(n[1])
	}
	p0, l0 := mean(0)
	p1, l1 := mean(1.5)
	t.Logf("mean chunk size without density: prose %.0f, list %.0f; with 1.5: prose %.0f, list %.0f", p0, l0, p1, l1)
	if l0 > 1.25*p0 || p0 > 1.25*l0 {
		t.Errorf("without density, prose chunks of %.0f and list chunks of %.0f: not near one target", p0, l0)
	}
	if l1 < 1.5*p1 {
		t.Errorf("with density, list chunks of %.0f against prose chunks of %.0f: the list should get larger chunks", l1, p1)
	}
}

// One line of six sentences on a cat and four on bonds: balancing alone
// cuts it in the middle of the cat's story; with cohesion the cut moves to
// where the topic changes.
func TestAdaptiveCohesion(t *testing.T) {
	cat := []string{"The cat chased the mouse into the old barn.", "In the barn the mouse hid under the hay bales.",
		"The cat waited by the hay bales for the mouse.", "At dawn the cat left the barn without the mouse.",
		"The mouse came out of the hay and ran off.", "The cat slept all day in the barn by the hay."}
	bonds := []string{"Bond markets fell as the central bank raised rates.", "The bank said its rates would stay high for long.",
		"Traders sold bonds before the bank chair spoke.", "Higher rates hurt bond prices again this week."}
	text := strings.Join(cat, " ") + " " + strings.Join(bonds, " ")
	shift := len(strings.Join(cat, " "))
	cut := func(weight float64) int {
		a, err := NewAdaptive(AdaptiveConfig{Size: len(text), Target: 0.5, Cohesion: weight}, nil)
		if err != nil {
			t.Fatal(err)
		}
		chunks := mustChunk(t, a, text)
		chunktest.Check(t, a, text, chunktest.Options{Limit: len(text)})
		if len(chunks) != 2 {
			t.Fatalf("cohesion %v: %d chunks: %q", weight, len(chunks), texts(chunks))
		}
		return chunks[0].End()
	}
	if got := cut(0); got == shift {
		t.Errorf("without cohesion the cut is already at the topic shift (%d): the case tests nothing", got)
	}
	if got := cut(0.6); got != shift {
		t.Errorf("with cohesion the first chunk ends at %d, not at the topic shift (%d)", got, shift)
	}
}
