package semantic

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/chunktest"
	"github.com/gochunk/gochunk/tokenize"
)

// Three short articles on unrelated subjects.
var articles = []string{
	"Pasta dough needs flour, eggs and a pinch of salt. Knead the pasta dough until it is smooth and elastic. Rest the pasta dough for thirty minutes before rolling it thin. Boil the fresh pasta in salted water until it is al dente. Toss the cooked pasta with butter, sage and grated parmesan. Fresh pasta cooks faster than dried pasta from the shop.",
	"Jupiter is the largest planet of the solar system. The planet Jupiter has a giant red storm larger than Earth. Astronomers count more than ninety moons around the giant planet. Telescopes reveal faint rings around the planet Jupiter too. Saturn, the next giant planet, has brighter rings of ice. Both giant planets are made mostly of hydrogen and helium gas.",
	"The football match ended in a draw after extra time. The striker scored the first football goal of the match with a header. The goalkeeper saved a penalty in the second half of the football match. Football fans sang in the stadium until the match ended. The coach praised the defence after the football match. The football league table now shows both teams level.",
}

func threeArticles() (string, []int) {
	text := strings.Join(articles, "\n\n")
	seams := []int{len(articles[0]) + 2, len(articles[0]) + 2 + len(articles[1]) + 2}
	return text, seams
}

func allChunkers(t testing.TB, size int, counter tokenize.Counter, e gochunk.Embedder) map[string]gochunk.Chunker {
	t.Helper()
	out := map[string]gochunk.Chunker{}
	must := func(name string, c gochunk.Chunker, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = c
	}
	bc := DefaultBreakpointConfig()
	bc.Size = size
	b, err := NewBreakpoint(bc, counter, e)
	must("semantic", b, err)
	ac := ArticleBreakpointConfig()
	ac.Size = size
	a, err := NewBreakpoint(ac, counter, e)
	must("semantic-article", a, err)
	sc := DefaultSavGolConfig()
	sc.Size = size
	s, err := NewSavGol(sc, counter, e)
	must("savgol", s, err)
	hc := DefaultHierarchicalConfig()
	hc.Size = size
	h, err := NewHierarchical(hc, counter, e)
	must("hierarchical", h, err)
	hc.Contiguous = false
	hf, err := NewHierarchical(hc, counter, e)
	must("hierarchical-free", hf, err)
	dc := DefaultDPConfig()
	dc.Size = size
	d, err := NewDP(dc, counter, e)
	must("dp", d, err)
	cc := DefaultClusterConfig()
	cc.Size = size
	cc.MinChunkSize = max(1, min(50, size/4))
	c, err := NewCluster(cc, counter, e)
	must("cluster", c, err)
	return out
}

func contractTexts() []string {
	text, _ := threeArticles()
	return []string{
		text,
		"One sentence only.",
		"Short. Tiny. Few.",
		strings.Repeat("Same sentence again. ", 60), // zero variance
		strings.Repeat("x", 3000),                   // one giant sentence
		"日本語の文です。" + strings.Repeat("中文句子！", 50),
		"  \n\n  Leading space. Trailing space.   \n",
		"nul\x00byte. And more.\x00",
	}
}

func TestContract(t *testing.T) {
	cl100k, err := tokenize.NewTikToken("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	for _, counter := range []tokenize.Counter{tokenize.Runes{}, cl100k} {
		for _, size := range []int{16, 120, 600} {
			for name, c := range allChunkers(t, size, counter, nil) {
				t.Run(fmt.Sprintf("%s/%s/%d", name, counter.Name(), size), func(t *testing.T) {
					for _, text := range contractTexts() {
						chunks := chunktest.Check(t, c, text, chunktest.Options{Counter: counter, Limit: size})
						for _, ch := range chunks {
							if ch.Stats.Sentences < 1 {
								t.Fatalf("chunk without num_sentences")
							}
						}
					}
				})
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	for name, c := range allChunkers(t, 200, nil, nil) {
		t.Run(name, func(t *testing.T) { chunktest.CheckBadInput(t, c) })
	}
}

// The check: three concatenated articles on unrelated subjects
// split at the seams with the lexical embedder.
func TestTopicShifts(t *testing.T) {
	text, seams := threeArticles()
	size := 3 * len(articles[0]) / 2 // room for one article, not two
	for name, c := range allChunkers(t, size, nil, nil) {
		switch name {
		case "dp":
			cfg := DefaultDPConfig()
			cfg.Size, cfg.OptimalSize = size, size // no size penalty: similarity decides
			c, _ = NewDP(cfg, nil, nil)
		case "semantic-article":
			// The article's method: a buffer blurs a boundary by up to
			// buffer_size sentences (see TestBreakpointBuffer), so none,
			// and its 80th percentile.
			cfg := ArticleBreakpointConfig()
			cfg.Size, cfg.BufferSize, cfg.Amount = size, 0, 80
			c, _ = NewBreakpoint(cfg, nil, nil)
		}
		t.Run(name, func(t *testing.T) {
			chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
			if err != nil {
				t.Fatal(err)
			}
			var starts []int
			for _, ch := range chunks {
				starts = append(starts, ch.Start())
				for _, s := range seams {
					if ch.Start() < s && s < ch.End() {
						t.Errorf("chunk [%d,%d) straddles the seam at %d: %.60q", ch.Start(), ch.End(), s, ch.Text)
					}
				}
			}
			for _, s := range seams {
				if !slices.Contains(starts, s) {
					t.Errorf("no chunk starts at the seam %d (starts %v)", s, starts)
				}
			}
		})
	}
}

// failingEmbedder fails after some calls, or returns vectors of a wrong
// dimension.
type failingEmbedder struct {
	calls, failAt int
	badDim        bool
}

func (f *failingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.calls++
	if f.calls >= f.failAt {
		return nil, errors.New("embedding service unavailable")
	}
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, float32(i % 3), 0.5}
		if f.badDim && i == 1 {
			out[i] = out[i][:2]
		}
	}
	return out, nil
}
func (f *failingEmbedder) Dim() int        { return 3 }
func (f *failingEmbedder) MaxTokens() int  { return 0 }
func (f *failingEmbedder) ModelID() string { return "failing" }

func TestEmbedderErrors(t *testing.T) {
	text, _ := threeArticles()
	for _, tc := range []struct {
		name string
		e    *failingEmbedder
		want string
	}{
		{"fails", &failingEmbedder{failAt: 1}, "embedding service unavailable"},
		{"wrong dimension", &failingEmbedder{failAt: 99, badDim: true}, "wrong dimension"},
	} {
		for name, c := range allChunkers(t, 300, nil, tc.e) {
			tc.e.calls = 0
			chunks, err := c.Chunk(context.Background(), gochunk.Document{ID: "doc-7", Text: text})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "doc-7") || chunks != nil {
				t.Errorf("%s/%s: chunks %d, err %v", tc.name, name, len(chunks), err)
			}
		}
	}
}

func TestTraces(t *testing.T) {
	text, _ := threeArticles()
	for name, c := range allChunkers(t, 400, nil, nil) {
		tc, ok := c.(gochunk.Tracer)
		if !ok {
			t.Fatalf("%s is not a Tracer", name)
		}
		chunks, tr, err := tc.ChunkTrace(context.Background(), gochunk.Document{ID: "d", Text: text})
		if err != nil {
			t.Fatal(err)
		}
		// min_size may join the groups the breakpoints start: fewer chunks.
		if tr == nil || len(tr.Units) == 0 || len(tr.Breakpoints) == 0 || tr.Breakpoints[0] != 0 || len(chunks) == 0 {
			t.Errorf("%s: trace %+v for %d chunks", name, tr, len(chunks))
		}
		if len(tr.Curve) == 0 {
			t.Errorf("%s: no curve", name)
		}
	}
}

// With the default buffer of one sentence, breakpoints land within one
// sentence of the seams.
func TestBreakpointBuffer(t *testing.T) {
	text, seams := threeArticles()
	cfg := ArticleBreakpointConfig()
	cfg.Size, cfg.Amount = 2000, 80
	c, _ := NewBreakpoint(cfg, nil, nil)
	_, tr, err := c.ChunkTrace(context.Background(), gochunk.Document{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range seams {
		seamUnit := -1
		for i, u := range tr.Units {
			if u.Start <= s && s < u.End || u.Start == s {
				seamUnit = i
				break
			}
		}
		near := false
		for _, b := range tr.Breakpoints {
			if b >= seamUnit-1 && b <= seamUnit+1 {
				near = true
			}
		}
		if !near {
			t.Errorf("no breakpoint within one sentence of the seam at unit %d: %v", seamUnit, tr.Breakpoints)
		}
	}
}

func TestBreakpointRules(t *testing.T) {
	text, seams := threeArticles()
	for _, rule := range []string{"percentile", "stddev", "iqr", "gradient", "absolute"} {
		cfg := DefaultBreakpointConfig()
		cfg.Size, cfg.Threshold = 2000, rule
		c, err := NewBreakpoint(cfg, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
		if err != nil || len(chunks) == 0 {
			t.Fatalf("%s: %v", rule, err)
		}
	}
	// number_of_chunks steers the count.
	cfg := DefaultBreakpointConfig()
	cfg.Size, cfg.NumberChunks = 2000, 3
	c, _ := NewBreakpoint(cfg, nil, nil)
	chunks, _ := c.Chunk(context.Background(), gochunk.Document{Text: text})
	if len(chunks) < 2 || len(chunks) > 5 {
		t.Errorf("number_of_chunks 3 gave %d chunks", len(chunks))
	}
	// min_chunk_size skips breakpoints that would leave small chunks.
	cfg = DefaultBreakpointConfig()
	cfg.Size, cfg.Threshold, cfg.Amount, cfg.MinChunkSize = 2000, "absolute", 0.01, seams[0]-10
	c, _ = NewBreakpoint(cfg, nil, nil)
	chunks, _ = c.Chunk(context.Background(), gochunk.Document{Text: text})
	for _, ch := range chunks[:len(chunks)-1] {
		if utf8.RuneCountInString(ch.Text) < seams[0]-20 {
			t.Errorf("chunk under min_chunk_size: %d runes", utf8.RuneCountInString(ch.Text))
		}
	}
}

func TestConfigErrors(t *testing.T) {
	bad := []func() error{
		func() error {
			c := DefaultBreakpointConfig()
			c.Compare = "pairs"
			_, err := NewBreakpoint(c, nil, nil)
			return err
		},
		func() error {
			c := DefaultBreakpointConfig()
			c.BlockSize = 0
			_, err := NewBreakpoint(c, nil, nil)
			return err
		},
		func() error {
			c := DefaultBreakpointConfig()
			c.Structure = "pages"
			_, err := NewBreakpoint(c, nil, nil)
			return err
		},
		func() error {
			c := DefaultSavGolConfig()
			c.Compare = "blocks2"
			_, err := NewSavGol(c, nil, nil)
			return err
		},
		func() error { c := DefaultDPConfig(); c.Reward = "softmax"; _, err := NewDP(c, nil, nil); return err },
		func() error { c := DefaultDPConfig(); c.Similarity = "pairs"; _, err := NewDP(c, nil, nil); return err },
		func() error {
			c := DefaultBreakpointConfig()
			c.Threshold = "median"
			_, err := NewBreakpoint(c, nil, nil)
			return err
		},
		func() error {
			c := DefaultBreakpointConfig()
			c.Threshold, c.Amount = "percentile", 150
			_, err := NewBreakpoint(c, nil, nil)
			return err
		},
		func() error {
			c := DefaultBreakpointConfig()
			c.Size = 0
			_, err := NewBreakpoint(c, nil, nil)
			return err
		},
		func() error {
			c := DefaultSavGolConfig()
			c.FilterWindow = 4
			_, err := NewSavGol(c, nil, nil)
			return err
		},
		func() error {
			c := DefaultSavGolConfig()
			c.Threshold = 1.5
			_, err := NewSavGol(c, nil, nil)
			return err
		},
		func() error {
			c := DefaultHierarchicalConfig()
			c.Linkage = "median"
			_, err := NewHierarchical(c, nil, nil)
			return err
		},
		func() error { c := DefaultDPConfig(); c.OptimalSize = 600; _, err := NewDP(c, nil, nil); return err },
		func() error { c := DefaultDPConfig(); c.LambdaSize = -1; _, err := NewDP(c, nil, nil); return err },
		func() error {
			c := DefaultClusterConfig()
			c.MinChunkSize = 500
			_, err := NewCluster(c, nil, nil)
			return err
		},
	}
	for i, f := range bad {
		if err := f(); !errors.Is(err, gochunk.ErrConfig) {
			t.Errorf("case %d: err = %v, want ErrConfig", i, err)
		}
	}
}

// The DP recurrence on a hand-made case: four sentences of 10 tokens,
// similarities 1, 0, 1 (normalised), max 20: the best is [0,2) [2,4).
func TestDPSegment(t *testing.T) {
	c, _ := NewDP(DPConfig{Size: 20, OptimalSize: 20, LambdaSize: 5, ChunkPenalty: 1}, nil, nil)
	starts, err := c.segment(context.Background(), []float64{1, 0, 1}, []int{10, 10, 10, 10})
	if err != nil || !slices.Equal(starts, []int{0, 2}) {
		t.Errorf("starts %v, %v", starts, err)
	}
	// A heavy chunk penalty prefers fewer chunks within the size.
	c.cfg.Size, c.cfg.OptimalSize = 40, 40
	starts, _ = c.segment(context.Background(), []float64{1, 0, 1}, []int{10, 10, 10, 10})
	if !slices.Equal(starts, []int{0}) {
		t.Errorf("one chunk expected, starts %v", starts)
	}
	if p := (&DP{cfg: DPConfig{Size: 512, OptimalSize: 470, LambdaSize: 5}}).sizePenalty(491); p != 2.5 {
		t.Errorf("size penalty %v, want 2.5", p)
	}
}

// Chroma's cluster DP on a hand-made case: two groups of identical vectors.
func TestClusterSegment(t *testing.T) {
	a, b := []float32{1, 0}, []float32{0, 1}
	starts, _ := clusterSegment([][]float32{a, a, a, b, b, b}, 4)
	if !slices.Equal(starts, []int{0, 3}) {
		t.Errorf("starts %v", starts)
	}
	// The piece limit holds even when one group is longer.
	starts, _ = clusterSegment([][]float32{a, a, a, a, a, b}, 2)
	for i := range starts {
		end := 6
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		if end-starts[i] > 2 {
			t.Errorf("run of %d pieces over the limit 2: %v", end-starts[i], starts)
		}
	}
}

func TestElbowAndSilhouette(t *testing.T) {
	// The article's find_elbow_point: x at the largest second difference,
	// shifted by one.
	if k := elbow([]int{2, 3, 4, 5, 6}, []float64{0.1, 0.2, 0.9, 0.92, 0.93}); k != 3 {
		t.Errorf("elbow %d", k)
	}
	a, b := []float32{1, 0}, []float32{0, 1}
	good := silhouette([][]float32{a, a, b, b}, []int{0, 0, 1, 1})
	bad := silhouette([][]float32{a, a, b, b}, []int{0, 1, 0, 1})
	if good <= bad || good != 1 {
		t.Errorf("silhouette good %v bad %v", good, bad)
	}
}

// keep_separator start cuts pieces as Chroma's splitter does: a period
// begins the next piece.
func TestClusterKeepSeparator(t *testing.T) {
	text, _ := threeArticles()
	for sep, check := range map[string]func(string) bool{
		"start": func(c string) bool { return strings.HasPrefix(c, ".") || !strings.HasSuffix(c, ".") },
		"end":   func(c string) bool { return strings.HasSuffix(c, ".") },
	} {
		cfg := DefaultClusterConfig()
		cfg.Size, cfg.MinChunkSize, cfg.KeepSeparator, cfg.Pieces = 60, 20, sep, PiecesChroma
		c, chunks := clusterChunks(t, cfg, text)
		dotFirst := 0
		for _, ch := range chunks[1 : len(chunks)-1] {
			if !check(ch.Text) {
				t.Errorf("keep_separator %s: chunk %q", sep, ch.Text)
			}
			if strings.HasPrefix(ch.Text, ".") {
				dotFirst++
			}
		}
		if (sep == "start") != (dotFirst > 0) {
			t.Errorf("keep_separator %s: %d chunks start with a period", sep, dotFirst)
		}
		chunktest.Check(t, c, text, chunktest.Options{Counter: tokenize.Words{}, Limit: 60})
	}
	cfg := DefaultClusterConfig()
	cfg.KeepSeparator = "none"
	if _, err := NewCluster(cfg, nil, nil); !errors.Is(err, gochunk.ErrConfig) {
		t.Errorf("keep_separator none: %v", err)
	}
}

// sections is a markdown text of short headings over paragraphs of a few
// sentences, on unrelated topics.
func sections() string {
	topics := []struct{ title, body string }{
		{"## Glaciers", "Glaciers carve valleys as the ice moves. The ice of a glacier flows slowly downhill. A glacier leaves moraines of rock behind. Meltwater feeds rivers in summer."},
		{"## Compilers", "Compilers parse source code into trees. A compiler checks the types of the code. The compiler then emits machine code. Optimisers rewrite loops first."},
		{"## Bread", "Bread needs flour, water, salt and yeast. Knead the dough until it is smooth. Let it rise, then bake it hot. A crust forms in the oven."},
		{"## Markets", "Stocks fell sharply as rates rose. Bond yields climbed for a third week. Investors moved money into cash. Banks reported weaker lending."},
	}
	var b strings.Builder
	for _, tp := range topics {
		b.WriteString(tp.title + "\n\n" + tp.body + "\n\n")
	}
	return b.String()
}

// With min_size, no chunk is a heading alone or a few words where it
// could join its neighbours, and a heading joins the text after it; with
// min_size 0 the algorithms do leave such fragments (the test sees them).
func TestMinSizeJoinsFragments(t *testing.T) {
	text := sections()
	words := tokenize.Words{}
	fragments := func(minSize int) (n int, headingAlone bool) {
		for name, c := range allChunkersMin(t, 60, words, minSize) {
			chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range chunks {
				if ch.TokenCount < 8 {
					n++
					t.Logf("min_size %d, %s: fragment %q", minSize, name, ch.Text)
				}
				if strings.HasSuffix(strings.TrimSpace(ch.Text), "## Compilers") || strings.HasSuffix(strings.TrimSpace(ch.Text), "## Bread") {
					headingAlone = true
					t.Logf("min_size %d, %s: a chunk ends with a heading: %q", minSize, name, ch.Text)
				}
			}
			chunktest.Check(t, c, text, chunktest.Options{Counter: words, Limit: 60})
		}
		return
	}
	if n, alone := fragments(8); n > 0 || alone {
		t.Errorf("min_size 8: %d fragments, a heading separated from its text: %v", n, alone)
	}
	if n, alone := fragments(0); n == 0 && !alone {
		t.Errorf("min_size 0: no fragment at all, so this test cannot tell")
	}
}

// allChunkersMin is allChunkers with min_size set.
func allChunkersMin(t testing.TB, size int, counter tokenize.Counter, minSize int) map[string]gochunk.Chunker {
	out := map[string]gochunk.Chunker{}
	bc := DefaultBreakpointConfig()
	bc.Size, bc.MinSize = size, minSize
	sc := DefaultSavGolConfig()
	sc.Size, sc.MinSize = size, minSize
	hc := DefaultHierarchicalConfig()
	hc.Size, hc.MinSize = size, minSize
	dc := DefaultDPConfig()
	dc.Size, dc.MinSize = size, minSize
	cc := DefaultClusterConfig()
	cc.Size, cc.MinChunkSize, cc.MinSize = size, 10, minSize
	var err error
	for name, build := range map[string]func() (gochunk.Chunker, error){
		"semantic":     func() (gochunk.Chunker, error) { return NewBreakpoint(bc, counter, nil) },
		"savgol":       func() (gochunk.Chunker, error) { return NewSavGol(sc, counter, nil) },
		"hierarchical": func() (gochunk.Chunker, error) { return NewHierarchical(hc, counter, nil) },
		"dp":           func() (gochunk.Chunker, error) { return NewDP(dc, counter, nil) },
		"cluster":      func() (gochunk.Chunker, error) { return NewCluster(cc, counter, nil) },
	} {
		if out[name], err = build(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return out
}

// cluster's pieces end at sentence ends: a period inside a sentence ("3.14",
// "e.g. the") is never a chunk boundary, as it is with Chroma's separators.
func TestClusterCutsAtSentenceEnds(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "Sample %d weighs 3.14 grams, e.g. the lighter ones, and the cell count was 2.5 million. ", i)
		if i%7 == 6 {
			b.WriteString("\n\n")
		}
	}
	text := b.String()
	for _, pieces := range []string{PiecesSentences, PiecesChroma} {
		cfg := DefaultClusterConfig()
		cfg.Size, cfg.MinChunkSize, cfg.Pieces = 80, 24, pieces
		_, chunks := clusterChunks(t, cfg, text)
		inside := 0
		for _, ch := range chunks[:len(chunks)-1] {
			if !strings.HasSuffix(ch.Text, "million.") {
				inside++
			}
		}
		if pieces == PiecesSentences && inside > 0 {
			t.Errorf("pieces=sentences: %d of %d chunks end inside a sentence", inside, len(chunks))
		}
		if pieces == PiecesChroma && inside == 0 {
			t.Errorf("pieces=chroma: no chunk ends inside a sentence, so this test cannot tell")
		}
	}
}

// clusterChunks builds a cluster chunker counting words and chunks text.
func clusterChunks(t *testing.T, cfg ClusterConfig, text string) (*Cluster, []gochunk.Chunk) {
	t.Helper()
	c, err := NewCluster(cfg, tokenize.Words{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return c, chunks
}

// topicEmbedder embeds a paragraph by its first letter: A on one axis, C
// on another, and B mostly on a third but sharing some of C's (as two
// chapters of one book share their vocabulary).
type topicEmbedder struct{}

func (topicEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		switch t[0] {
		case 'A':
			out[i] = []float32{1, 0, 0}
		case 'B':
			out[i] = []float32{0, 1, 0.8}
		default:
			out[i] = []float32{0, 0, 1}
		}
	}
	return out, nil
}
func (topicEmbedder) Dim() int        { return 3 }
func (topicEmbedder) MaxTokens() int  { return 0 }
func (topicEmbedder) ModelID() string { return "topics" }

// A topic shorter than a block (three paragraphs between two long topics,
// blocks of six) blurs into its neighbours: with B sharing some of C's
// vocabulary, the block similarity rises steadily from the A|B seam to past
// the B|C one, which is no minimum at all. Looking again after the A|B cut
// with blocks clipped at it finds B|C. Sized so that only the similarity
// decides.
func TestRefineFindsShortTopic(t *testing.T) {
	var paras []string
	for range 10 {
		paras = append(paras, "A paragraph about the first subject here.")
	}
	seam1 := len(strings.Join(paras, "\n\n")) + 2
	for range 3 {
		paras = append(paras, "B paragraph about the second subject here.")
	}
	seam2 := len(strings.Join(paras, "\n\n")) + 2
	for range 10 {
		paras = append(paras, "C paragraph about the third subject here.")
	}
	text := strings.Join(paras, "\n\n")
	for _, refine := range []bool{true, false} {
		cfg := DefaultBreakpointConfig()
		cfg.Size, cfg.Refine = 100000, refine
		c, err := NewBreakpoint(cfg, nil, topicEmbedder{})
		if err != nil {
			t.Fatal(err)
		}
		starts := chunkStarts(t, c, text)
		t.Logf("refine %v: starts %v, seams %d and %d", refine, starts, seam1, seam2)
		if want := []int{0, seam1, seam2}; refine && !slices.Equal(starts, want) {
			t.Errorf("refined: chunks start at %v, want %v", starts, want)
		}
		if !refine && slices.Contains(starts, seam2) {
			t.Errorf("unrefined: the B|C seam found (%v): the case no longer shows what refine is for", starts)
		}
	}
}

// chunkStarts chunks text and returns where its chunks start.
func chunkStarts(t *testing.T, c gochunk.Chunker, text string) []int {
	t.Helper()
	chunks, err := c.Chunk(context.Background(), gochunk.Document{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	var starts []int
	for _, ch := range chunks {
		starts = append(starts, ch.Start())
	}
	return starts
}
