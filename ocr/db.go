package ocr

import (
	"math"
	"sort"
)

// quad is a box's four corners: top-left, top-right, bottom-right,
// bottom-left (PaddleOCR's order: the two leftmost points, upper first,
// then the two rightmost).
type quad [4]Point

// size returns the quad's width (top edge) and height (left edge).
func (q quad) size() (w, h float64) {
	return math.Max(dist(q[0], q[1]), dist(q[3], q[2])), math.Max(dist(q[0], q[3]), dist(q[1], q[2]))
}

func dist(a, b Point) float64 { return math.Hypot(a.X-b.X, a.Y-b.Y) }

// bounds returns the quad's upright bounding box.
func (q quad) bounds() [4]float64 {
	b := [4]float64{q[0].X, q[0].Y, q[0].X, q[0].Y}
	for _, p := range q[1:] {
		b[0], b[1] = math.Min(b[0], p.X), math.Min(b[1], p.Y)
		b[2], b[3] = math.Max(b[2], p.X), math.Max(b[3], p.Y)
	}
	return b
}

// dbParams are the DB post-processing settings.
type dbParams struct {
	thresh, boxThresh, unclip float64
	minSize                   float64
	maxCandidates             int
}

// dbBoxes finds text boxes in the detector's probability map (w × h):
// it binarises the map, takes its 8-connected regions, fits each a
// minimum-area rectangle, keeps those whose mean probability reaches
// boxThresh, and grows them by the unclip distance (the detector is
// trained on regions shrunk by it). Boxes are in the map's pixels.
//
// label is w × h of scratch space; its contents are overwritten.
func dbBoxes(prob []float32, w, h int, p dbParams, label []int32) []quad {
	clear(label)
	var boxes []quad
	var stack []int32
	var pts []Point
	next := int32(0)
	thr := float32(p.thresh)
	for start := range prob {
		if prob[start] <= thr || label[start] != 0 {
			continue
		}
		next++
		if int(next) > p.maxCandidates {
			break
		}
		// Flood the region, keeping each row's leftmost and rightmost
		// pixel: their convex hull is the region's.
		rows := map[int][2]int{}
		stack = append(stack[:0], int32(start))
		label[start] = next
		for len(stack) > 0 {
			i := int(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			x, y := i%w, i/w
			if r, ok := rows[y]; !ok {
				rows[y] = [2]int{x, x}
			} else {
				rows[y] = [2]int{min(r[0], x), max(r[1], x)}
			}
			for dy := -1; dy <= 1; dy++ {
				ny := y + dy
				if ny < 0 || ny >= h {
					continue
				}
				for dx := -1; dx <= 1; dx++ {
					nx := x + dx
					if nx < 0 || nx >= w || dx == 0 && dy == 0 {
						continue
					}
					j := ny*w + nx
					if label[j] == 0 && prob[j] > thr {
						label[j] = next
						stack = append(stack, int32(j))
					}
				}
			}
		}
		pts = pts[:0]
		for y, r := range rows {
			pts = append(pts, Point{float64(r[0]), float64(y)})
			if r[1] != r[0] {
				pts = append(pts, Point{float64(r[1]), float64(y)})
			}
		}
		if len(pts) < 3 {
			continue
		}
		rect, side := minAreaRect(hull(pts))
		if side < p.minSize {
			continue
		}
		if score := meanIn(prob, w, h, rect); score < p.boxThresh {
			continue
		}
		rw, rh := rect.size()
		// A long line's distance is about half the ratio times its
		// height; a short word's or a lone character's is smaller by the
		// formula, and would crop its letters: it gets the long line's.
		d := math.Max(rw*rh*p.unclip/(2*(rw+rh)), p.unclip/2*math.Min(rw, rh))
		grown := grow(rect, d)
		if gw, gh := grown.size(); math.Min(gw, gh) < p.minSize+2 {
			continue
		}
		boxes = append(boxes, grown)
	}
	return boxes
}

// hull returns the convex hull of the points, counter-clockwise in image
// coordinates (Andrew's monotone chain).
func hull(pts []Point) []Point {
	sort.Slice(pts, func(i, j int) bool {
		if pts[i].X != pts[j].X {
			return pts[i].X < pts[j].X
		}
		return pts[i].Y < pts[j].Y
	})
	cross := func(o, a, b Point) float64 { return (a.X-o.X)*(b.Y-o.Y) - (a.Y-o.Y)*(b.X-o.X) }
	var h []Point
	for _, p := range pts {
		for len(h) >= 2 && cross(h[len(h)-2], h[len(h)-1], p) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, p)
	}
	for i, t := len(pts)-2, len(h)+1; i >= 0; i-- {
		p := pts[i]
		for len(h) >= t && cross(h[len(h)-2], h[len(h)-1], p) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, p)
	}
	return h[:len(h)-1]
}

// minAreaRect returns the minimum-area rectangle around a convex hull
// (one of its sides lies on a hull edge) as an ordered quad, and its
// shorter side.
func minAreaRect(h []Point) (quad, float64) {
	best := math.Inf(1)
	var bq quad
	n := len(h)
	for i := 0; i < n; i++ {
		a, b := h[i], h[(i+1)%n]
		ux, uy := b.X-a.X, b.Y-a.Y
		l := math.Hypot(ux, uy)
		if l == 0 {
			continue
		}
		ux, uy = ux/l, uy/l
		vx, vy := -uy, ux
		minU, maxU, minV, maxV := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, p := range h {
			u := (p.X-a.X)*ux + (p.Y-a.Y)*uy
			v := (p.X-a.X)*vx + (p.Y-a.Y)*vy
			minU, maxU = math.Min(minU, u), math.Max(maxU, u)
			minV, maxV = math.Min(minV, v), math.Max(maxV, v)
		}
		if area := (maxU - minU) * (maxV - minV); area < best-1e-9 {
			best = area
			at := func(u, v float64) Point { return Point{a.X + u*ux + v*vx, a.Y + u*uy + v*vy} }
			bq = quad{at(minU, minV), at(maxU, minV), at(maxU, maxV), at(minU, maxV)}
		}
	}
	q := orderQuad(bq)
	w, hh := q.size()
	return q, math.Min(w, hh)
}

// orderQuad orders a rectangle's corners as PaddleOCR's get_mini_boxes:
// the two leftmost, upper one first (top-left, bottom-left), the two
// rightmost (top-right, bottom-right).
func orderQuad(q quad) quad {
	p := q
	sort.SliceStable(p[:], func(i, j int) bool { return p[i].X < p[j].X })
	tl, bl := p[0], p[1]
	if p[1].Y < p[0].Y {
		tl, bl = p[1], p[0]
	}
	tr, br := p[2], p[3]
	if p[3].Y < p[2].Y {
		tr, br = p[3], p[2]
	}
	return quad{tl, tr, br, bl}
}

// grow moves each side of a rectangle out by d.
func grow(q quad, d float64) quad {
	cx := (q[0].X + q[1].X + q[2].X + q[3].X) / 4
	cy := (q[0].Y + q[1].Y + q[2].Y + q[3].Y) / 4
	ux, uy := q[1].X-q[0].X, q[1].Y-q[0].Y
	vx, vy := q[3].X-q[0].X, q[3].Y-q[0].Y
	lu, lv := math.Hypot(ux, uy), math.Hypot(vx, vy)
	if lu == 0 || lv == 0 {
		return q
	}
	hu, hv := lu/2+d, lv/2+d
	ux, uy, vx, vy = ux/lu, uy/lu, vx/lv, vy/lv
	at := func(su, sv float64) Point { return Point{cx + su*hu*ux + sv*hv*vx, cy + su*hu*uy + sv*hv*vy} }
	return orderQuad(quad{at(-1, -1), at(1, -1), at(1, 1), at(-1, 1)})
}

// meanIn returns the mean probability inside the quad (pixels whose
// centre is inside it).
func meanIn(prob []float32, w, h int, q quad) float64 {
	b := q.bounds()
	x0, y0 := max(0, int(math.Floor(b[0]))), max(0, int(math.Floor(b[1])))
	x1, y1 := min(w-1, int(math.Ceil(b[2]))), min(h-1, int(math.Ceil(b[3])))
	sum, n := 0.0, 0
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			if inside(q, float64(x), float64(y)) {
				sum += float64(prob[y*w+x])
				n++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// inside reports whether (x, y) is inside the convex quad or on its edge
// (within a small tolerance, so that a one-pixel-thin box holds its
// pixels).
func inside(q quad, x, y float64) bool {
	sign := 0.0
	for i := 0; i < 4; i++ {
		a, b := q[i], q[(i+1)%4]
		c := (b.X-a.X)*(y-a.Y) - (b.Y-a.Y)*(x-a.X)
		l := math.Hypot(b.X-a.X, b.Y-a.Y)
		if math.Abs(c) <= 0.5*l {
			continue
		}
		if sign == 0 {
			sign = c
		} else if sign*c < 0 {
			return false
		}
	}
	return true
}
