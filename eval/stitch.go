package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/gochunk/gochunk/segment"
)

// SeamSource is a document that stitched documents draw segments from.
type SeamSource struct {
	Name string
	Text string
}

// SeamOptions shape a stitched data set; zero fields take the values
// of ../shared/eval/stitched: 24 documents of 4 to 6 segments, each
// segment two consecutive paragraphs of 200 to 1,400 characters.
type SeamOptions struct {
	Documents            int
	MinSegments          int
	MaxSegments          int
	ParagraphsPerSegment int
	MinChars, MaxChars   int
	Seed                 uint64
}

// SeamDocument is one stitched document and where its segments start.
type SeamDocument struct {
	Name string
	Text string
	// Seams are the UTF-8 byte offsets where the second, third, …
	// segment starts.
	Seams []int
	// Sources names the source of each segment, in order.
	Sources []string
}

// StitchSegments builds documents with known topic boundaries from sources, the
// way the stitched development set was built: each document joins, by a
// blank line, segments of consecutive paragraphs, each segment from one
// source and neighbouring segments from different sources. Paragraphs are
// the sources' blocks between blank lines (white space inside them kept).
// The same sources, options and seed give the same documents. With it a
// semantic chunker's topic finding can be measured on any text, such as a
// user's own documents.
func StitchSegments(sources []SeamSource, opt SeamOptions) ([]SeamDocument, error) {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&opt.Documents, 24)
	def(&opt.MinSegments, 4)
	def(&opt.MaxSegments, 6)
	def(&opt.ParagraphsPerSegment, 2)
	def(&opt.MinChars, 200)
	def(&opt.MaxChars, 1400)
	if opt.MaxSegments < opt.MinSegments {
		return nil, fmt.Errorf("stitch: at most %d segments is fewer than at least %d", opt.MaxSegments, opt.MinSegments)
	}
	// Each source's segments: runs of ParagraphsPerSegment paragraphs of
	// the right length, not overlapping.
	var segs [][]string
	for _, src := range sources {
		var paras []string
		for _, r := range segment.Paragraphs(src.Text) {
			p := strings.TrimSpace(src.Text[r.Start:r.End])
			if n := utf8.RuneCountInString(p); n >= opt.MinChars && n <= opt.MaxChars {
				paras = append(paras, p)
			} else {
				paras = append(paras, "") // a break in the run
			}
		}
		var mine []string
		for i := 0; i+opt.ParagraphsPerSegment <= len(paras); {
			run := paras[i : i+opt.ParagraphsPerSegment]
			if !slicesAllSet(run) {
				i++
				continue
			}
			mine = append(mine, strings.Join(run, "\n\n"))
			i += opt.ParagraphsPerSegment
		}
		segs = append(segs, mine)
	}
	usable := 0
	for _, s := range segs {
		if len(s) > 0 {
			usable++
		}
	}
	if usable < 2 {
		return nil, errors.New("stitch: fewer than two sources have paragraphs of the wanted length; give more or longer documents")
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x5717c4))
	var out []SeamDocument
	for d := range opt.Documents {
		n := opt.MinSegments + rng.IntN(opt.MaxSegments-opt.MinSegments+1)
		var b strings.Builder
		var seams []int
		var names []string
		last := -1
		for k := range n {
			src := rng.IntN(len(segs))
			for len(segs[src]) == 0 || src == last {
				src = rng.IntN(len(segs))
			}
			last = src
			names = append(names, sources[src].Name)
			if k > 0 {
				b.WriteString("\n\n")
				seams = append(seams, b.Len())
			}
			b.WriteString(segs[src][rng.IntN(len(segs[src]))])
		}
		out = append(out, SeamDocument{Name: fmt.Sprintf("doc-%02d", d), Text: b.String(), Seams: seams, Sources: names})
	}
	return out, nil
}

func slicesAllSet(ss []string) bool {
	for _, s := range ss {
		if s == "" {
			return false
		}
	}
	return true
}

// WriteSeams writes documents in the shape LoadSeams reads: NAME.txt
// for each and seams.json.
func WriteSeams(dir string, docs []SeamDocument) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	seams := map[string][]int{}
	for _, d := range docs {
		if err := os.WriteFile(filepath.Join(dir, d.Name+".txt"), []byte(d.Text), 0o644); err != nil {
			return err
		}
		seams[d.Name] = d.Seams
	}
	b, err := json.MarshalIndent(seams, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "seams.json"), b, 0o644)
}
