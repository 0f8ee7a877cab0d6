package mst

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunktest"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/tokenize"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// Hand-computed with the reference's defaults.
func TestDistance(t *testing.T) {
	c := DefaultConfig()
	tests := []struct {
		name   string
		a, b   int
		cos    float64
		la, lb int
		want   float64
	}{
		// Long pieces, neighbours: 0.5·1.2 + (e^0.0275 − 1)·1.1.
		{"long neighbours", 0, 1, 0.5, 200, 200, 0.6 + (math.Exp(0.0275)-1)*1.1},
		// Heading (3 tokens, counted as 5) then a long paragraph: only the
		// heading case, −0.85·e^(−5/80)·0.735.
		{"heading then paragraph", 4, 5, 0.5, 3, 100, 0.6 + (math.Exp(0.0275)-1)*1.1 - 0.85*math.Exp(-5.0/80)*0.735},
		// Two short list items two apart: only the bullet case,
		// −0.275·e^(−min(20,30)/80)·0.735.
		{"bullets two apart", 7, 9, 0.2, 20, 30, 0.2*1.2 + (math.Exp(0.055)-1)*1.1 - 0.275*math.Exp(-20.0/80)*0.735},
		// Both cases at once: short neighbours.
		{"short neighbours", 0, 1, 0.3, 10, 40, 0.3*1.2 + (math.Exp(0.0275)-1)*1.1 - (0.275*math.Exp(-10.0/80)+0.85*math.Exp(-10.0/80))*0.735},
		// Far apart: penalty only, e^(0.0275·5) − 1.
		{"far", 0, 5, 0.1, 10, 10, 0.1*1.2 + (math.Exp(0.1375)-1)*1.1},
	}
	for _, tc := range tests {
		if got := c.Distance(tc.a, tc.b, tc.cos, tc.la, tc.lb); !near(got, tc.want) {
			t.Errorf("%s: %.6f, want %.6f", tc.name, got, tc.want)
		}
	}
	// A worked number: cosine 0.5, a heading of 3 tokens before a long
	// paragraph = 0.6 + 0.030669 − 0.586898 = 0.043771.
	if got := c.Distance(0, 1, 0.5, 3, 100); math.Abs(got-0.043771) > 1e-6 {
		t.Errorf("worked example %.6f", got)
	}
}

func TestMSTAndCut(t *testing.T) {
	// 0-1 (0.1), 1-2 (0.9), 2-3 (0.2), 0-2 (0.5), 1-3 (0.8): the MST is
	// {0-1, 2-3, 0-2}; cut at 0.3 leaves {0,1} and {2,3}.
	edges := []Edge{{0, 1, 0.1}, {1, 2, 0.9}, {2, 3, 0.2}, {0, 2, 0.5}, {1, 3, 0.8}}
	roots, tree := Components(4, edges, 0.3)
	if len(tree) != 3 || tree[0] != (Edge{0, 1, 0.1}) || tree[1] != (Edge{2, 3, 0.2}) || tree[2] != (Edge{0, 2, 0.5}) {
		t.Errorf("tree %v", tree)
	}
	if roots[0] != roots[1] || roots[2] != roots[3] || roots[0] == roots[2] {
		t.Errorf("components %v", roots)
	}
	roots, _ = Components(4, edges, 0.5)
	if roots[0] != roots[3] {
		t.Errorf("lambda 0.5 must join all: %v", roots)
	}
}

func TestLambda(t *testing.T) {
	c := DefaultConfig()
	edges := []Edge{{0, 1, 0.4}, {1, 2, 0.6}}
	if got := c.LambdaFor(edges); !near(got, math.Pow(0.5, 2.26)) {
		t.Errorf("adaptive lambda %v", got)
	}
	c.Lambda = 0.47
	if c.LambdaFor(edges) != 0.47 {
		t.Error("fixed lambda ignored")
	}
	c.Lambda = 0
	if got := c.LambdaFor([]Edge{{0, 1, -0.2}, {1, 2, 0.1}}); got != 0 {
		t.Errorf("lambda from a negative mean: %v", got)
	}
}

// The heading joins the paragraph after it, not the one before: the
// heading reward looks at the earlier piece of a pair only, so a short
// heading after a long piece gets no reward towards it.
func TestHeadingJoinsNextParagraph(t *testing.T) {
	long := strings.Repeat("Ocean tides ebb and flow as the moon pulls water across coastlines ", 8) + "every day.\n\n" // over 80 words
	text := long +
		"# Volcanoes\n\n" +
		"Volcanoes erupt when magma rises through cracks in the crust and spills out as lava over the land around them."
	c, err := New(Config{MaxTokens: 400, MaxPieceTokens: 400, Gamma: 0.0275, MinLen: 5, ShortThreshold: 80, LongTermWindow: 2, ImmediateWind: 1,
		VicinityReward: 0.275, HeadingReward: 0.85, SemanticWeight: 1.2, LocalityWeight: 1.1, VicinityWeight: 0.735, DistanceThresh: 6, Lambda: 0.9}, tokenize.Words{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	var heading *gochunk.Chunk
	for i := range chunks {
		if strings.Contains(chunks[i].Text, "# Volcanoes") {
			heading = &chunks[i]
		}
	}
	if heading == nil || !strings.Contains(heading.Text, "magma") || strings.Contains(heading.Text, "tides") {
		t.Fatalf("the heading did not join the following paragraph only: %q", texts(chunks))
	}
}

// Short list items far apart semantically still cluster (the bullet case).
func TestBulletList(t *testing.T) {
	text := "Shopping list:\n\n- apples\n- bread\n- candles\n- detergent\n\nAfterwards we drove home through heavy rain and arrived late in the evening, tired but happy."
	c, _ := New(DefaultConfig(), tokenize.Words{}, nil)
	chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range chunks {
		if strings.Contains(ch.Text, "- apples") {
			for _, item := range []string{"bread", "candles", "detergent"} {
				if !strings.Contains(ch.Text, item) {
					t.Errorf("bullet %q not with the others: %q", item, texts(chunks))
				}
			}
		}
	}
}

func texts(cs []gochunk.Chunk) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Text)
	}
	return out
}

// Pieces that are not adjacent make one multi-span chunk; with contiguous
// each run is its own chunk.
func TestMultiSpanAndContiguous(t *testing.T) {
	text := "# Cats\n\nCats purr and sleep all day long.\n\n# Dogs\n\nDogs bark at the mailman.\n\n# Cats again\n\nCats purr and sleep all day long."
	// Pieces of more than short_threshold (80) runes: no vicinity reward,
	// so semantic distance and position decide.
	cats := "Cats purr and sleep all day long in the warm sun on the windowsill, dreaming of mice."
	dogs := "Dogs bark loudly at the mailman every single morning and then chase their own tails."
	text = cats + "\n\n" + dogs + "\n\n" + cats
	cfg := DefaultConfig()
	cfg.Lambda = 0.5
	c, _ := New(cfg, tokenize.Runes{}, nil)
	chunks := chunktest.Check(t, c, text, chunktest.Options{Limit: cfg.MaxTokens})
	multi := false
	for _, ch := range chunks {
		if len(ch.Spans) > 1 {
			multi = true
			for i := 1; i < len(ch.Spans); i++ {
				if ch.Spans[i].Start < ch.Spans[i-1].End {
					t.Error("spans out of order")
				}
			}
		}
	}
	if !multi {
		t.Logf("chunks %q", texts(chunks))
		t.Error("no multi-span chunk for repeated paragraphs")
	}
	cfg.Contiguous = true
	cc, _ := New(cfg, tokenize.Runes{}, nil)
	for _, ch := range chunktest.Check(t, cc, text, chunktest.Options{Limit: cfg.MaxTokens}) {
		if len(ch.Spans) != 1 {
			t.Errorf("contiguous chunk with %d spans", len(ch.Spans))
		}
	}
}

func TestContract(t *testing.T) {
	cl100k, _ := tokenize.NewTikToken("cl100k_base")
	texts := []string{
		"one",
		"# Title\n\n- a\n- b\n\nParagraph one. Paragraph two! Three?\n\n```\ncode\n```\n\n| a | b |\n",
		strings.Repeat("Same sentence again. ", 50),
		strings.Repeat("x", 2000),
		"日本語の文です。" + strings.Repeat("中文句子！", 40),
		"  \n\n leading and trailing \n\n ",
	}
	for _, counter := range []tokenize.Counter{tokenize.Runes{}, cl100k} {
		for _, size := range []int{8, 60, 400} {
			for _, contiguous := range []bool{false, true} {
				cfg := DefaultConfig()
				cfg.MaxTokens, cfg.Contiguous = size, contiguous
				c, err := New(cfg, counter, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Run(fmt.Sprintf("%s/%d/%v", counter.Name(), size, contiguous), func(t *testing.T) {
					for _, text := range texts {
						chunktest.Check(t, c, text, chunktest.Options{Counter: counter, Limit: size})
					}
				})
			}
		}
	}
	c, _ := New(DefaultConfig(), nil, nil)
	chunktest.CheckBadInput(t, c)
}

func TestConfigErrors(t *testing.T) {
	for _, mod := range []func(*Config){
		func(c *Config) { c.MaxTokens = 0 },
		func(c *Config) { c.DistanceThresh = 1 },
		func(c *Config) { c.Lambda = -1 },
		func(c *Config) { c.Gamma = math.NaN() },
		func(c *Config) { c.ShortThreshold = 0 },
	} {
		cfg := DefaultConfig()
		mod(&cfg)
		if _, err := New(cfg, nil, nil); !errors.Is(err, gochunk.ErrConfig) {
			t.Errorf("%+v: err %v", cfg, err)
		}
	}
}

// Zero vectors (empty embeddings) and identical pieces.
type constEmbedder struct{ v []float32 }

func (c constEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = append([]float32(nil), c.v...)
	}
	return out, nil
}
func (c constEmbedder) Dim() int        { return len(c.v) }
func (c constEmbedder) MaxTokens() int  { return 0 }
func (c constEmbedder) ModelID() string { return "const" }

func TestDegenerateEmbeddings(t *testing.T) {
	text := strings.Repeat("A sentence here. ", 30)
	for _, v := range [][]float32{{0, 0, 0}, {1, 1, 1}} {
		c, _ := New(DefaultConfig(), nil, constEmbedder{v})
		chunktest.Check(t, c, text, chunktest.Options{Limit: 400})
	}
}

func TestPieces(t *testing.T) {
	text := "# Head\n\nFirst sentence. Second one!\n- item one\n- item two\n\n```go\nx := 1\n```\n| a | b |"
	e := &pack.Engine{Text: text, Counter: tokenize.Runes{}, Limit: 100}
	e.Init()
	ps, err := Pieces(context.Background(), e, 100, SegmentSentences)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, text[p.Start:p.End])
	}
	want := []string{"# Head", "First sentence.", "Second one!", "- item one", "- item two", "```go\nx := 1\n```", "| a | b |"}
	if !slices.Equal(got, want) {
		t.Errorf("pieces %q\nwant %q", got, want)
	}
}

// The seed's segmenter keeps lines of up to 800 characters whole, cuts
// longer ones into sentences, and groups table rows 20 at a time.
func TestPiecesLines(t *testing.T) {
	short := strings.Repeat("word ", 150) + "end."                              // 754 characters
	long := strings.Repeat("A sentence of ten words goes on and on here. ", 20) // 900 characters
	var table strings.Builder
	for i := range 25 {
		fmt.Fprintf(&table, "| row %d | x |\n", i)
	}
	text := "# Head\n\n" + short + "\n" + long + "\n\n" + table.String()
	e := &pack.Engine{Text: text, Counter: tokenize.Runes{}, Limit: 1000}
	e.Init()
	ps, err := Pieces(context.Background(), e, 1000, SegmentLines)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, text[p.Start:p.End])
	}
	if len(got) != 1+1+20+2 {
		t.Fatalf("%d pieces, want 24 (heading, short line, 20 sentences, 2 table runs)", len(got))
	}
	if got[1] != short || !strings.HasPrefix(got[2], "A sentence") || strings.Count(got[22], "\n") != 19 || strings.Count(got[23], "|") != 15 {
		t.Errorf("pieces %q", got)
	}
}

func FuzzMST(f *testing.F) {
	for _, s := range []string{"# A\n\nb. c.\n- d\n- e", "x", "Same. Same. Same."} {
		f.Add(s, uint8(30), false)
	}
	f.Fuzz(func(t *testing.T, text string, size uint8, contiguous bool) {
		if !utf8.ValidString(text) {
			return
		}
		cfg := DefaultConfig()
		cfg.MaxTokens, cfg.Contiguous = int(size%200)+4, contiguous
		c, err := New(cfg, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		chunktest.Check(t, c, text, chunktest.Options{Limit: cfg.MaxTokens})
	})
}

// countingRunes is a rune counter that adds up the bytes it is asked to
// count: the work of sizing chunks, read without a clock. Like a BPE
// tokenizer's, its counts see white space.
type countingRunes struct {
	tokenize.Runes
	bytes *atomic.Int64
}

func (c countingRunes) Count(text string) int {
	c.bytes.Add(int64(len(text)))
	return c.Runes.Count(text)
}

// Deep structure costs linear work: on a nested list whose lines are
// mostly indentation (which the pieces' sizes do not see), packing a
// cluster into chunks measures each chunk a logarithmic number of times,
// not once per piece taken back (38 s at 800 levels, 300 s at 2,500).
func TestDeepListLinear(t *testing.T) {
	for _, levels := range []int{200, 800} {
		var b strings.Builder
		for i := range levels {
			fmt.Fprintf(&b, "%s- item %d of the list\n", strings.Repeat(" ", 2*i), i)
		}
		var n atomic.Int64
		cfg := DefaultConfig()
		cfg.MaxTokens = 2000
		c, err := New(cfg, countingRunes{bytes: &n}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Chunk(context.Background(), gochunk.Document{Text: b.String()}); err != nil {
			t.Fatal(err)
		}
		per := float64(n.Load()) / float64(b.Len())
		t.Logf("%d levels: %.1f bytes counted per byte", levels, per)
		if per > 12 {
			t.Errorf("%d levels: counted %.0f bytes per byte of input, want a bounded number", levels, per)
		}
	}
}

// sectionText builds a markdown document of sections alternating finance
// and biomedicine, each paragraph one line of the given sentences, with
// headings of one to nine words.
func sectionText(sentences int) (text string, headings []string) {
	finance := []string{"The company reported quarterly revenue of %d million dollars, up %d percent from the prior year.",
		"Operating margins widened as the firm cut costs in its retail banking division by %d percent.",
		"The board approved a dividend of %d dollars per share, payable to shareholders in %d weeks.",
		"Cash flow from operations totaled %d million dollars, funding %d capital projects and debt repayment."}
	bio := []string{"Patients receiving the monoclonal antibody showed a %d percent reduction in tumor volume after %d weeks.",
		"The randomized trial enrolled %d adults with chronic obstructive pulmonary disease across %d sites.",
		"Plasma concentrations of the drug peaked %d hours after oral administration in %d volunteers.",
		"Gene expression profiling revealed %d upregulated cytokines in %d treated mice."}
	titles := []string{"Results", "Clinical Trial Outcomes", "Capital Allocation, Dividends and Buybacks",
		"Molecular Mechanisms of the Kinase Inhibitor in Cultured Cells", "Balance Sheet", "Safety Profile of the Treatment"}
	var b strings.Builder
	for i, title := range titles {
		pool := finance
		if i%2 == 1 {
			pool = bio
		}
		h := strings.Repeat("#", 2+i%2) + " " + title
		headings = append(headings, h)
		b.WriteString(h + "\n\n")
		for k := range sentences + 3*(i%3) {
			if k > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, pool[(k+i)%len(pool)], 10+7*k+i, 2+k%9)
		}
		b.WriteString("\n\n")
	}
	return b.String(), headings
}

// The reference's heading-paragraph case: a heading stays in the chunk of
// the paragraph that follows it, at every size from above a section's
// down to little more than a heading with the first sentence after it,
// with paragraphs cut into lines whole (short) or into sentences (long).
func TestHeadingStaysWithParagraph(t *testing.T) {
	cl, err := tokenize.New("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	for _, sentences := range []int{8, 16} {
		text, headings := sectionText(sentences)
		for size := 420; size >= 50; size -= 10 {
			cfg := DefaultConfig()
			cfg.MaxTokens = size
			c, err := New(cfg, cl, nil)
			if err != nil {
				t.Fatal(err)
			}
			chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
			if err != nil {
				t.Fatal(err)
			}
			owner := func(off int) int {
				for i, ch := range chunks {
					for _, s := range ch.Spans {
						if s.Start <= off && off < s.End {
							return i
						}
					}
					if len(ch.Spans) == 0 && ch.Start() <= off && off < ch.End() {
						return i
					}
				}
				return -1
			}
			for _, h := range headings {
				at := strings.Index(text, h)
				para := at + len(h) + 2
				if a, b := owner(at), owner(para); a != b || a < 0 {
					t.Errorf("%d sentences, size %d: %q is in chunk %d, its paragraph starts chunk %d", sentences, size, h, a, b)
				}
			}
		}
	}
}
