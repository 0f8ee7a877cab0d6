package ocr

import (
	"strings"
	"testing"
)

// glyph is a character drawn for decode's tests: n upright strokes of
// ink w columns wide (4 blank columns between them), then after blank
// columns. A space (r " ") draws nothing: the recogniser read one in the
// gap before the next glyph.
type glyph struct {
	r        string
	w, n     int
	after    int
	ownSteps bool // read over two steps, as a merged repeat is
}

// drawLine draws glyphs with ink height ink (in a crop 12 pixels
// taller) and makes the recogniser's output for them, one CTC step
// every 6 columns: each glyph read at the steps over its ink (two at
// least with ownSteps), a blank step between a character and its
// repeat.
func drawLine(t *testing.T, ink int, gs []glyph) (*Engine, []float32, int, int, crop, float64) {
	t.Helper()
	const step = 6
	keys := []string{}
	index := map[string]int{}
	for _, g := range gs {
		if _, ok := index[g.r]; !ok && g.r != " " {
			index[g.r] = len(keys) + 1
			keys = append(keys, g.r)
		}
	}
	keys = append(keys, " ")
	index[" "] = len(keys)
	type span struct{ class, t, last int }
	var spans []span
	x := 6
	var cols [][2]int
	prevLast, prevClass := -1, -1
	for _, g := range gs {
		x0 := x
		for k := range g.n {
			if k > 0 {
				x += 4
			}
			cols = append(cols, [2]int{x, x + g.w})
			x += g.w
		}
		x1 := max(x, x0+1)
		tt, last := x0/step, (x1-1)/step
		if g.ownSteps && last == tt {
			last = tt + 1
		}
		if tt <= prevLast {
			tt = prevLast + 1
		}
		if index[g.r] == prevClass && tt == prevLast+1 {
			tt++ // a blank step between a character and its repeat
		}
		last = max(last, tt)
		spans = append(spans, span{index[g.r], tt, last})
		prevLast, prevClass = last, index[g.r]
		x += g.after
	}
	w, h := x+12, ink+12
	img := &rgb{w: w, h: h, pix: make([]uint8, 3*w*h)}
	for i := range img.pix {
		img.pix[i] = 255
	}
	for _, c := range cols {
		for y := 6; y < 6+ink; y++ {
			for xx := c[0]; xx < c[1]; xx++ {
				o := 3 * (y*w + xx)
				img.pix[o], img.pix[o+1], img.pix[o+2] = 0, 0, 0
			}
		}
	}
	steps := max(w/step+1, prevLast+2)
	classes := len(keys) + 1
	probs := make([]float32, steps*classes)
	for s := range steps {
		probs[s*classes] = 0.9
	}
	for _, sp := range spans {
		for s := sp.t; s <= sp.last; s++ {
			probs[s*classes] = 0
			probs[s*classes+sp.class] = 0.95
		}
	}
	e := &Engine{keys: keys}
	c := crop{img: img, f: frame{o: Point{0, 0}, u: Point{1, 0}, v: Point{0, 1}}}
	return e, probs, steps, classes, c, step
}

func decodeGlyphs(t *testing.T, ink int, gs []glyph) string {
	t.Helper()
	e, probs, steps, classes, c, step := drawLine(t, ink, gs)
	l := e.decode(probs, steps, classes, c, step)
	if l == nil {
		t.Fatal("nothing read")
	}
	return l.Text
}

// wide is a letter of one stroke 10 columns wide, 3 blank after.
func wide(r string) glyph { return glyph{r: r, w: 10, n: 1, after: 3} }

func word(s string) []glyph {
	var gs []glyph
	for _, r := range s {
		gs = append(gs, wide(string(r)))
	}
	return gs
}

// TestMergedRepeats writes a thin character once for each stroke of ink
// its steps cover ("Fujii" read "Fuji": the two i's read over two steps
// with no blank between), and leaves alone a thin character of one
// stroke, two characters of a stroke each, and a line of too little ink to tell.
func TestMergedRepeats(t *testing.T) {
	thin := func(r string, n int, own bool) glyph { return glyph{r: r, w: 4, n: n, after: 4, ownSteps: own} }
	fujii := append(word("Fu"), thin("j", 1, false), thin("i", 2, true), thin(",", 1, false))
	if got := decodeGlyphs(t, 28, fujii); got != "Fujii," {
		t.Errorf("Fujii read %q, want %q", got, "Fujii,")
	}
	roman := append(word("W"), thin("I", 2, true), thin("I", 1, false))
	if got := decodeGlyphs(t, 28, roman); got != "WIII" {
		t.Errorf("WIII read %q, want %q", got, "WIII")
	}
	for _, c := range []struct {
		name string
		ink  int
		gs   []glyph
		want string
	}{
		{"one stroke over two steps", 28, append(word("Fu"), thin("j", 1, false), thin("i", 1, true), thin(",", 1, false)), "Fuji,"},
		{"two strokes, two characters", 28, append(word("wi"), thin("l", 1, false), thin("l", 1, false)), "will"},
		{"too little ink", 20, append(word("Fu"), thin("j", 1, false), thin("i", 2, true), thin(",", 1, false)), "Fuji,"},
	} {
		if got := decodeGlyphs(t, c.ink, c.gs); got != c.want {
			t.Errorf("%s: read %q, want %q", c.name, got, c.want)
		}
	}
}

// TestDigitGaps keeps a number whole across the wide gap between two
// 1's ("2011" was read "201 1" in a line without spaces).
func TestDigitGaps(t *testing.T) {
	gs := []glyph{wide("2"), wide("0"), {r: "1", w: 4, n: 1, after: 9}, {r: "1", w: 4, n: 1, after: 3}}
	if got := decodeGlyphs(t, 28, gs); got != "2011" {
		t.Errorf("read %q, want %q", got, "2011")
	}
	// Letters as far apart are two words.
	gs = []glyph{wide("a"), {r: "s", w: 10, n: 1, after: 9}, wide("t"), wide("o")}
	if got := decodeGlyphs(t, 28, gs); got != "as to" {
		t.Errorf("read %q, want %q", got, "as to")
	}
}

// TestLineSpaces writes a space the recogniser missed where the gap is
// as wide as the spaces it read in the same line, and none inside words
// whose letters change case (McDonald, iPhone, eBay).
func TestLineSpaces(t *testing.T) {
	var gs []glyph
	for i, w := range strings.Fields("McDonald iPhone eBay asthe book") {
		if i > 0 && w != "book" {
			gs[len(gs)-1].after = 8
			gs = append(gs, glyph{r: " "})
		}
		for _, r := range w {
			gs = append(gs, wide(string(r)))
		}
		if w == "asthe" {
			gs[len(gs)-4].after = 8 // "as the", its space missed
		}
	}
	gs[len(gs)-5].after = 8 // "the book", its space missed too
	if got, want := decodeGlyphs(t, 28, gs), "McDonald iPhone eBay as the book"; got != want {
		t.Errorf("read %q, want %q", got, want)
	}
}

// CJK letters side by side are no word gaps: in a line mixing them with
// Latin words, their narrow gaps do not lower the width at which a gap
// between Latin letters counts as a missed space ("of" stays whole).
func TestLineSpacesCJK(t *testing.T) {
	var gs []glyph
	cjk := func(s string) {
		for _, r := range s {
			g := wide(string(r))
			g.after = 5
			gs = append(gs, g)
		}
	}
	latin := func(s string) {
		gs = append(gs, word(s)...)
	}
	space := func() {
		gs[len(gs)-1].after = 9
		gs = append(gs, glyph{r: " "})
	}
	cjk("漢字漢字漢字")
	space()
	latin("one")
	space()
	latin("of")
	gs[len(gs)-2].after = 8 // a wide pair inside a word
	space()
	latin("two")
	space()
	latin("three")
	space()
	cjk("漢字漢字漢字")
	if got, want := decodeGlyphs(t, 28, gs), "漢字漢字漢字 one of two three 漢字漢字漢字"; got != want {
		t.Errorf("read %q, want %q", got, want)
	}
}
