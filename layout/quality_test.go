package layout_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/eval"
	"github.com/gochunk/gochunk/internal/pdfgen"
	"github.com/gochunk/gochunk/layout"
	"github.com/gochunk/gochunk/split"
	"github.com/gochunk/gochunk/tokenize"
)

// Three sections on unrelated subjects, each paragraph made of its
// subject's sentences.
var sections = []struct {
	label, heading string
	sentences      []string
}{
	{"glaciers", "Glaciers and ice", []string{
		"Glaciers form where winter snowfall exceeds summer melt for many years.",
		"The weight of the snowpack compresses older layers into dense glacial ice.",
		"Ice flows downhill slowly, carving valleys and dragging boulders with it.",
		"Meltwater streams beneath the glacier polish the bedrock smooth.",
		"Moraines of rock and gravel mark where the glacier front once stood.",
		"As Figure 1 shows, the glacier snout retreats a little every warm summer.",
	}},
	{"compilers", "Compilers and code", []string{
		"A compiler parses source code into a syntax tree before anything else.",
		"Type checking walks the syntax tree and rejects programs that misuse values.",
		"The optimizer inlines small functions and removes code that never runs.",
		"Register allocation maps program variables onto the processor registers.",
		"The code generator emits machine instructions for the target processor.",
		"Linkers join the compiled object files and resolve every symbol.",
	}},
	{"baking", "Baking bread", []string{
		"Bread dough needs flour, water, salt and yeast, kneaded until elastic.",
		"Yeast ferments the sugars in flour and the dough rises with carbon dioxide.",
		"Bakers fold the dough to build gluten strength before shaping the loaf.",
		"A hot oven with steam gives the loaf a crisp crust and an open crumb.",
		"Sourdough starter replaces commercial yeast with wild cultures and bacteria.",
		"The loaf should cool on a rack before slicing so the crumb can set.",
	}},
}

// labelledPDF writes a two-column PDF of the three sections, with running
// headers, page numbers and a figure caption at the foot of the first
// page, far in reading order from the paragraph that cites it; it returns
// the path and, for each paragraph's first words, its section.
func labelledPDF(t testing.TB) (string, map[string]string) {
	labels := map[string]string{}
	var paras []string
	for _, s := range sections {
		paras = append(paras, s.heading)
		labels[s.heading] = s.label
		for i := range 7 {
			var p []string
			for j := range 3 {
				p = append(p, s.sentences[(i+j*2)%len(s.sentences)])
			}
			text := strings.Join(p, " ")
			paras = append(paras, text)
			labels[text] = s.label
		}
	}
	pages := pdfgen.TwoColumn("Three Unrelated Subjects", paras, "Proceedings of Layout Tests")
	caption := "Figure 1: the glacier snout and its moraine, photographed each summer."
	pages[0].Lines = append(pages[0].Lines, pdfgen.Line{X: 320, Y: 750, Size: 8, Text: caption})
	labels[caption] = "glaciers"
	labels["Three Unrelated Subjects"] = "glaciers"
	var buf bytes.Buffer
	if err := pdfgen.Write(&buf, pages); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "labelled.pdf")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, labels
}

// labelOf finds the section of an extracted element: the paragraph whose
// text contains the element's (blocks may be a paragraph or part of one).
func labelOf(t testing.TB, text string, labels map[string]string) string {
	norm := strings.Join(strings.Fields(text), " ")
	for p, l := range labels {
		if strings.Contains(p, norm) || strings.Contains(norm, p) {
			return l
		}
	}
	t.Fatalf("no section for element %q", text)
	return ""
}

func score(els []gochunk.Element, chunks []gochunk.Chunk) (purity, nmi float64) {
	var as []eval.Assignment
	for ci, c := range chunks {
		for _, s := range c.Spans {
			for _, e := range els {
				if e.Excluded {
					continue
				}
				if lo, hi := max(s.Start, e.Start), min(s.End, e.End); hi > lo {
					as = append(as, eval.Assignment{Cluster: fmt.Sprint(ci), Class: e.Label, Weight: float64(hi - lo)})
				}
			}
		}
	}
	return eval.Purity(as), eval.NMI(as)
}

// S2 groups a labelled two-column PDF by subject better than fixed-size
// windows do, on the S2 paper's purity and NMI.
func TestS2BeatsFixedSizeOnLabelledPDF(t *testing.T) {
	path, labels := labelledPDF(t)
	raw, err := layout.ExtractPDF(context.Background(), path, layout.PDFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text, els := layout.Assemble(raw)
	for i := range els {
		if !els[i].Excluded {
			els[i].Label = labelOf(t, els[i].Text, labels)
		}
	}
	doc := gochunk.Document{Text: text, Elements: els}
	words := tokenize.Words{}
	for _, size := range []int{60, 100} {
		cfg := layout.DefaultS2Config()
		cfg.Size = size
		s2, err := layout.NewS2(cfg, words, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s2.Chunk(context.Background(), doc)
		if err != nil {
			t.Fatal(err)
		}
		// NMI rewards fewer clusters, so the baseline gets windows of
		// S2's mean chunk size: the same number of chunks, cut blindly.
		total := 0
		for _, c := range got {
			total += c.TokenCount
		}
		fixed, err := split.NewToken(split.TokenConfig{Size: split.Size{Size: (total + len(got) - 1) / len(got)}}, words)
		if err != nil {
			t.Fatal(err)
		}
		base, err := fixed.Chunk(context.Background(), doc)
		if err != nil {
			t.Fatal(err)
		}
		sp, sn := score(els, got)
		bp, bn := score(els, base)
		t.Logf("size %d: S2 purity %.3f NMI %.3f (%d chunks); fixed-size purity %.3f NMI %.3f (%d chunks)", size, sp, sn, len(got), bp, bn, len(base))
		if sp <= bp || sn <= bn {
			t.Errorf("size %d: S2 (purity %.3f, NMI %.3f) does not beat fixed-size windows (purity %.3f, NMI %.3f)", size, sp, sn, bp, bn)
		}
		// The paper's options, measured for the README (go test -v).
		for _, v := range []struct{ graph, clusters string }{{"dense", "tokens"}, {"sparse", "paper"}, {"dense", "paper"}} {
			c := cfg
			c.Graph, c.Clusters = v.graph, v.clusters
			alt, err := layout.NewS2(c, words, nil)
			if err != nil {
				t.Fatal(err)
			}
			chunks, err := alt.Chunk(context.Background(), doc)
			if err != nil {
				t.Fatal(err)
			}
			ap, an := score(els, chunks)
			t.Logf("size %d, graph %s, clusters %s: purity %.3f NMI %.3f (%d chunks)", size, v.graph, v.clusters, ap, an, len(chunks))
		}
	}
}
