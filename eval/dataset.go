// Package eval scores chunkers the way Chroma's report "Evaluating Chunking
// Strategies for Retrieval" does (token-level recall, precision, IoU and
// precision_Ω of retrieved chunks against reference excerpts), plus
// boundary metrics (Pk, WindowDiff) against gold boundaries and the S2
// paper's cohesion, layout consistency, purity and NMI — offline, with a
// built-in BM25 retriever or any embedder.
//
// All offsets in this package are Unicode code points, as in the data sets.
package eval

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/runeoff"
	"github.com/gochunk/gochunk/layout"
)

// Range is [Start, End) in code points.
type Range struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Len returns the number of code points in r.
func (r Range) Len() int { return r.End - r.Start }

// Reference is an excerpt of a corpus that answers a question.
type Reference struct {
	Corpus  string `json:"doc_id"`
	Start   int    `json:"start"`
	End     int    `json:"end"`
	Content string `json:"content,omitempty"`
}

// Question is a query with the excerpts that answer it.
type Question struct {
	ID         string      `json:"id,omitempty"`
	Text       string      `json:"question"`
	References []Reference `json:"references"`
}

// Corpus returns the corpus of the question's first reference.
func (q Question) Corpus() string {
	if len(q.References) == 0 {
		return ""
	}
	return q.References[0].Corpus
}

// Label marks a range of a corpus as belonging to a gold category (the
// source document of stitched text, a paragraph title), for purity and NMI.
type Label struct {
	Range
	Label string `json:"label"`
}

// Corpus is one document of a data set.
type Corpus struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	// Boundaries are gold segment starts (code points), for Pk and
	// WindowDiff; empty when the data set has none.
	Boundaries []int `json:"boundaries,omitempty"`
	// Labels are gold categories of ranges, for purity and NMI.
	Labels []Label `json:"labels,omitempty"`
	// Elements are the document's layout elements (the schema of
	// gochunk extract --elements), for layout chunkers and the layout
	// consistency metric. Without text, the text is assembled from them;
	// an element's label becomes a gold label of its range.
	Elements []gochunk.Element `json:"elements,omitempty"`

	runes int
}

// Runes returns the corpus length in code points.
func (c *Corpus) Runes() int {
	if c.runes == 0 && c.Text != "" {
		c.runes = utf8.RuneCountInString(c.Text)
	}
	return c.runes
}

// prepareElements assembles the text of a corpus given as elements, checks
// the offsets of elements given with a text, and turns element labels into
// gold labels when the corpus has none.
func (c *Corpus) prepareElements() error {
	if len(c.Elements) == 0 {
		return nil
	}
	if err := layout.Validate(c.Elements); err != nil {
		return err
	}
	if c.Text == "" {
		c.Text, c.Elements = layout.Assemble(c.Elements)
	} else {
		conv := runeoff.New(c.Text)
		for i := range c.Elements {
			e := &c.Elements[i]
			if e.Excluded {
				continue
			}
			if !utf8.ValidString(e.Text) || e.Start < 0 || e.End > len(c.Text) || e.Start > e.End || c.Text[e.Start:e.End] != e.Text {
				return fmt.Errorf("%w: element %d: offsets [%d,%d) do not hold its text", layout.ErrElements, i, e.Start, e.End)
			}
			e.StartRune, e.EndRune = conv.Rune(e.Start), conv.Rune(e.End)
		}
		var ranges []Range
		for _, e := range c.Elements {
			if !e.Excluded && e.End > e.Start {
				ranges = append(ranges, Range{e.Start, e.End})
			}
		}
		sort.Slice(ranges, func(a, b int) bool { return ranges[a].Start < ranges[b].Start })
		for k := 1; k < len(ranges); k++ {
			if ranges[k].Start < ranges[k-1].End {
				return fmt.Errorf("%w: elements overlap at byte %d", layout.ErrElements, ranges[k].Start)
			}
		}
	}
	if len(c.Labels) == 0 {
		for _, e := range c.Elements {
			if e.Label != "" && !e.Excluded && e.EndRune > e.StartRune {
				c.Labels = append(c.Labels, Label{Range{e.StartRune, e.EndRune}, e.Label})
			}
		}
	}
	return nil
}

// Skip records a question left out of scoring, and why.
type Skip struct {
	Question string `json:"question"`
	Reason   string `json:"reason"`
}

// Dataset is corpora and questions about them.
type Dataset struct {
	Name      string
	Corpora   []*Corpus
	Questions []Question
	// Skipped are the questions Validate left out.
	Skipped []Skip
}

// Corpus returns the corpus with the given id, or nil.
func (d *Dataset) Corpus(id string) *Corpus {
	for _, c := range d.Corpora {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// ErrDataset reports a data set that cannot be used at all.
var ErrDataset = errors.New("bad data set")

// Validate keeps the questions whose references are usable and records
// the others in Skipped: a question with no references, a reference to an
// unknown corpus, offsets outside the corpus or reversed, or a content that
// does not match the text at its offsets. It fails only when no question
// is left, unless the data set is for segmentation only (no questions at
// all, gold boundaries in every corpus).
func (d *Dataset) Validate() error {
	if len(d.Corpora) == 0 {
		return fmt.Errorf("%w %s: no corpora", ErrDataset, d.Name)
	}
	index := map[string]*Corpus{}
	for _, c := range d.Corpora {
		if !utf8.ValidString(c.Text) {
			return fmt.Errorf("%w %s: corpus %q is not valid UTF-8", ErrDataset, d.Name, c.ID)
		}
		if _, dup := index[c.ID]; dup {
			return fmt.Errorf("%w %s: corpus id %q appears twice", ErrDataset, d.Name, c.ID)
		}
		index[c.ID] = c
	}
	starts := map[string][]int{} // rune index -> byte offset, built on demand
	byteAt := func(c *Corpus, r int) int {
		s, ok := starts[c.ID]
		if !ok {
			s = make([]int, 0, len(c.Text)+1)
			for i := range c.Text {
				s = append(s, i)
			}
			s = append(s, len(c.Text))
			starts[c.ID] = s
		}
		return s[r]
	}
	kept := d.Questions[:0]
	for _, q := range d.Questions {
		reason := ""
		if len(q.References) == 0 {
			reason = "no references"
		}
		for _, r := range q.References {
			c := index[r.Corpus]
			switch {
			case c == nil:
				reason = fmt.Sprintf("reference to unknown corpus %q", r.Corpus)
			case r.Start < 0 || r.End > c.Runes() || r.Start > r.End:
				reason = fmt.Sprintf("reference [%d,%d) outside corpus %q of %d code points", r.Start, r.End, r.Corpus, c.Runes())
			case r.Content != "" && c.Text[byteAt(c, r.Start):byteAt(c, r.End)] != r.Content:
				reason = fmt.Sprintf("reference [%d,%d) of %q does not match its content", r.Start, r.End, r.Corpus)
			}
			if reason != "" {
				break
			}
		}
		if reason != "" {
			d.Skipped = append(d.Skipped, Skip{q.Text, reason})
			continue
		}
		kept = append(kept, q)
	}
	d.Questions = kept
	if len(d.Questions) == 0 && !(len(d.Skipped) == 0 && d.isSegmentation()) {
		return fmt.Errorf("%w %s: no usable question (%d skipped)", ErrDataset, d.Name, len(d.Skipped))
	}
	return nil
}

// Load reads a data set from path, recognising its format: a directory
// with questions.csv (Chroma), a directory with documents.jsonl and
// questions.jsonl (the generic format), a directory with questions.jsonl
// and a files/ tree (LoadFiles), a directory with seams.json (stitched
// documents, see LoadSeams), or a JSON file of SQuAD v1.1 or HotpotQA.
func Load(path string) (*Dataset, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDataset, err)
	}
	var d *Dataset
	switch {
	case fi.IsDir() && exists(filepath.Join(path, "questions.csv")):
		d, err = LoadChroma(path)
	case fi.IsDir() && exists(filepath.Join(path, "documents.jsonl")):
		d, err = LoadJSONL(path)
	case fi.IsDir() && exists(filepath.Join(path, "questions.jsonl")) && exists(filepath.Join(path, "files")):
		d, err = LoadFiles(path)
	case fi.IsDir() && exists(filepath.Join(path, "seams.json")):
		d, err = LoadSeams(path)
	case fi.IsDir():
		return nil, fmt.Errorf("%w: %s holds neither questions.csv (Chroma), documents.jsonl, questions.jsonl with files/ nor seams.json (stitched documents)", ErrDataset, path)
	default:
		d, err = loadJSONFile(path)
	}
	if err != nil {
		return nil, err
	}
	return d, d.Validate()
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// LoadChroma reads the format of Chroma's evaluation: questions.csv with
// columns question, references (a JSON list of {content, start_index,
// end_index}) and corpus_id, and one file per corpus named CORPUS_ID.md (or
// CORPUS_ID, or CORPUS_ID.txt) beside it.
func LoadChroma(dir string) (*Dataset, error) {
	f, err := os.Open(filepath.Join(dir, "questions.csv"))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDataset, err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%w: questions.csv: %v", ErrDataset, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	for _, need := range []string{"question", "references", "corpus_id"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%w: questions.csv has no %q column", ErrDataset, need)
		}
	}
	d := &Dataset{Name: filepath.Base(filepath.Clean(dir))}
	loaded := map[string]bool{}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: questions.csv line %d: %v", ErrDataset, line, err)
		}
		corpus := rec[col["corpus_id"]]
		var refs []struct {
			Content string `json:"content"`
			Start   int    `json:"start_index"`
			End     int    `json:"end_index"`
		}
		if err := json.Unmarshal([]byte(rec[col["references"]]), &refs); err != nil {
			d.Skipped = append(d.Skipped, Skip{rec[col["question"]], "references are not a JSON list: " + err.Error()})
			continue
		}
		q := Question{ID: fmt.Sprint(line - 2), Text: rec[col["question"]]}
		for _, rf := range refs {
			q.References = append(q.References, Reference{Corpus: corpus, Start: rf.Start, End: rf.End, Content: rf.Content})
		}
		d.Questions = append(d.Questions, q)
		if !loaded[corpus] {
			text, err := readCorpus(dir, corpus)
			if err != nil {
				return nil, err
			}
			d.Corpora = append(d.Corpora, &Corpus{ID: corpus, Text: text})
			loaded[corpus] = true
		}
	}
	return d, nil
}

func readCorpus(dir, id string) (string, error) {
	if strings.ContainsAny(id, `/\`) || strings.Contains(id, "..") {
		return "", fmt.Errorf("%w: corpus id %q is not a file name", ErrDataset, id)
	}
	for _, name := range []string{id + ".md", id, id + ".txt"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil {
			return string(b), nil
		}
	}
	return "", fmt.Errorf("%w: corpus file for %q not found in %s (tried %s.md, %s, %s.txt)", ErrDataset, id, dir, id, id, id)
}

// LoadJSONL reads the generic format: documents.jsonl with one
// {"id", "text", "boundaries"?, "labels"?, "elements"?} per line, and questions.jsonl with
// one {"id"?, "question", "references": [{"doc_id", "start", "end",
// "content"?}]} per line; offsets are code points.
func LoadJSONL(dir string) (*Dataset, error) {
	d := &Dataset{Name: filepath.Base(filepath.Clean(dir))}
	if err := readJSONL(filepath.Join(dir, "documents.jsonl"), func(b []byte) error {
		var c Corpus
		if err := json.Unmarshal(b, &c); err != nil {
			return err
		}
		if c.ID == "" {
			return fmt.Errorf("document without id")
		}
		if err := c.prepareElements(); err != nil {
			return fmt.Errorf("document %q: %w", c.ID, err)
		}
		d.Corpora = append(d.Corpora, &c)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := readQuestions(dir, d); err != nil {
		return nil, err
	}
	return d, nil
}

// LoadFiles reads a data set whose documents are real files: every file
// under dir/files is a document whose id is its path below files/ (with
// slashes), so that chunkers see its name and extension (the code chunker
// picks its language by it); questions.jsonl is as in LoadJSONL, its
// references' doc_id such a path.
func LoadFiles(dir string) (*Dataset, error) {
	d := &Dataset{Name: filepath.Base(filepath.Clean(dir))}
	root := filepath.Join(dir, "files")
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		if !e.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if !utf8.Valid(b) {
			return fmt.Errorf("%w: %s is not UTF-8 text", ErrDataset, path)
		}
		d.Corpora = append(d.Corpora, &Corpus{ID: filepath.ToSlash(rel), Text: string(b)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := readQuestions(dir, d); err != nil {
		return nil, err
	}
	return d, nil
}

// readQuestions adds the questions of dir/questions.jsonl to d.
func readQuestions(dir string, d *Dataset) error {
	return readJSONL(filepath.Join(dir, "questions.jsonl"), func(b []byte) error {
		var q Question
		if err := json.Unmarshal(b, &q); err != nil {
			return err
		}
		d.Questions = append(d.Questions, q)
		return nil
	})
}

func readJSONL(path string, fn func([]byte) error) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrDataset, err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if err := fn([]byte(line)); err != nil {
			return fmt.Errorf("%w: %s line %d: %v", ErrDataset, filepath.Base(path), i+1, err)
		}
	}
	return nil
}

func loadJSONFile(path string) (*Dataset, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDataset, err)
	}
	trimmed := strings.TrimSpace(string(b))
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if strings.HasPrefix(trimmed, "[") {
		return ParseHotpotQA(name, b)
	}
	return ParseSQuAD(name, b)
}

// ParseSQuAD reads SQuAD v1.1 JSON. Each article becomes one corpus: its
// paragraphs joined by blank lines, whose starts are the gold boundaries
// and whose index is the gold label; each answer becomes a reference at its
// offset in the article.
func ParseSQuAD(name string, data []byte) (*Dataset, error) {
	var f struct {
		Data []struct {
			Title      string `json:"title"`
			Paragraphs []struct {
				Context string `json:"context"`
				QAs     []struct {
					ID       string `json:"id"`
					Question string `json:"question"`
					Answers  []struct {
						Text  string `json:"text"`
						Start int    `json:"answer_start"`
					} `json:"answers"`
				} `json:"qas"`
			} `json:"paragraphs"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%w: SQuAD JSON: %v", ErrDataset, err)
	}
	if len(f.Data) == 0 {
		return nil, fmt.Errorf("%w: SQuAD JSON has no data", ErrDataset)
	}
	d := &Dataset{Name: name}
	for ai, art := range f.Data {
		id := fmt.Sprintf("%d:%s", ai, art.Title)
		var sb strings.Builder
		c := &Corpus{ID: id}
		off := 0
		for pi, p := range art.Paragraphs {
			if pi > 0 {
				sb.WriteString("\n\n")
				off += 2
			}
			c.Boundaries = append(c.Boundaries, off)
			n := utf8.RuneCountInString(p.Context)
			c.Labels = append(c.Labels, Label{Range{off, off + n}, fmt.Sprint(pi)})
			sb.WriteString(p.Context)
			for _, qa := range p.QAs {
				q := Question{ID: qa.ID, Text: qa.Question}
				seen := map[Range]bool{}
				for _, a := range qa.Answers {
					r := Range{off + a.Start, off + a.Start + utf8.RuneCountInString(a.Text)}
					if seen[r] {
						continue
					}
					seen[r] = true
					q.References = append(q.References, Reference{Corpus: id, Start: r.Start, End: r.End, Content: a.Text})
				}
				d.Questions = append(d.Questions, q)
			}
			off += n
		}
		c.Text = sb.String()
		d.Corpora = append(d.Corpora, c)
	}
	return d, nil
}

// ParseHotpotQA reads HotpotQA JSON (a list of examples). Each example
// becomes one corpus: its context paragraphs, each "title\nsentences",
// joined by blank lines (paragraph starts are the gold boundaries, titles
// the gold labels); its supporting-fact sentences are the references.
func ParseHotpotQA(name string, data []byte) (*Dataset, error) {
	var examples []struct {
		ID       string            `json:"_id"`
		Question string            `json:"question"`
		Context  []json.RawMessage `json:"context"`
		RawFacts []json.RawMessage `json:"supporting_facts"`
	}
	if err := json.Unmarshal(data, &examples); err != nil {
		return nil, fmt.Errorf("%w: HotpotQA JSON: %v", ErrDataset, err)
	}
	d := &Dataset{Name: name}
	for ei, ex := range examples {
		id := ex.ID
		if id == "" {
			id = fmt.Sprint(ei)
		}
		c := &Corpus{ID: id}
		sentences := map[string][]Range{} // title -> sentence ranges
		var sb strings.Builder
		off := 0
		for pi, raw := range ex.Context {
			var para []json.RawMessage
			if err := json.Unmarshal(raw, &para); err != nil || len(para) != 2 {
				return nil, fmt.Errorf("%w: HotpotQA example %s: bad context paragraph", ErrDataset, id)
			}
			var title string
			var sents []string
			if json.Unmarshal(para[0], &title) != nil || json.Unmarshal(para[1], &sents) != nil {
				return nil, fmt.Errorf("%w: HotpotQA example %s: bad context paragraph", ErrDataset, id)
			}
			if pi > 0 {
				sb.WriteString("\n\n")
				off += 2
			}
			start := off
			c.Boundaries = append(c.Boundaries, off)
			sb.WriteString(title)
			sb.WriteString("\n")
			off += utf8.RuneCountInString(title) + 1
			for _, s := range sents {
				n := utf8.RuneCountInString(s)
				sentences[title] = append(sentences[title], Range{off, off + n})
				sb.WriteString(s)
				off += n
			}
			c.Labels = append(c.Labels, Label{Range{start, off}, title})
		}
		c.Text = sb.String()
		q := Question{ID: id, Text: ex.Question}
		for _, raw := range ex.RawFacts {
			var fact []json.RawMessage
			var title string
			var sent int
			if json.Unmarshal(raw, &fact) != nil || len(fact) != 2 || json.Unmarshal(fact[0], &title) != nil || json.Unmarshal(fact[1], &sent) != nil {
				return nil, fmt.Errorf("%w: HotpotQA example %s: bad supporting fact", ErrDataset, id)
			}
			if rs := sentences[title]; sent >= 0 && sent < len(rs) {
				q.References = append(q.References, Reference{Corpus: id, Start: rs[sent].Start, End: rs[sent].End})
			}
		}
		d.Corpora = append(d.Corpora, c)
		d.Questions = append(d.Questions, q)
	}
	return d, nil
}

// Stitch concatenates the corpora of d, per, in order, into larger
// documents separated by a blank line, shifting the references, and records
// each seam as a gold boundary and each source corpus as a gold label: a
// data set for boundary metrics built from any other.
func Stitch(d *Dataset, per int) *Dataset {
	if per < 1 {
		per = 1
	}
	out := &Dataset{Name: fmt.Sprintf("%s-stitched%d", d.Name, per)}
	shift := map[string]struct {
		id  string
		off int
	}{}
	for i := 0; i < len(d.Corpora); i += per {
		group := d.Corpora[i:min(i+per, len(d.Corpora))]
		c := &Corpus{ID: fmt.Sprintf("stitched-%d", i/per)}
		var sb strings.Builder
		off := 0
		for j, src := range group {
			if j > 0 {
				sb.WriteString("\n\n")
				off += 2
			}
			shift[src.ID] = struct {
				id  string
				off int
			}{c.ID, off}
			c.Boundaries = append(c.Boundaries, off)
			c.Labels = append(c.Labels, Label{Range{off, off + src.Runes()}, src.ID})
			sb.WriteString(src.Text)
			off += src.Runes()
		}
		c.Text = sb.String()
		out.Corpora = append(out.Corpora, c)
	}
	for _, q := range d.Questions {
		nq := Question{ID: q.ID, Text: q.Text}
		for _, r := range q.References {
			s := shift[r.Corpus]
			nq.References = append(nq.References, Reference{Corpus: s.id, Start: r.Start + s.off, End: r.End + s.off, Content: r.Content})
		}
		out.Questions = append(out.Questions, nq)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
