package htmldoc

import (
	"fmt"

	"github.com/gochunk/gochunk/internal/mdtable"
)

// ErrTooLarge reports a document that expands beyond the reader's bounds
// (Limits): its error names the bound and its value.
var ErrTooLarge = mdtable.ErrTooLarge

// Limits bound what a document expands to when it is read, in this
// package and in package officedoc (whose Limits is this type). A zero
// field means its default (DefaultLimits). Each bound is checked while
// the document is read, before the memory it guards is spent, and
// passing one is an error wrapping ErrTooLarge that names it.
type Limits struct {
	// MaxTableCells bounds the cells of one table as written, padding
	// included (default 4,194,304). Rows and columns without text are
	// left out, and a table is padded into a grid only while the grid
	// holds at most four times its cells; a sparser one is written row by
	// row, so a table's size follows the cells its source holds.
	MaxTableCells int64
	// MaxCells bounds the cells of all of a document's tables (default
	// 16,777,216).
	MaxCells int64
	// MaxText bounds the bytes of text read from one document, whatever
	// its size (default 128 MiB).
	MaxText int64
	// TextRatio bounds the text read from a document of n bytes to
	// TextRatio × n bytes (default 100), and MinText (default 1 MiB) is
	// the text any document may have: the bound is
	// min(max(TextRatio × n, MinText), MaxText).
	TextRatio int64
	MinText   int64
	// MaxAttachments bounds the attachments of an e-mail or a mailbox
	// returned as documents of their own (package officedoc; default
	// 1,000): those after it are named in the message, not read, and a
	// warning says so.
	MaxAttachments int
}

// DefaultLimits returns the default bounds.
func DefaultLimits() Limits {
	return Limits{MaxTableCells: 1 << 22, MaxCells: 1 << 24, MaxText: 128 << 20, TextRatio: 100, MinText: 1 << 20, MaxAttachments: 1000}
}

// WithDefaults returns l with its zero (or negative) fields set to their
// defaults.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	set := func(v *int64, def int64) {
		if *v <= 0 {
			*v = def
		}
	}
	set(&l.MaxTableCells, d.MaxTableCells)
	set(&l.MaxCells, d.MaxCells)
	set(&l.MaxText, d.MaxText)
	set(&l.TextRatio, d.TextRatio)
	set(&l.MinText, d.MinText)
	if l.MaxAttachments <= 0 {
		l.MaxAttachments = d.MaxAttachments
	}
	return l
}

// TextLimit returns the most bytes of text read from a document of n
// bytes: min(max(TextRatio × n, MinText), MaxText).
func (l Limits) TextLimit(n int64) int64 {
	l = l.WithDefaults()
	ratio := l.TextRatio * max(n, 0)
	if n > 0 && ratio/n != l.TextRatio { // overflow
		return l.MaxText
	}
	return min(max(ratio, l.MinText), l.MaxText)
}

// Budget counts what the readers of one document produce against its
// Limits: the cells of its tables and the bytes of its text. Readers of
// the parts of one document (an EPUB's chapters, an e-mail's bodies and
// attachments) share one Budget. It is not safe for concurrent use.
type Budget struct {
	lim         Limits
	size        int64
	maxText     int64
	why         string // what set maxText below the Limits' bound, if anything did
	text, cells int64
}

// NewBudget returns the budget of a document of size bytes under lim
// (zero fields: their defaults).
func NewBudget(lim Limits, size int64) *Budget {
	lim = lim.WithDefaults()
	return &Budget{lim: lim, size: size, maxText: lim.TextLimit(size)}
}

// Limits returns the bounds the budget counts against, defaults set.
func (b *Budget) Limits() Limits { return b.lim }

// Used returns the bytes of text and the table cells counted so far.
func (b *Budget) Used() (text, cells int64) { return b.text, b.cells }

// CapText lowers the bound on the budget's text to max bytes (when that
// is lower than it is), why saying what sets it, for the error.
func (b *Budget) CapText(max int64, why string) {
	if max < b.maxText {
		b.maxText, b.why = max, why
	}
}

// Text counts n more bytes of text.
func (b *Budget) Text(n int64) error {
	if b.text += n; b.text > b.maxText && b.why != "" {
		return fmt.Errorf("%w: more than %d bytes of text, %s", ErrTooLarge, b.maxText, b.why)
	}
	if b.text > b.maxText {
		return fmt.Errorf("%w: more than %d bytes of text, the bound for a file of %d bytes (min(max(%d × its size, %d), %d): the reader limits' TextRatio, MinText and MaxText)",
			ErrTooLarge, b.maxText, b.size, b.lim.TextRatio, b.lim.MinText, b.lim.MaxText)
	}
	return nil
}

// Cells counts n more table cells.
func (b *Budget) Cells(n int64) error {
	if b.cells += n; b.cells > b.lim.MaxCells {
		return fmt.Errorf("%w: more than %d table cells in the document (the reader limits' MaxCells)", ErrTooLarge, b.lim.MaxCells)
	}
	return nil
}

// TableCells returns the most cells one table may hold.
func (b *Budget) TableCells() int64 { return b.lim.MaxTableCells }
