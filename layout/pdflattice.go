package layout

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// Ruled tables ("lattice", as Camelot and pdfplumber's lines strategy
// call them) are found from the lines a page draws before its text is
// looked at: the horizontal and vertical rules (stroked lines, thin
// filled rectangles, the edges of rectangles) are snapped onto common
// positions and joined where they continue one another; rules that cross
// or touch make a grid, and the grid's slots that no rule parts make one
// cell, so that a cell spanning columns or rows (colspan, rowspan) is one
// cell. Words fall into the cell their box's centre is in, so a cell of
// several lines stays one cell. A cell is written in the first row and
// column it covers, the others it spans left empty, as the HTML reader
// writes colspan and rowspan. Pages or parts of pages without rules are
// left to the text's alignment (findTables).

const (
	ruleThin    = 3.0 // points: a filled rectangle this thin is a rule
	ruleMinLen  = 3.0 // points: shorter rules are marks, not rules
	ruleSnap    = 3.0 // points: rules this close across are at one position
	ruleJoin    = 3.0 // points: rules this close along continue one another
	ruleTouch   = 3.0 // points: a rule ending this close to another meets it
	maxPathSegs = 400 // segments read from one path
	maxPageSegs = 8000
	maxRules    = 4000 // rules of a page kept for finding grids
	// maxRuleObjects bounds the objects looked through for rules on a
	// page (a map or a drawing draws tens of thousands).
	maxRuleObjects = 5000
	// maxInstanceHandles bounds the page objects and path segments read
	// in one PDFium instance: go-pdfium keeps a handle of each (a few
	// hundred bytes) until the instance is closed, so an instance that
	// has read this many is replaced by a fresh one.
	maxInstanceHandles = 50_000
	// A grid's cells hold prose, not a table, when they hold more than
	// this many words on average (a page laid out in ruled boxes).
	latticeMaxWords = 60.0
	// Words of one line of a cell standing this many ems apart are in
	// columns of their own.
	latticeColumnGap = 2.0
	// A grid is no table when one word in this many lies across its
	// rules (rules of a figure, or a frame drawn over text).
	latticeCrossed = 20
	// A grid's row whose cells hold this many lines or more, each line
	// beside a line of another cell, is that many rows without rules
	// between them (a table ruled only above and below its body).
	latticeBands = 3
	// Lines of a cell standing this many line heights apart or more are
	// rows of their own, whatever case they start in (a paragraph's
	// lines stand 1.1 to 1.3 line heights apart).
	latticeLinePitch = 1.7
)

// edge is a horizontal rule (pos its y, lo to hi its x) or a vertical one
// (pos its x, lo to hi its y), on the displayed page, y down.
type edge struct{ pos, lo, hi float64 }

// pageRules are a page's horizontal and vertical rules, and the top and
// bottom edges of the filled rectangles read from paths of several parts
// (a table's shaded rows): those are for tables between rules
// (ruleTables) only, as the ruled grids were found without them.
type pageRules struct{ h, v, fills []edge }

// matrix is a PDF transformation matrix [a b c d e f].
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// then returns m followed by n.
func (m matrix) then(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func (m matrix) apply(x, y float64) (float64, float64) {
	return m[0]*x + m[2]*y + m[4], m[1]*x + m[3]*y + m[5]
}

// ruleReader collects a page's rules from PDFium's page objects.
type ruleReader struct {
	inst    pdfium.Pdfium
	rot     int
	w, h    float64
	objects int // objects looked at, at most maxRuleObjects
	segs    int // path segments read, at most maxPageSegs
	handles int // handles go-pdfium made: objects and segments
	rules   pageRules
}

// readRules returns the rules a page draws, on the displayed page (rot
// quarter turns, w by h points): paths' straight horizontal and vertical
// lines, stroked or filled thin, and rectangles' edges, within forms too.
// It reads at most maxRuleObjects objects and maxPageSegs path segments,
// and returns how many handles go-pdfium made for them.
func readRules(inst pdfium.Pdfium, page requests.Page, rot int, w, h float64) (pageRules, int) {
	n, err := inst.FPDFPage_CountObjects(&requests.FPDFPage_CountObjects{Page: page})
	if err != nil || n.Count == 0 {
		return pageRules{}, 0
	}
	r := ruleReader{inst: inst, rot: rot, w: w, h: h}
	for i := 0; i < n.Count && r.objects < maxRuleObjects; i++ {
		o, err := inst.FPDFPage_GetObject(&requests.FPDFPage_GetObject{Page: page, Index: i})
		if err != nil {
			continue
		}
		r.object(o.PageObject, identity, false, 0)
	}
	return r.rules, r.objects + r.segs
}

// object reads an object's rules; m maps its space to the page's (the
// forms it is drawn in), inForm whether it is in one.
func (r *ruleReader) object(o references.FPDF_PAGEOBJECT, m matrix, inForm bool, depth int) {
	r.objects++
	t, err := r.inst.FPDFPageObj_GetType(&requests.FPDFPageObj_GetType{PageObject: o})
	if err != nil {
		return
	}
	switch t.Type {
	case enums.FPDF_PAGEOBJ_PATH:
		r.path(o, m, inForm)
	case enums.FPDF_PAGEOBJ_FORM:
		if depth >= 4 {
			return
		}
		fm, err := r.inst.FPDFPageObj_GetMatrix(&requests.FPDFPageObj_GetMatrix{PageObject: o})
		if err != nil {
			return
		}
		mm := matrix{float64(fm.Matrix.A), float64(fm.Matrix.B), float64(fm.Matrix.C), float64(fm.Matrix.D), float64(fm.Matrix.E), float64(fm.Matrix.F)}.then(m)
		n, err := r.inst.FPDFFormObj_CountObjects(&requests.FPDFFormObj_CountObjects{PageObject: o})
		if err != nil {
			return
		}
		for i := 0; i < n.Count && r.objects < maxRuleObjects; i++ {
			c, err := r.inst.FPDFFormObj_GetObject(&requests.FPDFFormObj_GetObject{PageObject: o, Index: uint64(i)})
			if err != nil {
				continue
			}
			r.object(c.PageObject, mm, true, depth+1)
		}
	}
}

// path reads a path's rules: a path whose box is thin is a rule (most
// PDFs draw a rule as a line or a thin rectangle, one a path); another
// path's straight lines, read segment by segment, are.
func (r *ruleReader) path(o references.FPDF_PAGEOBJECT, m matrix, inForm bool) {
	b, err := r.inst.FPDFPageObj_GetBounds(&requests.FPDFPageObj_GetBounds{PageObject: o})
	if err != nil {
		return
	}
	// The bounds are in the space the object is drawn in: the page's, or
	// its form's.
	x0, y0 := m.apply(float64(b.Left), float64(b.Bottom))
	x1, y1 := m.apply(float64(b.Right), float64(b.Top))
	if !inForm || m[1] == 0 && m[2] == 0 {
		if r.box(x0, y0, x1, y1, false) {
			return
		}
	}
	n, err := r.inst.FPDFPath_CountSegments(&requests.FPDFPath_CountSegments{PageObject: o})
	if err != nil || n.Count < 2 || n.Count > maxPathSegs || r.segs+n.Count > maxPageSegs {
		return
	}
	r.segs += n.Count
	mode, err := r.inst.FPDFPath_GetDrawMode(&requests.FPDFPath_GetDrawMode{PageObject: o})
	if err != nil {
		return
	}
	pm, err := r.inst.FPDFPageObj_GetMatrix(&requests.FPDFPageObj_GetMatrix{PageObject: o})
	if err != nil {
		return
	}
	mm := matrix{float64(pm.Matrix.A), float64(pm.Matrix.B), float64(pm.Matrix.C), float64(pm.Matrix.D), float64(pm.Matrix.E), float64(pm.Matrix.F)}.then(m)
	var sub [][2]float64 // the subpath's points, on the page
	straight := true     // the subpath has no curve
	flush := func() {
		r.subpath(sub, straight, mode.Stroke)
		sub, straight = sub[:0], true
	}
	for i := range n.Count {
		s, err := r.inst.FPDFPath_GetPathSegment(&requests.FPDFPath_GetPathSegment{PageObject: o, Index: i})
		if err != nil {
			return
		}
		st, err := r.inst.FPDFPathSegment_GetType(&requests.FPDFPathSegment_GetType{PathSegment: s.PathSegment})
		if err != nil {
			return
		}
		pt, err := r.inst.FPDFPathSegment_GetPoint(&requests.FPDFPathSegment_GetPoint{PathSegment: s.PathSegment})
		if err != nil {
			return
		}
		x, y := mm.apply(float64(pt.X), float64(pt.Y))
		switch st.Type {
		case enums.FPDF_SEGMENT_MOVETO:
			flush()
		case enums.FPDF_SEGMENT_BEZIERTO:
			straight = false
			if len(sub) > 0 && mode.Stroke {
				sub = append(sub, [2]float64{math.NaN(), math.NaN()}) // no rule through a curve
			}
		}
		sub = append(sub, [2]float64{x, y})
		if cl, err := r.inst.FPDFPathSegment_GetClose(&requests.FPDFPathSegment_GetClose{PathSegment: s.PathSegment}); err == nil && cl.IsClose && len(sub) > 0 {
			sub = append(sub, sub[0])
		}
	}
	flush()
}

// subpath takes a subpath's rules: a rectangle's (a thin one is a rule,
// another's edges are four), or, stroked, its horizontal and vertical
// lines.
func (r *ruleReader) subpath(pts [][2]float64, straight, stroke bool) {
	if len(pts) < 2 {
		return
	}
	// A rectangle PDFium closes back to its start has its first point
	// twice at its end ("re": five points, and the close): once is
	// enough.
	for len(pts) > 2 && samePoint(pts[len(pts)-1], pts[len(pts)-2]) {
		pts = pts[:len(pts)-1]
	}
	if straight && (len(pts) == 4 || len(pts) == 5) {
		x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		rect := true
		for i, p := range pts {
			x0, y0, x1, y1 = math.Min(x0, p[0]), math.Min(y0, p[1]), math.Max(x1, p[0]), math.Max(y1, p[1])
			if i > 0 {
				q := pts[i-1]
				rect = rect && (math.Abs(p[0]-q[0]) < 0.01 || math.Abs(p[1]-q[1]) < 0.01)
			}
		}
		switch {
		case rect && stroke:
			r.box(x0, y0, x1, y1, true)
			return
		case rect:
			r.fill(x0, y0, x1, y1)
			return
		}
	}
	if !stroke {
		return
	}
	for i := 1; i < len(pts); i++ {
		r.line(pts[i-1][0], pts[i-1][1], pts[i][0], pts[i][1])
	}
}

// fill takes a filled rectangle of the page's PDF space: its top and
// bottom edges (its middle, thin) go to the rules of shaded rows.
func (r *ruleReader) fill(x0, y0, x1, y1 float64) {
	a, b := display(r.rot, r.w, r.h, x0, y0)
	c, d := display(r.rot, r.w, r.h, x1, y1)
	l, t, rt, bt := math.Min(a, c), math.Min(b, d), math.Max(a, c), math.Max(b, d)
	finite := func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
	if !finite(l+t+rt+bt) || rt-l < ruleMinLen || len(r.rules.fills) >= maxRules {
		return
	}
	if bt-t <= ruleThin {
		r.rules.fills = append(r.rules.fills, edge{(t + bt) / 2, l, rt})
		return
	}
	r.rules.fills = append(r.rules.fills, edge{t, l, rt}, edge{bt, l, rt})
}

func samePoint(a, b [2]float64) bool {
	return math.Abs(a[0]-b[0]) < 0.01 && math.Abs(a[1]-b[1]) < 0.01
}

// box takes a rectangle of the page's PDF space: a thin one is a rule
// and true; another's edges are rules where edges is set (a rectangle
// read as such, not a path's bounds), and false.
func (r *ruleReader) box(x0, y0, x1, y1 float64, edges bool) bool {
	a, b := display(r.rot, r.w, r.h, x0, y0)
	c, d := display(r.rot, r.w, r.h, x1, y1)
	l, t, rt, bt := math.Min(a, c), math.Min(b, d), math.Max(a, c), math.Max(b, d)
	switch {
	case math.IsNaN(l+t+rt+bt) || math.IsInf(l+t+rt+bt, 0):
		return true
	case bt-t <= ruleThin && rt-l <= ruleThin:
		return true // a dot
	case bt-t <= ruleThin:
		r.add(false, (t+bt)/2, l, rt)
		return true
	case rt-l <= ruleThin:
		r.add(true, (l+rt)/2, t, bt)
		return true
	}
	if edges {
		r.add(false, t, l, rt)
		r.add(false, bt, l, rt)
		r.add(true, l, t, bt)
		r.add(true, rt, t, bt)
	}
	return false
}

// line takes a straight line of the page's PDF space, when it is
// horizontal or vertical on the displayed page.
func (r *ruleReader) line(x0, y0, x1, y1 float64) {
	if math.IsNaN(x0 + y0 + x1 + y1) {
		return
	}
	a, b := display(r.rot, r.w, r.h, x0, y0)
	c, d := display(r.rot, r.w, r.h, x1, y1)
	switch {
	case math.Abs(b-d) < 0.5:
		r.add(false, (b+d)/2, math.Min(a, c), math.Max(a, c))
	case math.Abs(a-c) < 0.5:
		r.add(true, (a+c)/2, math.Min(b, d), math.Max(b, d))
	}
}

func (r *ruleReader) add(vertical bool, pos, lo, hi float64) {
	finite := func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
	if !finite(pos) || !finite(lo) || !finite(hi) || hi-lo < ruleMinLen || len(r.rules.h)+len(r.rules.v) >= maxRules {
		return
	}
	if vertical {
		r.rules.v = append(r.rules.v, edge{pos, lo, hi})
	} else {
		r.rules.h = append(r.rules.h, edge{pos, lo, hi})
	}
}

// mergeEdges snaps rules at about one position onto their mean and joins
// those that continue one another.
func mergeEdges(es []edge) []edge {
	if len(es) == 0 {
		return nil
	}
	es = append([]edge(nil), es...)
	sort.Slice(es, func(a, b int) bool { return es[a].pos < es[b].pos })
	var out []edge
	for i := 0; i < len(es); {
		j, sum := i+1, es[i].pos
		for j < len(es) && es[j].pos-es[j-1].pos <= ruleSnap && es[j].pos-es[i].pos <= 2*ruleSnap {
			sum += es[j].pos
			j++
		}
		pos := sum / float64(j-i)
		group := es[i:j]
		sort.Slice(group, func(a, b int) bool { return group[a].lo < group[b].lo })
		cur := edge{pos, group[0].lo, group[0].hi}
		for _, e := range group[1:] {
			if e.lo <= cur.hi+ruleJoin {
				cur.hi = math.Max(cur.hi, e.hi)
				continue
			}
			out = append(out, cur)
			cur = edge{pos, e.lo, e.hi}
		}
		out = append(out, cur)
		i = j
	}
	return out
}

// grid is a ruled table's frame: its columns' and rows' edges, and which
// slot (row, column) belongs to which cell.
type grid struct {
	xs, ys []float64
	cell   []int // by slot r*(len(xs)-1)+c: the cell's first slot
}

func (g *grid) cols() int { return len(g.xs) - 1 }

// slot returns the slot a point is in, or false outside the grid.
func (g *grid) slot(x, y float64) (int, bool) {
	if x < g.xs[0] || x > g.xs[len(g.xs)-1] || y < g.ys[0] || y > g.ys[len(g.ys)-1] {
		return 0, false
	}
	c := max(sort.SearchFloat64s(g.xs, x)-1, 0)
	r := max(sort.SearchFloat64s(g.ys, y)-1, 0)
	return r*g.cols() + min(c, g.cols()-1), true
}

// findGrids returns the grids the rules make: rules that cross or touch,
// taken together, with at least two rows and two columns of slots.
func findGrids(rules pageRules) []*grid {
	h, v := mergeEdges(rules.h), mergeEdges(rules.v)
	if len(h) < 2 || len(v) < 1 {
		return nil
	}
	// Rules that meet are of one grid.
	sets := newUnionFind(len(h) + len(v))
	for i, a := range h {
		for j, b := range v {
			if meets(a, b) {
				sets.union(i, len(h)+j)
			}
		}
	}
	groups := map[int][]int{}
	var roots []int
	for i := range sets {
		k := sets.find(i)
		if _, ok := groups[k]; !ok {
			roots = append(roots, k)
		}
		groups[k] = append(groups[k], i)
	}
	var out []*grid
	for _, k := range roots {
		var gh, gv []edge
		for _, i := range groups[k] {
			if i < len(h) {
				gh = append(gh, h[i])
			} else {
				gv = append(gv, v[i-len(h)])
			}
		}
		if len(gh) < 2 || len(gv) < 1 {
			continue
		}
		if g := makeGrid(gh, gv); g != nil {
			out = append(out, g)
		}
	}
	return out
}

// meets reports whether a horizontal and a vertical rule cross or touch.
func meets(a, b edge) bool {
	return b.pos >= a.lo-ruleTouch && b.pos <= a.hi+ruleTouch && a.pos >= b.lo-ruleTouch && a.pos <= b.hi+ruleTouch
}

// makeGrid lays out a grid from its rules: columns at its vertical rules'
// positions, rows at its horizontal ones', the grid's ends where its
// rules end (a table without side borders ends where its horizontal rules
// do); slots not parted by a rule are one cell.
func makeGrid(h, v []edge) *grid {
	x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	var xs, ys []float64
	for _, e := range h {
		x0, x1 = math.Min(x0, e.lo), math.Max(x1, e.hi)
		ys = append(ys, e.pos)
	}
	for _, e := range v {
		y0, y1 = math.Min(y0, e.lo), math.Max(y1, e.hi)
		xs = append(xs, e.pos)
	}
	xs = positions(append(xs, x0, x1))
	ys = positions(append(ys, y0, y1))
	if len(xs) < 3 || len(ys) < 3 {
		return nil // one column or one row: a box, not a table
	}
	g := &grid{xs: xs, ys: ys}
	nc, nr := len(xs)-1, len(ys)-1
	if nc*nr > 1<<16 {
		return nil
	}
	// The rules at each column's and row's edge, for telling which slots
	// they part.
	at := func(es []edge, ps []float64) [][]edge {
		out := make([][]edge, len(ps))
		for _, e := range es {
			k := sort.SearchFloat64s(ps, e.pos-ruleSnap)
			for ; k < len(ps) && ps[k] <= e.pos+ruleSnap; k++ {
				out[k] = append(out[k], e)
			}
		}
		return out
	}
	vAt, hAt := at(v, xs), at(h, ys)
	// covered reports whether a rule of es covers lo to hi (its middle,
	// give or take the rules' thickness).
	covered := func(es []edge, lo, hi float64) bool {
		for _, e := range es {
			if e.lo <= lo+ruleTouch && e.hi >= hi-ruleTouch {
				return true
			}
		}
		return false
	}
	sets := newUnionFind(nc * nr)
	for r := range nr {
		for c := range nc {
			if c+1 < nc && !covered(vAt[c+1], ys[r], ys[r+1]) {
				sets.union(r*nc+c, r*nc+c+1)
			}
			if r+1 < nr && !covered(hAt[r+1], xs[c], xs[c+1]) {
				sets.union(r*nc+c, (r+1)*nc+c)
			}
		}
	}
	g.cell = make([]int, len(sets))
	for i := range sets {
		g.cell[i] = sets.find(i)
	}
	return g
}

// unionFind is a disjoint-set forest over 0 to n-1; a set's root is its
// smallest member.
type unionFind []int

// newUnionFind returns n sets of one member each.
func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for i := range u {
		u[i] = i
	}
	return u
}

// find returns the root of i's set, halving the path to it.
func (u unionFind) find(i int) int {
	for u[i] != i {
		u[i] = u[u[i]]
		i = u[i]
	}
	return i
}

// union joins a's and b's sets under the smaller root.
func (u unionFind) union(a, b int) {
	ra, rb := u.find(a), u.find(b)
	if ra != rb {
		u[max(ra, rb)] = min(ra, rb)
	}
}

// positions sorts ps and merges those within ruleSnap of each other.
func positions(ps []float64) []float64 {
	sort.Float64s(ps)
	var out []float64
	for _, p := range ps {
		if n := len(out); n > 0 && p-out[n-1] <= ruleSnap {
			continue
		}
		out = append(out, p)
	}
	return out
}

// cellWord is a word placed in a ruled table's cell.
type cellWord struct {
	y, h, x, x1 float64 // its line's middle and height, its left and right
	size        float64 // its line's font size
	text        string
	glued       bool // a piece of the word before it (splitCuts)
}

// latticeTables takes the ruled tables out of a page's lines: words in a
// grid's cells make its table; the lines, less those words, are returned.
func latticeTables(lines []pdfLine, rules pageRules) ([]block, []pdfLine) {
	if len(rules.v) == 0 || len(rules.h) < 2 || len(lines) == 0 {
		return nil, lines
	}
	grids := findGrids(rules)
	if len(grids) == 0 {
		return nil, lines
	}
	// A word falls into the smallest grid it is in (a table inside a
	// ruled frame is its own).
	area := func(g *grid) float64 { return (g.xs[len(g.xs)-1] - g.xs[0]) * (g.ys[len(g.ys)-1] - g.ys[0]) }
	sort.SliceStable(grids, func(a, b int) bool { return area(grids[a]) < area(grids[b]) })
	type place struct{ grid, slot int }
	where := make([][]place, len(lines)) // by line, by word; grid -1 outside
	words := make([]map[int][]cellWord, len(grids))
	sizes := make([]float64, len(grids))
	counts := make([]int, len(grids))
	crossed := make([]int, len(grids)) // words across a rule
	for k, l := range lines {
		if len(l.boxes) != len(l.words) {
			continue
		}
		where[k] = make([]place, len(l.words))
		y := (l.y0 + l.y1) / 2
		for i, b := range l.boxes {
			where[k][i] = place{-1, 0}
			x := (b[0] + b[1]) / 2
			for gi, g := range grids {
				if s, ok := g.slot(x, y); ok {
					if words[gi] == nil {
						words[gi] = map[int][]cellWord{}
					}
					c := g.cell[s]
					words[gi][c] = append(words[gi][c], cellWord{y: y, h: l.y1 - l.y0, x: b[0], x1: b[1], size: l.size, text: l.words[i], glued: l.gluedAt(i)})
					where[k][i] = place{gi, c}
					sizes[gi] += l.size
					counts[gi]++
					// A word across one of the grid's rules: the rules
					// are not the cells' borders.
					if a, ok := g.slot(b[0]+1, y); ok {
						if z, ok := g.slot(b[1]-1, y); ok && g.cell[a] != g.cell[z] {
							crossed[gi]++
						}
					}
					break
				}
			}
		}
	}
	var out []block
	kept := make([]bool, len(grids))
	for gi, g := range grids {
		if crossed[gi] > 0 && crossed[gi]*latticeCrossed >= counts[gi] {
			continue
		}
		if b, ok := gridTable(g, words[gi]); ok {
			b.lineHeight = sizes[gi] / float64(counts[gi])
			out = append(out, b)
			kept[gi] = true
		}
	}
	if len(out) == 0 {
		return nil, lines
	}
	// The lines less the tables' words.
	var rest []pdfLine
	for k, l := range lines {
		if where[k] == nil {
			rest = append(rest, l)
			continue
		}
		var nl pdfLine
		for i, p := range where[k] {
			if p.grid >= 0 && kept[p.grid] {
				continue
			}
			b := l.boxes[i]
			if len(nl.words) == 0 {
				nl = pdfLine{x0: b[0], y0: l.y0, x1: b[1], y1: l.y1, size: l.size}
			}
			nl.x0, nl.x1 = math.Min(nl.x0, b[0]), math.Max(nl.x1, b[1])
			nl.addWord(l, i, i > 0 && !(where[k][i-1].grid >= 0 && kept[where[k][i-1].grid]))
		}
		if len(nl.words) == len(l.words) {
			rest = append(rest, l)
		} else if len(nl.words) > 0 {
			rest = append(rest, nl)
		}
	}
	return out, rest
}

// gridTable makes a grid's table of the words in its cells, or reports
// that it is none: fewer than two rows or two columns hold text, or its
// cells hold prose.
func gridTable(g *grid, cells map[int][]cellWord) (block, bool) {
	if len(cells) < 3 {
		return block{}, false
	}
	nc := g.cols()
	nr := len(g.ys) - 1
	rows := map[int]bool{}
	cols := map[int]bool{}
	words := 0
	for c, ws := range cells {
		rows[c/nc] = true
		cols[c%nc] = true
		words += len(ws)
	}
	if len(rows) < 2 || len(cols) < 2 || float64(words)/float64(len(cells)) > latticeMaxWords {
		return block{}, false
	}
	// A ruled frame around a page's parts (an invoice's boxes) is no
	// table: its cells hold columns of their own, lines whose words stand
	// apart as a table's cells do.
	split := 0
	for _, ws := range cells {
		for _, line := range cellLines(ws) {
			for i := 1; i < len(line); i++ {
				if line[i].x-line[i-1].x1 > latticeColumnGap*line[i].size {
					split++
					break
				}
			}
		}
	}
	if split >= 2 {
		return block{}, false
	}
	b := block{x0: g.xs[0], y0: g.ys[0], x1: g.xs[nc], y1: g.ys[nr]}
	for r := range nr {
		if !rows[r] {
			continue
		}
		for _, row := range gridRows(g, cells, r) {
			b.table = append(b.table, row)
			b.lines = append(b.lines, rowText(row))
		}
	}
	return b, true
}

// gridRows returns the rows of a grid's row r: one row of its cells'
// text, or, where its cells' lines stand beside one another band by band
// (latticeBands bands or more, each holding lines of two cells or more,
// no line going on from the one above in lower case, close under it), a row for each
// band: the rows of a table with no rules between them.
func gridRows(g *grid, cells map[int][]cellWord, r int) [][]string {
	nc := g.cols()
	row := make([]string, nc)
	type cellLine struct {
		col int
		y   float64
		h   float64
		ws  []cellWord
	}
	var lines []cellLine
	bandable := true
	for c := range nc {
		ws, ok := cells[r*nc+c]
		if !ok {
			continue
		}
		row[c] = cellText(ws)
		// A cell spanning rows stays in the first.
		spans := r+1 < len(g.ys)-1 && g.cell[(r+1)*nc+c] == r*nc+c
		cl := cellLines(ws)
		for i, l := range cl {
			// A line starting in lower case goes on from the one above
			// when it stands as close under it as a paragraph's lines
			// do; further down it is a row of its own (a table ruled
			// only down its columns, its rows set apart).
			if i > 0 && startsLower(l[0].text) && l[0].y-cl[i-1][0].y < latticeLinePitch*math.Max(l[0].h, cl[i-1][0].h) {
				bandable = false
			}
			if !spans {
				lines = append(lines, cellLine{c, l[0].y, l[0].h, l})
			}
		}
	}
	if !bandable || len(lines) < 2*latticeBands {
		return [][]string{row}
	}
	sort.SliceStable(lines, func(a, b int) bool { return lines[a].y < lines[b].y })
	var bands [][]cellLine
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && lines[j].y-lines[i].y < 0.5*math.Max(lines[i].h, lines[j].h) {
			j++
		}
		band := lines[i:j]
		seen := map[int]bool{}
		for _, l := range band {
			if seen[l.col] {
				return [][]string{row} // two lines of a cell on one band
			}
			seen[l.col] = true
		}
		if len(band) < 2 {
			return [][]string{row}
		}
		bands = append(bands, band)
		i = j
	}
	if len(bands) < latticeBands {
		return [][]string{row}
	}
	out := make([][]string, len(bands))
	for k, band := range bands {
		out[k] = make([]string, nc)
		for _, l := range band {
			out[k][l.col] = cellText(l.ws)
		}
	}
	// The cells spanning rows, in the first band's row.
	for c := range nc {
		if r+1 < len(g.ys)-1 && g.cell[(r+1)*nc+c] == r*nc+c && row[c] != "" {
			out[0][c] = row[c]
		}
	}
	return out
}

// startsLower reports whether a word starts with a lower-case letter.
func startsLower(w string) bool {
	for _, c := range w {
		return unicode.IsLower(c)
	}
	return false
}

// cellLines sorts a cell's words into lines, top to bottom (words whose
// middles are within half a line's height), each left to right.
func cellLines(ws []cellWord) [][]cellWord {
	sort.SliceStable(ws, func(a, b int) bool { return ws[a].y < ws[b].y })
	var out [][]cellWord
	for i := 0; i < len(ws); {
		j := i + 1
		for j < len(ws) && ws[j].y-ws[i].y < 0.5*math.Max(ws[i].h, ws[j].h) {
			j++
		}
		line := ws[i:j]
		sort.SliceStable(line, func(a, b int) bool { return line[a].x < line[b].x })
		out = append(out, line)
		i = j
	}
	return out
}

// cellText is a cell's words in reading order: each line's words joined
// by spaces, a word the PDF draws in two runs (letters that touch) made
// one again, and the lines joined as a paragraph's are (a word broken by
// a hyphen at a line's end is joined).
func cellText(ws []cellWord) string {
	var lines []string
	var sb strings.Builder
	for _, line := range cellLines(ws) {
		sb.Reset()
		for i, w := range line {
			if i > 0 && !(w.x-line[i-1].x1 < 0.1*w.size && joins(line[i-1].text, w.text)) && !(w.glued && w.x-line[i-1].x1 < 0.3*w.size) {
				sb.WriteByte(' ')
			}
			sb.WriteString(w.text)
		}
		lines = append(lines, sb.String())
	}
	return joinCellLines(lines)
}

// joins reports whether two words that touch are one: letters or digits
// on both sides (not an accent drawn over a letter as a glyph of its own).
func joins(a, b string) bool {
	r, _ := utf8.DecodeRuneInString(b)
	l := lastRune(a)
	return (unicode.IsLetter(l) || unicode.IsDigit(l)) && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// groupBlocksRuled groups a page's runs into blocks as groupBlocks does,
// taking its ruled tables out first, then the tables between its
// horizontal rules (ruleTables).
func groupBlocksRuled(runs []pdfRun, rules pageRules) []block {
	if len(rules.h)+len(rules.fills) < 2 && len(rules.v) < 2 || hasRTL(runs) {
		return groupBlocks(runs)
	}
	ruled, lines := latticeTables(splitCuts(groupLines(runs)), rules)
	between, lines := ruleTables(lines, rules)
	tables, rest := findTablesRuled(lines, mergeEdges(rules.v))
	return append(append(append(linesToBlocks(joinCuts(rest)), ruled...), between...), tables...)
}
