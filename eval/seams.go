package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/runeoff"
)

// SeamTolerance is how far, in bytes, a chunk boundary may lie from a gold
// seam and still find it.
const SeamTolerance = 8

// LoadSeams reads a segmentation data set: a directory with seams.json,
// which maps a document name to the UTF-8 byte offsets where its second,
// third, … segment starts, and NAME.txt beside it for every name. Each
// document becomes a corpus whose gold boundaries are its segment starts
// and whose gold labels are its segments; such a data set has no
// questions, so only the boundary metrics are computed on it.
func LoadSeams(dir string) (*Dataset, error) {
	b, err := os.ReadFile(filepath.Join(dir, "seams.json"))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDataset, err)
	}
	var seams map[string][]int
	if err := json.Unmarshal(b, &seams); err != nil {
		return nil, fmt.Errorf("%w: seams.json: want an object of document name to a list of byte offsets: %v", ErrDataset, err)
	}
	d := &Dataset{Name: filepath.Base(filepath.Clean(dir))}
	for _, name := range sortedKeys(seams) {
		text, err := os.ReadFile(filepath.Join(dir, name+".txt"))
		if err != nil {
			return nil, fmt.Errorf("%w: seams.json names %q: %v", ErrDataset, name, err)
		}
		c, err := seamCorpus(name, string(text), seams[name])
		if err != nil {
			return nil, err
		}
		d.Corpora = append(d.Corpora, c)
	}
	return d, nil
}

// seamCorpus makes the corpus of one document with seams at the given byte
// offsets.
func seamCorpus(name, text string, seams []int) (*Corpus, error) {
	if !utf8.ValidString(text) {
		return nil, fmt.Errorf("%w: %s.txt is not valid UTF-8", ErrDataset, name)
	}
	s := append([]int(nil), seams...)
	sort.Ints(s)
	starts := []int{0}
	for _, off := range s {
		if off <= 0 || off >= len(text) || !utf8.RuneStart(text[off]) {
			return nil, fmt.Errorf("%w: seam %d of %q is not at a character inside its %d bytes", ErrDataset, off, name, len(text))
		}
		if off > starts[len(starts)-1] {
			starts = append(starts, off)
		}
	}
	c := &Corpus{ID: name, Text: text}
	runeAt := runeoff.New(text).Rune
	for i, st := range starts {
		end := len(text)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		r := runeAt(st)
		c.Boundaries = append(c.Boundaries, r)
		c.Labels = append(c.Labels, Label{Range{r, runeAt(end)}, fmt.Sprintf("%s/segment-%d", name, i)})
	}
	return c, nil
}

// SeamScores counts, for one document, the gold seams (byte offsets where
// a segment other than the first starts) that some chunk boundary finds,
// and the chunk boundaries that lie at a seam. A boundary is the interval
// between the end of a span and the start of the next span in text order;
// widened by tol bytes on each side, it finds every seam it contains.
func SeamScores(seams []int, chunks []gochunk.Chunk, tol int) (found, boundaries, atSeam int) {
	var spans []gochunk.Span
	for _, ch := range chunks {
		spans = append(spans, ch.Spans...)
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].Start < spans[j].Start })
	type interval struct{ lo, hi int }
	var bs []interval
	for i := 0; i+1 < len(spans); i++ {
		a, b := spans[i].End, spans[i+1].Start
		bs = append(bs, interval{min(a, b) - tol, max(a, b) + tol})
	}
	s := append([]int(nil), seams...)
	sort.Ints(s)
	hit := make([]bool, len(s))
	for _, b := range bs {
		k := sort.SearchInts(s, b.lo)
		if k < len(s) && s[k] <= b.hi {
			atSeam++
			for ; k < len(s) && s[k] <= b.hi; k++ {
				hit[k] = true
			}
		}
	}
	for _, h := range hit {
		if h {
			found++
		}
	}
	return found, len(bs), atSeam
}

// seamBytes returns the corpus's gold boundaries after the first as byte
// offsets.
func (c *Corpus) seamBytes() []int {
	var out []int
	if len(c.Boundaries) == 0 {
		return nil
	}
	want := append([]int(nil), c.Boundaries...)
	sort.Ints(want)
	r, k := 0, 0
	for i := range c.Text {
		for k < len(want) && want[k] < r {
			k++
		}
		if k < len(want) && want[k] == r && r > 0 {
			out = append(out, i)
		}
		r++
	}
	return out
}

// isSegmentation reports whether d is only for boundary metrics: it has
// no questions and every corpus has gold boundaries.
func (d *Dataset) isSegmentation() bool {
	if len(d.Questions) > 0 || len(d.Corpora) == 0 {
		return false
	}
	for _, c := range d.Corpora {
		if len(c.Boundaries) == 0 {
			return false
		}
	}
	return true
}
