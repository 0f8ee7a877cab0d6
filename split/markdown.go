package split

import (
	"context"
	"github.com/gochunk/gochunk/internal/params"
	"sort"
	"strings"

	"github.com/gochunk/gochunk"
	"github.com/gochunk/gochunk/internal/pack"
	"github.com/gochunk/gochunk/internal/runeoff"
	"github.com/gochunk/gochunk/segment"
	"github.com/gochunk/gochunk/tokenize"
)

// MarkdownConfig configures the Markdown chunker.
type MarkdownConfig struct {
	Size
	HeadingPath bool `json:"heading_path" doc:"record the enclosing headings of each chunk in its metadata under \"headings\""`
}

// DefaultMarkdownConfig returns a size of 1000, no overlap, heading paths
// on.
func DefaultMarkdownConfig() MarkdownConfig {
	return MarkdownConfig{Size: Size{Size: 1000}, HeadingPath: true}
}

// Markdown chunks markdown by its structure. It cuts before headings (the
// highest level first, so a chunk holds whole sections when they fit and a
// heading stays with the text under it), then between blocks (paragraphs,
// lists, tables, fenced code), then between the lines of a list, table or
// code block or the sentences of a paragraph, then at white space and
// tokens. It never cuts inside a fenced code block or a table row unless
// that block or row alone is over the size. Each chunk records the path of
// headings it falls under.
type Markdown struct {
	cfg     MarkdownConfig
	counter tokenize.Counter
}

// NewMarkdown returns a Markdown chunker.
func NewMarkdown(cfg MarkdownConfig, counter tokenize.Counter) (*Markdown, error) {
	if err := params.Check(cfg); err != nil {
		return nil, err
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Markdown{cfg: cfg, counter: counterOr(counter)}, nil
}

// Chunk implements gochunk.Chunker.
func (m *Markdown) Chunk(ctx context.Context, doc gochunk.Document) ([]gochunk.Chunk, error) {
	if err := gochunk.CheckDocument(doc); err != nil {
		return nil, err
	}
	md := parseMarkdown(doc.Text)
	var levels []pack.Level
	for h := 1; h <= 6; h++ {
		levels = append(levels, md.headingLevel(h))
	}
	levels = append(levels, md.blockLevel, md.lineLevel, md.lineSentenceLevel)
	chunks, err := m.chunkWithTables(ctx, doc, md, levels)
	if err != nil || !m.cfg.HeadingPath {
		return chunks, err
	}
	md.annotate(chunks)
	return chunks, nil
}

// chunkWithTables chunks the document, except that a table too large for
// one chunk is cut into chunks of rows that each repeat its header, as the
// table chunker does (without overlap; a table inside fenced code is
// code). The text around such tables is chunked as usual.
func (m *Markdown) chunkWithTables(ctx context.Context, doc gochunk.Document, md *markdownDoc, levels []pack.Level) ([]gochunk.Chunk, error) {
	e := &pack.Engine{Counter: m.counter, Limit: m.cfg.Size.Size, Overlap: m.cfg.Overlap, Levels: levels}
	if m.cfg.Overlap > 0 || !strings.Contains(doc.Text, "|") {
		return runEngine(ctx, doc, e, true)
	}
	e, err := startEngine(doc, e)
	if err != nil || doc.Text == "" {
		return nil, err
	}
	text := doc.Text
	var conv *runeoff.Converter
	span := func(r pack.Range) gochunk.Span {
		if conv == nil {
			conv = runeoff.New(text)
		}
		return gochunk.Span{Start: r.Start, End: r.End, StartRune: conv.Rune(r.Start), EndRune: conv.Rune(r.End)}
	}
	var out []gochunk.Chunk
	prose := func(a, b int) error {
		if strings.TrimSpace(text[a:b]) == "" {
			return nil
		}
		ranges, err := e.Split(ctx, a, b, nil)
		if err != nil {
			return err
		}
		cs, err := e.Build(ctx, ranges, true)
		if out == nil {
			out = cs // no copy: a text without large tables is one call
		} else {
			out = append(out, cs...)
		}
		return err
	}
	pos := 0
	for _, tb := range findTables(text) {
		end := tb.header.End
		if len(tb.rows) > 0 {
			end = tb.rows[len(tb.rows)-1].End
		}
		if tb.header.Start < pos || md.inCode(tb.header.Start) || e.Count(tb.header.Start, end) <= m.cfg.Size.Size {
			continue
		}
		rows, ok, err := tableChunks(ctx, text, tb, m.counter, m.cfg.Size.Size, span)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if err := prose(pos, tb.header.Start); err != nil {
			return nil, err
		}
		out = append(out, rows...)
		pos = end
	}
	if err := prose(pos, len(text)); err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Index = i
	}
	return out, nil
}

// inCode tells whether byte at lies in a fenced code block.
func (md *markdownDoc) inCode(at int) bool {
	for _, b := range md.blocks {
		if b.start <= at && at < b.end {
			return b.kind == blockCode
		}
	}
	return false
}

type blockKind uint8

const (
	blockParagraph blockKind = iota
	blockHeading
	blockCode  // fenced code
	blockLines // lists, tables, block quotes: cut between lines
)

// mdBlock is a block of the text: 24 bytes (the headings' titles are
// apart, in markdownDoc.titles).
type mdBlock struct {
	start, end int // end includes the blank lines after the block
	kind       blockKind
	level      uint8 // heading level
}

type markdownDoc struct {
	text   string
	blocks []mdBlock
	titles []string // the headings' titles, in order
}

// parseMarkdown finds the blocks of text line by line: ATX and setext
// headings, fenced code blocks (``` or ~~~, closed by a fence of the same
// character at least as long, or by the end of the text), lists, tables,
// block quotes and paragraphs. It reads the lines of segment.Lines as it
// goes rather than all at once (16 bytes a line, 7 MB at 30 MB of text).
func parseMarkdown(text string) *markdownDoc {
	md := &markdownDoc{text: text}
	lines := &lineReader{text: text}
	for i := 0; ; {
		ln, ok := lines.at(i)
		if !ok {
			break
		}
		lines.release(i)
		line := strings.TrimRight(text[ln.Start:ln.End], "\r\n")
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		switch {
		case strings.TrimSpace(line) == "":
			if n := len(md.blocks); n > 0 {
				md.blocks[n-1].end = ln.End
			} else {
				md.blocks = append(md.blocks, mdBlock{start: ln.Start, end: ln.End})
			}
			i++
			continue
		case indent <= 3 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			n := 0
			for n < len(trimmed) && trimmed[n] == trimmed[0] {
				n++
			}
			fence := trimmed[:n]
			j := i + 1
			for ; ; j++ {
				lj, ok := lines.at(j)
				if !ok {
					break
				}
				l := strings.TrimSpace(text[lj.Start:lj.End])
				if strings.HasPrefix(l, fence) && strings.Trim(l, fence[:1]) == "" {
					j++
					break
				}
			}
			last, _ := lines.at(j - 1)
			md.add(mdBlock{start: ln.Start, end: last.End, kind: blockCode})
			i = j
			continue
		case indent <= 3 && atxLevel(trimmed) > 0:
			lvl := atxLevel(trimmed)
			title := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(trimmed[lvl:]), "#"))
			md.addHeading(mdBlock{start: ln.Start, end: ln.End, kind: blockHeading, level: uint8(lvl)}, title)
			i++
			continue
		}
		// A run of non-blank lines: a setext heading, a line block or a
		// paragraph.
		j := i + 1
		for ; ; j++ {
			lj, ok := lines.at(j)
			if !ok {
				break
			}
			l := text[lj.Start:lj.End]
			t := strings.TrimLeft(l, " ")
			if strings.TrimSpace(l) == "" || atxLevel(t) > 0 || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
				break
			}
		}
		under, _ := lines.at(i + 1)
		if j == i+2 && isSetextUnderline(text[under.Start:under.End]) {
			lvl := uint8(1)
			if strings.TrimSpace(text[under.Start:under.End])[0] == '-' {
				lvl = 2
			}
			md.addHeading(mdBlock{start: ln.Start, end: under.End, kind: blockHeading, level: lvl}, strings.TrimSpace(line))
		} else {
			kind := blockParagraph
			if isLineBlock(trimmed) {
				kind = blockLines
			}
			last, _ := lines.at(j - 1)
			md.add(mdBlock{start: ln.Start, end: last.End, kind: kind})
		}
		i = j
	}
	return md
}

// lineReader hands out the lines of segment.Lines one at a time, by
// index, holding those from the oldest still wanted (release) to the
// furthest read.
type lineReader struct {
	text  string
	lines []segment.Range // lines first, first+1, …
	first int
	pos   int // where the next line starts
	blank int // lines of white space alone just read
}

// at returns line k, which must not have been released; false past the
// last line. A line is final once the one after it is read: Lines joins
// a long run of blank lines into the line that starts it.
func (r *lineReader) at(k int) (segment.Range, bool) {
	for r.pos < len(r.text) && k+1 >= r.first+len(r.lines) {
		r.read()
	}
	if k-r.first < len(r.lines) {
		return r.lines[k-r.first], true
	}
	return segment.Range{}, false
}

// read reads the line at pos, as segment.Lines does.
func (r *lineReader) read() {
	text, start := r.text, r.pos
	j := strings.IndexByte(text[start:], '\n')
	if j < 0 {
		r.lines = append(r.lines, segment.Range{Start: start, End: len(text)})
		r.pos = len(text)
		return
	}
	end := start + j + 1
	r.pos = end
	if strings.TrimSpace(text[start:end]) != "" {
		r.blank = 0
	} else if r.blank++; r.blank > segment.MaxBlankLines && len(r.lines) > 0 {
		r.lines[len(r.lines)-1].End = end
		return
	}
	r.lines = append(r.lines, segment.Range{Start: start, End: end})
}

// release forgets the lines before k, now and then, keeping the last read.
func (r *lineReader) release(k int) {
	if drop := min(k-r.first, len(r.lines)-1); drop >= 1024 && 2*drop >= len(r.lines) {
		r.lines = r.lines[:copy(r.lines, r.lines[drop:])]
		r.first += drop
	}
}

func (md *markdownDoc) add(b mdBlock) { md.blocks = append(md.blocks, b) }

func (md *markdownDoc) addHeading(b mdBlock, title string) {
	md.blocks = append(md.blocks, b)
	md.titles = append(md.titles, title)
}

// atxLevel returns the level of an ATX heading line ("## Title"), or 0.
func atxLevel(line string) int {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 {
		return 0
	}
	if n < len(line) && line[n] != ' ' && line[n] != '\t' && line[n] != '\r' && line[n] != '\n' {
		return 0
	}
	return n
}

func isSetextUnderline(line string) bool {
	t := strings.TrimSpace(line)
	return t != "" && (strings.Trim(t, "=") == "" || strings.Trim(t, "-") == "" && len(t) >= 2)
}

// isLineBlock reports lines that start a list, a table or a block quote.
func isLineBlock(t string) bool {
	if strings.HasPrefix(t, "|") || strings.HasPrefix(t, ">") {
		return true
	}
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ' {
		return true
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}

// headingLevel returns the level that cuts before every heading of level h
// or higher (fewer #).
func (md *markdownDoc) headingLevel(h int) pack.Level {
	return func(text string, a, b int, dst []pack.Piece) []pack.Piece {
		return md.cutBefore(a, b, dst, func(i int) bool {
			// Not between a heading and the subheading right under it.
			bl := md.blocks[i]
			return bl.kind == blockHeading && int(bl.level) <= h && (i == 0 || md.blocks[i-1].kind != blockHeading)
		})
	}
}

// blockLevel cuts between blocks, but not after a heading: a heading and
// the block under it are one piece, so no chunk ends on a heading while
// text follows (lineLevel cuts such a piece after the block's first line or
// sentence).
func (md *markdownDoc) blockLevel(text string, a, b int, dst []pack.Piece) []pack.Piece {
	return md.cutBefore(a, b, dst, func(i int) bool { return i == 0 || md.blocks[i-1].kind != blockHeading })
}

func (md *markdownDoc) cutBefore(a, b int, dst []pack.Piece, at func(i int) bool) []pack.Piece {
	i := sort.Search(len(md.blocks), func(i int) bool { return md.blocks[i].start > a })
	pos := a
	for ; i < len(md.blocks) && md.blocks[i].start < b; i++ {
		if at(i) {
			dst = append(dst, pack.Piece{Start: pos, End: md.blocks[i].start})
			pos = md.blocks[i].start
		}
	}
	return append(dst, pack.Piece{Start: pos, End: b})
}

// lineLevel cuts a list, table, quote or code block between lines and a
// paragraph between sentences.
func (md *markdownDoc) lineLevel(text string, a, b int, dst []pack.Piece) []pack.Piece {
	return md.glued(text, a, b, dst, md.splitBlock)
}

// glued cuts [a, b) with split; when it starts with headings followed by
// a block, the block is cut and the headings join its first piece.
func (md *markdownDoc) glued(text string, a, b int, dst []pack.Piece, split func(text string, i, a, b int, dst []pack.Piece) []pack.Piece) []pack.Piece {
	i := sort.Search(len(md.blocks), func(i int) bool { return md.blocks[i].end > a })
	// Headings (and headings under headings) with the block that follows:
	// cut that block, and keep the headings with its first piece.
	j := i
	for j < len(md.blocks) && md.blocks[j].kind == blockHeading && md.blocks[j].end < b {
		j++
	}
	if j > i && j < len(md.blocks) && md.blocks[j].start < b {
		n := len(dst)
		dst = split(text, j, max(a, md.blocks[j].start), b, dst)
		if len(dst) > n {
			dst[n].Start = a
		}
		return dst
	}
	return split(text, i, a, b, dst)
}

// splitBlock cuts [a, b), which starts in block i, between the sentences
// of a paragraph or the lines of anything else.
func (md *markdownDoc) splitBlock(text string, i, a, b int, dst []pack.Piece) []pack.Piece {
	if i < len(md.blocks) && md.blocks[i].kind == blockParagraph {
		return pack.SplitSentences(text, a, b, dst)
	}
	return pack.SplitLines(text, a, b, dst)
}

// lineSentenceLevel cuts a single long line (a list item, a table row)
// between its sentences, headings kept with the first.
func (md *markdownDoc) lineSentenceLevel(text string, a, b int, dst []pack.Piece) []pack.Piece {
	return md.glued(text, a, b, dst, func(text string, _, a, b int, dst []pack.Piece) []pack.Piece {
		return pack.SplitSentences(text, a, b, dst)
	})
}

// annotate sets each chunk's heading path (Chunk.Headings): the titles
// of the headings whose sections contain the chunk's start, outermost
// first. The chunks of one section share one path: a new one is made only
// where the path changes. (A metadata map a chunk, with its path, took 15
// MB for the 41,000 chunks of 30 MB of mixed text.)
func (md *markdownDoc) annotate(chunks []gochunk.Chunk) {
	type open struct {
		level int
		title string
	}
	var stack []open
	var path []string // the current path; nil when it changed
	bi, hi := 0, 0    // the next block, and the next heading's title
	for ci := range chunks {
		start := chunks[ci].Start()
		for ; bi < len(md.blocks) && md.blocks[bi].start <= start; bi++ {
			bl := md.blocks[bi]
			if bl.kind != blockHeading {
				continue
			}
			for len(stack) > 0 && stack[len(stack)-1].level >= int(bl.level) {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, open{int(bl.level), md.titles[hi]})
			hi++
			path = nil
		}
		if len(stack) == 0 {
			continue
		}
		if path == nil {
			path = make([]string, len(stack))
			for i, o := range stack {
				path[i] = o.title
			}
		}
		chunks[ci].Headings = path
	}
}
