package ocr

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// detect runs the detector on the image and returns the text boxes in the
// image's pixels, top to bottom.
func (e *Engine) detect(ctx context.Context, src *rgb) ([]quad, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	in, w, h := detInput(src, e.opt.MaxSide, e.scratch.det)
	e.scratch.det = in
	var boxes []quad
	err := e.det.run(in, []int64{1, 3, int64(h), int64(w)}, func(out []float32, shape []int64) error {
		if len(shape) != 4 || shape[2] != int64(h) || shape[3] != int64(w) || len(out) < w*h {
			return fmt.Errorf("%w: the detector's output is %v for an input of %d×%d: is %s a DB text detector?", ErrModel, shape, w, h, e.files.Detector)
		}
		e.scratch.label = resize(e.scratch.label, w*h)
		boxes = dbBoxes(out[:w*h], w, h, dbParams{thresh: e.opt.Threshold, boxThresh: e.opt.BoxThreshold, unclip: e.opt.Unclip, minSize: 3, maxCandidates: 5000}, e.scratch.label)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sx, sy := float64(src.w)/float64(w), float64(src.h)/float64(h)
	for i := range boxes {
		for k := range boxes[i] {
			p := &boxes[i][k]
			p.X = math.Max(0, math.Min(p.X*sx, float64(src.w)))
			p.Y = math.Max(0, math.Min(p.Y*sy, float64(src.h)))
		}
	}
	sort.SliceStable(boxes, func(i, j int) bool {
		if boxes[i][0].Y != boxes[j][0].Y {
			return boxes[i][0].Y < boxes[j][0].Y
		}
		return boxes[i][0].X < boxes[j][0].X
	})
	return boxes, nil
}

// frame maps a crop's pixel coordinates (u, v) to the page: o + u·U + v·V.
type frame struct{ o, u, v Point }

func (f frame) at(u, v float64) Point {
	return Point{f.o.X + u*f.u.X + v*f.v.X, f.o.Y + u*f.u.Y + v*f.v.Y}
}

// crop is a box's pixels turned to read left to right, with the frame
// that maps them back to the page.
type crop struct {
	img     *rgb
	f       frame
	flipped bool
}

// cut samples the quad's pixels into an upright crop; a box at least 1.5
// times as tall as wide is turned a quarter turn counter-clockwise, as
// PaddleOCR's get_rotate_crop_image does.
func cut(src *rgb, q quad, turn bool) crop {
	w := max(1, int(math.Round(math.Max(dist(q[0], q[1]), dist(q[3], q[2])))))
	h := max(1, int(math.Round(math.Max(dist(q[0], q[3]), dist(q[1], q[2])))))
	f := frame{o: q[0],
		u: Point{(q[1].X - q[0].X) / float64(w), (q[1].Y - q[0].Y) / float64(w)},
		v: Point{(q[3].X - q[0].X) / float64(h), (q[3].Y - q[0].Y) / float64(h)}}
	img := &rgb{w: w, h: h, pix: make([]uint8, 3*w*h)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			p := f.at(float64(x)+0.5, float64(y)+0.5)
			r, g, b := src.sample(p.X-0.5, p.Y-0.5)
			o := 3 * (y*w + x)
			img.pix[o], img.pix[o+1], img.pix[o+2] = uint8(r+0.5), uint8(g+0.5), uint8(b+0.5)
		}
	}
	c := crop{img: img, f: f}
	if turn && float64(h) >= 1.5*float64(w) {
		c = c.turnLeft()
	}
	return c
}

// turnLeft turns the crop a quarter turn counter-clockwise.
func (c crop) turnLeft() crop {
	w := float64(c.img.w)
	return crop{img: c.img.rotate(270), f: frame{o: c.f.at(w, 0), u: c.f.v, v: Point{-c.f.u.X, -c.f.u.Y}}, flipped: c.flipped}
}

// flip turns the crop a half turn.
func (c crop) flip() crop {
	w, h := float64(c.img.w), float64(c.img.h)
	return crop{img: c.img.rotate(180), f: frame{o: c.f.at(w, h), u: Point{-c.f.u.X, -c.f.u.Y}, v: Point{-c.f.v.X, -c.f.v.Y}}, flipped: !c.flipped}
}

// fill writes the crop scaled to height hh (and width rw) into a
// recogniser's or classifier's input (3 planes of width ww, BGR,
// normalised to [-1, 1]); the rest of the row stays 0.
func fill(dst []float32, c *rgb, hh, rw, ww int) {
	plane := hh * ww
	sx, sy := float64(c.w)/float64(rw), float64(c.h)/float64(hh)
	for y := 0; y < hh; y++ {
		for x := 0; x < rw; x++ {
			var r, g, b float64
			if sx > 1 || sy > 1 {
				r, g, b = c.area(float64(x)*sx, float64(y)*sy, float64(x+1)*sx, float64(y+1)*sy)
			} else {
				r, g, b = c.sample((float64(x)+0.5)*sx-0.5, (float64(y)+0.5)*sy-0.5)
			}
			i := y*ww + x
			dst[i] = float32(b)/127.5 - 1
			dst[plane+i] = float32(g)/127.5 - 1
			dst[2*plane+i] = float32(r)/127.5 - 1
		}
	}
}

const (
	recHeight = 48
	// recBatch is the crops a recogniser run reads. Runs go on at once,
	// one a thread, each holding its activations: 3 a run keeps a page's
	// peak memory below what one run of 6 on every thread took, with
	// less padding (8 Letter pages: 552 MB against 715-785 MB at 6, and
	// 3% less CPU).
	recBatch = 3
	// maxRecWorkers is the most recogniser runs a page reads at once,
	// whatever the threads: each holds about 40 MB (one Letter page:
	// 379, 438, 677 and 739 MB peak at 1, 2, 8 and 16 threads), and the
	// memory reserved for a page (layout.OCRPageMemory) is measured with
	// at most this many. Pages read concurrently use the other cores.
	maxRecWorkers = 4
	clsBatch      = 6
	clsWidth      = 192
)

// recognize cuts, orients and reads the boxes; it returns the lines
// read with enough confidence and how many the classifier found upside
// down.
func (e *Engine) recognize(ctx context.Context, src *rgb, boxes []quad) ([]Line, int, error) {
	crops := make([]crop, len(boxes), len(boxes)+8)
	// A tall box is read turned (a line running up or down the page)
	// and also as it is (a short word or a lone digit, taller than wide):
	// the reading of the higher confidence is kept.
	alt := map[int]int{}
	for i, q := range boxes {
		crops[i] = cut(src, q, true)
		if h0(q) >= 1.5*w0(q) {
			alt[len(crops)] = i
			crops = append(crops, cut(src, widen(q, 1.2*h0(q)), false))
		}
	}
	if e.cls != nil {
		// A line the classifier finds upside down is read both ways (it
		// is wrong now and then on an upright line): the reading of the
		// higher confidence is kept.
		n := len(crops)
		for lo := 0; lo < n; lo += clsBatch {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
			hi := min(lo+clsBatch, n)
			in := resize(e.scratch.in, (hi-lo)*3*recHeight*clsWidth)
			e.scratch.in = in
			clear(in)
			for i := lo; i < hi; i++ {
				c := crops[i].img
				rw := min(clsWidth, int(math.Ceil(recHeight*float64(c.w)/float64(c.h))))
				fill(in[(i-lo)*3*recHeight*clsWidth:], c, recHeight, rw, clsWidth)
			}
			err := e.cls.run(in, []int64{int64(hi - lo), 3, recHeight, clsWidth}, func(out []float32, shape []int64) error {
				if len(shape) != 2 || shape[1] != 2 || len(out) < 2*(hi-lo) {
					return fmt.Errorf("%w: the angle classifier's output is %v, want [batch, 2]: is %s PP-OCR's cls model?", ErrModel, shape, e.files.Classifier)
				}
				for i := lo; i < hi; i++ {
					if p := out[2*(i-lo)+1]; p > out[2*(i-lo)] && p > 0.9 {
						origin := i
						if o, ok := alt[i]; ok {
							origin = o
						}
						alt[len(crops)] = origin
						crops = append(crops, crops[i].flip())
					}
				}
				return nil
			})
			if err != nil {
				return nil, 0, err
			}
		}
	}
	// Crops of about the same shape are read together (less padding).
	idx := make([]int, len(crops))
	ratio := make([]float64, len(crops))
	for i, c := range crops {
		idx[i] = i
		ratio[i] = float64(c.img.w) / float64(c.img.h)
	}
	sort.SliceStable(idx, func(a, b int) bool { return ratio[idx[a]] < ratio[idx[b]] })
	lines := make([]*Line, len(crops))
	// The batches are read by e.opt.Threads goroutines at once, each
	// run on one thread (the recogniser's session has one): a batch to a
	// core costs less CPU than every core on one batch, whose operators
	// each wait for the slowest thread.
	var batches [][2]int
	for lo := 0; lo < len(idx); lo += recBatch {
		batches = append(batches, [2]int{lo, min(lo+recBatch, len(idx))})
	}
	workers := min(e.opt.Threads, len(batches), maxRecWorkers)
	for len(e.scratch.rec) < workers {
		e.scratch.rec = append(e.scratch.rec, nil)
	}
	var (
		wg      sync.WaitGroup
		next    atomic.Int64
		errOnce sync.Once
		runErr  error
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				b := int(next.Add(1)) - 1
				if b >= len(batches) {
					return
				}
				if err := ctx.Err(); err != nil {
					errOnce.Do(func() { runErr = err })
					return
				}
				in, err := e.readBatch(idx[batches[b][0]:batches[b][1]], crops, ratio, lines, e.scratch.rec[w])
				e.scratch.rec[w] = in
				if err != nil {
					errOnce.Do(func() { runErr = err })
					next.Store(int64(len(batches))) // the others stop after their batch
					return
				}
			}
		}()
	}
	wg.Wait()
	if runErr != nil {
		return nil, 0, runErr
	}
	// The best reading of each box, the alternatives in the order they
	// were made (deterministic).
	for j := len(boxes); j < len(crops); j++ {
		i := alt[j]
		if a := lines[j]; a != nil && (lines[i] == nil || a.Confidence > lines[i].Confidence) {
			lines[i] = a
		}
	}
	flipped := 0
	var kept []Line
	for _, l := range lines[:len(boxes)] {
		if l != nil && l.Confidence >= e.opt.MinConfidence {
			if l.Flipped {
				flipped++
			}
			kept = append(kept, l.split()...)
		}
	}
	return kept, flipped, nil
}

// readBatch reads the crops of idx (ratio: their widths over heights)
// in one run of the recogniser, writing each line read into lines at
// the crop's index; buf is the input's memory, grown and returned.
func (e *Engine) readBatch(idx []int, crops []crop, ratio []float64, lines []*Line, buf []float32) ([]float32, error) {
	n := len(idx)
	maxRatio := 320.0 / recHeight
	for _, i := range idx {
		maxRatio = math.Max(maxRatio, ratio[i])
	}
	ww := int(math.Ceil(recHeight * maxRatio))
	in := resize(buf, n*3*recHeight*ww)
	clear(in)
	rws := make([]int, n)
	for k, i := range idx {
		rws[k] = min(ww, max(1, int(math.Ceil(recHeight*ratio[i]))))
		fill(in[k*3*recHeight*ww:], crops[i].img, recHeight, rws[k], ww)
	}
	err := e.rec.run(in, []int64{int64(n), 3, recHeight, int64(ww)}, func(out []float32, shape []int64) error {
		if len(shape) != 3 || shape[0] != int64(n) || int(shape[2]) != len(e.keys)+1 || len(out) < n*int(shape[1]*shape[2]) {
			return fmt.Errorf("%w: the recogniser's output is %v, want [batch, steps, %d] for %d characters in %s (and blank and space): do the recogniser and the character list belong together?", ErrModel, shape, len(e.keys)+1, len(e.keys)-1, e.files.Characters)
		}
		steps, classes := int(shape[1]), int(shape[2])
		for k, i := range idx {
			l := e.decode(out[k*steps*classes:(k+1)*steps*classes], steps, classes, crops[i], float64(ww)/float64(steps)*float64(crops[i].img.w)/float64(rws[k]))
			if l != nil {
				l.Quad = quad{crops[i].f.at(0, 0), crops[i].f.at(float64(crops[i].img.w), 0), crops[i].f.at(float64(crops[i].img.w), float64(crops[i].img.h)), crops[i].f.at(0, float64(crops[i].img.h))}
				l.Box = quad(l.Quad).bounds()
				l.Flipped = crops[i].flipped
				l.crop = crops[i]
				lines[i] = l
			}
		}
		return nil
	})
	return in, err
}

// decode reads one crop's CTC output greedily: the most likely class at
// each step, repeats merged and blanks dropped; step is the width of a
// step in the crop's pixels. Words are cut at spaces, each boxed from its
// first character's step to its last's.
func (e *Engine) decode(probs []float32, steps, classes int, c crop, step float64) *Line {
	type char struct {
		r    string
		p    float64
		t    int
		last int
	}
	var chars []char
	prev := -1
	for t := 0; t < steps; t++ {
		row := probs[t*classes : (t+1)*classes]
		best, bp := 0, row[0]
		for k, v := range row {
			if v > bp {
				best, bp = k, v
			}
		}
		switch {
		case best == 0:
		case best == prev && len(chars) > 0:
			chars[len(chars)-1].last = t
		default:
			chars = append(chars, char{r: e.keys[best-1], p: float64(bp), t: t, last: t})
		}
		prev = best
	}
	// The recogniser (the Chinese one most of all) drops spaces between
	// Latin words: a gap of blank columns between two characters of at
	// least a quarter of the ink's height and twice the line's median gap
	// between letters is read as one (in a line where it wrote spaces,
	// only a gap of 0.32 of the height and 2.5 times the median, or one
	// as wide as the narrowest quarter of the spaces it wrote, see below;
	// between two digits 0.4 of the height). A gap of twice the ink's
	// height (a gutter between columns, cells of a table the detector
	// took as one line) ends a line and starts another.
	blank, inkH := profile(c.img)
	if inkH >= minStrokeInk && len(chars) > 1 {
		// A thin character the recogniser read over two steps or more
		// may be two or three of it merged (greedy CTC merges repeats
		// with no blank step between: "Fujii" read "Fuji", "..." ".."):
		// the separate strokes of ink nearer its steps than its
		// neighbours' are counted and the character written once for
		// each.
		centre := func(ch char) float64 { return float64(ch.t+ch.last+1) / 2 * step }
		thin := func(ch char) bool { return strings.Contains(thinGlyphs, ch.r) }
		more := make([]char, 0, len(chars)+4)
		for i := 0; i < len(chars); {
			if !thin(chars[i]) {
				more = append(more, chars[i])
				i++
				continue
			}
			j := i // chars[i:j] is a run of thin characters
			for j < len(chars) && thin(chars[j]) {
				j++
			}
			lo, hi := 0.0, float64(len(blank))
			if i > 0 {
				lo = (centre(chars[i-1]) + centre(chars[i])) / 2
			}
			if j < len(chars) {
				hi = (centre(chars[j-1]) + centre(chars[j])) / 2
			}
			extra := strokes(blank, lo, hi, inkH) - (j - i)
			for k := i; k < j; k++ {
				ch := chars[k]
				more = append(more, ch)
				// The repeats go to the characters read over two
				// steps or more, the first first, two at most each.
				for n := 0; extra > 0 && n < 2 && ch.last > ch.t && ch.r != "," && ch.r != "'"; n++ {
					more = append(more, ch)
					extra--
				}
			}
			i = j
		}
		chars = more
	}
	if inkH > 0 && len(chars) > 1 {
		var solid []int // the characters that are not spaces
		for i, ch := range chars {
			if strings.TrimSpace(ch.r) != "" {
				solid = append(solid, i)
			}
		}
		runs := make([]int, len(solid))
		var letterGaps, wordGaps []int // between letters without and with a space read
		for k := 1; k < len(solid); k++ {
			a, b := chars[solid[k-1]], chars[solid[k]]
			x0 := int(float64(a.t+a.last+1) / 2 * step)
			x1 := int(float64(b.t+b.last+1) / 2 * step)
			runs[k] = longestRun(blank, x0, x1)
			switch {
			case solid[k] == solid[k-1]+1 && isLatin(a.r) && isLatin(b.r):
				letterGaps = append(letterGaps, runs[k])
			case solid[k] != solid[k-1]+1 && isLetter(a.r) && isLetter(b.r):
				// A space read between them (not two CJK letters side by
				// side, whose narrow gaps would lower the cut).
				wordGaps = append(wordGaps, runs[k])
			}
		}
		median := 0
		if len(letterGaps) > 0 {
			slices.Sort(letterGaps)
			median = letterGaps[len(letterGaps)/2]
		}
		cut := max(2, 2*median, int(math.Ceil(0.24*float64(inkH))))
		if len(solid) < len(chars) {
			// The recogniser wrote spaces in this line: it missed one
			// only at a wider gap (italics leave blank columns between
			// letters).
			cut = max(2, int(math.Ceil(2.5*float64(median))), int(math.Ceil(0.32*float64(inkH))))
			if len(wordGaps) >= 3 && inkH >= minGapInk {
				// The spaces it read between letters say how wide
				// this line's are (a tight or a loose face, a
				// justified line): a gap as wide as the narrowest
				// quarter of them is one too, if it is clearly wider
				// than the gaps between letters.
				slices.Sort(wordGaps)
				q := wordGaps[len(wordGaps)/4]
				cut = max(2, median+2, int(math.Ceil(0.24*float64(inkH))), min(cut, q))
			}
		}
		split := max(cut+1, 2*inkH)
		spaced := make([]char, 0, 2*len(chars))
		k := 0
		for i, ch := range chars {
			if k < len(solid) && solid[k] == i {
				if k > 0 {
					a := chars[solid[k-1]]
					switch {
					case runs[k] >= split:
						spaced = append(spaced, char{r: "\n", p: math.Min(a.p, ch.p), t: a.last, last: a.last})
					case solid[k] == solid[k-1]+1 && isLatin(a.r) && isLatin(ch.r) && runs[k] >= spaceCut(a.r, ch.r, cut, inkH):
						spaced = append(spaced, char{r: " ", p: math.Min(a.p, ch.p), t: a.last, last: a.last})
					}
				}
				k++
			}
			spaced = append(spaced, ch)
		}
		chars = spaced
	}
	var l Line
	var sb strings.Builder
	sum, n := 0.0, 0
	var word []char
	flush := func() {
		if len(word) == 0 {
			return
		}
		var wb strings.Builder
		ws := 0.0
		for _, ch := range word {
			wb.WriteString(ch.r)
			ws += ch.p
		}
		if digitLike(wb.String()) {
			text := digitsFor.Replace(wb.String())
			wb.Reset()
			wb.WriteString(text)
		}
		u0 := math.Max(0, float64(word[0].t)*step)
		u1 := math.Min(float64(c.img.w), float64(word[len(word)-1].last+1)*step)
		h := float64(c.img.h)
		box := quad{c.f.at(u0, 0), c.f.at(u1, 0), c.f.at(u1, h), c.f.at(u0, h)}.bounds()
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(wb.String())
		l.Words = append(l.Words, Word{Text: wb.String(), Box: box, Confidence: ws / float64(len(word))})
		l.spans = append(l.spans, [2]float64{u0, u1})
		word = word[:0]
	}
	for _, ch := range chars {
		if ch.r == "\n" {
			flush()
			if len(l.Words) > 0 && (len(l.pieces) == 0 || l.pieces[len(l.pieces)-1] != len(l.Words)) {
				l.pieces = append(l.pieces, len(l.Words))
			}
			continue
		}
		sum += ch.p
		n++
		if strings.TrimSpace(ch.r) == "" {
			flush()
			continue
		}
		word = append(word, ch)
	}
	flush()
	if len(l.Words) == 0 {
		return nil
	}
	if romanNumerals(l.Words) {
		texts := make([]string, len(l.Words))
		for i, w := range l.Words {
			texts[i] = w.Text
		}
		l.Text = strings.Join(texts, " ")
	} else {
		l.Text = sb.String()
	}
	l.Confidence = sum / float64(n)
	return &l
}

// profile returns, for each column of the crop, whether it holds no ink,
// and the height of the rows that hold ink (0 for a crop of too little
// contrast to tell). Ink is darker than halfway between the crop's
// darkest and lightest grey.
func profile(c *rgb) ([]bool, int) {
	gray := make([]uint8, c.w*c.h)
	lo, hi := uint8(255), uint8(0)
	for i := range gray {
		o := 3 * i
		v := uint8((299*int(c.pix[o]) + 587*int(c.pix[o+1]) + 114*int(c.pix[o+2])) / 1000)
		gray[i] = v
		lo, hi = min(lo, v), max(hi, v)
	}
	if int(hi)-int(lo) < 48 {
		return nil, 0
	}
	cut := uint8((int(lo) + int(hi)) / 2)
	blank := make([]bool, c.w)
	top, bottom := c.h, -1
	for x := 0; x < c.w; x++ {
		blank[x] = true
		for y := 0; y < c.h; y++ {
			if gray[y*c.w+x] < cut {
				blank[x] = false
				top, bottom = min(top, y), max(bottom, y)
			}
		}
	}
	if bottom < top {
		return nil, 0
	}
	return blank, bottom - top + 1
}

// minGapInk is the least height of a line's ink (in its crop's pixels)
// at which its spaces' widths set the gap that is one: 16 pixels is
// 11-point text at about 110 dpi; below it a word space is two or three
// pixels, as wide as the gap beside a capital's serif.
const minGapInk = 16

// thinGlyphs are the characters of one upright stroke (or a dot) whose
// merged repeats decode counts.
const thinGlyphs = "iIl1.,:;'!|"

// minStrokeInk is the least height of a line's ink (in its crop's
// pixels) at which strokes are counted: 24 pixels is 11-point text at
// about 170 dpi; below it a thin character's stroke and the gaps beside
// it are a few pixels, and a scan's blur and breaks join or split them.
const minStrokeInk = 24

// strokes counts the runs of ink columns whose middles lie in [x0, x1)
// and which are at most a fifth of the ink's height wide (the strokes of
// thin characters) and at least half as wide as the widest of them
// (not specks of noise or a serif's tip).
func strokes(blank []bool, x0, x1 float64, inkH int) int {
	var widths []int
	widest := 0
	for x := 0; x < len(blank); {
		if blank[x] {
			x++
			continue
		}
		a := x
		for x < len(blank) && !blank[x] {
			x++
		}
		if mid := float64(a+x) / 2; mid >= x0 && mid < x1 && 5*(x-a) <= inkH {
			widths = append(widths, x-a)
			widest = max(widest, x-a)
		}
	}
	n := 0
	for _, w := range widths {
		if 2*w >= widest {
			n++
		}
	}
	return n
}

// spaceCut is the least gap of blank columns that writes a space the
// recogniser missed between a and b, given the line's cut: a digit's
// side bearings leave wide gaps within a number ("2011": as wide as a
// word space in some faces), so a space between digits needs 0.4 of the
// ink's height.
func spaceCut(a, b string, cut, inkH int) int {
	switch {
	case isDigit(a) && isDigit(b):
		return max(cut, int(math.Ceil(0.4*float64(inkH))))
	}
	return cut
}

func isDigit(s string) bool { return len(s) == 1 && s[0] >= '0' && s[0] <= '9' }

// isLetter reports whether s is one letter.
func isLetter(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n == len(s) && unicode.IsLetter(r)
}

// longestRun returns the longest run of blank columns in [x0, x1).
func longestRun(blank []bool, x0, x1 int) int {
	best, run := 0, 0
	for x := max(0, x0); x < min(x1, len(blank)); x++ {
		if blank[x] {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// isLatin reports whether s is a letter, digit or punctuation of the
// scripts written with spaces between words (not CJK).
func isLatin(s string) bool {
	for _, r := range s {
		if r >= 0x2E80 { // CJK, kana, hangul and after
			return false
		}
	}
	return true
}

// w0 and h0 are a box's width and height as cut measures them.
func w0(q quad) float64 { return math.Max(dist(q[0], q[1]), dist(q[3], q[2])) }
func h0(q quad) float64 { return math.Max(dist(q[0], q[3]), dist(q[1], q[2])) }

// widen grows a box along its width, about its centre, to at least w:
// the recogniser reads a lone character better with white beside it.
func widen(q quad, w float64) quad {
	cur := w0(q)
	if cur >= w || cur == 0 {
		return q
	}
	d := (w - cur) / 2 / cur
	ux, uy := (q[1].X-q[0].X)*d, (q[1].Y-q[0].Y)*d
	return quad{{q[0].X - ux, q[0].Y - uy}, {q[1].X + ux, q[1].Y + uy}, {q[2].X + ux, q[2].Y + uy}, {q[3].X - ux, q[3].Y - uy}}
}

// split returns the line cut where a wide gap ends one and starts
// another (Line.pieces), each with its own box; the result holds no
// crop.
func (l *Line) split() []Line {
	if len(l.pieces) == 0 {
		out := *l
		out.spans, out.pieces, out.crop = nil, nil, crop{}
		return []Line{out}
	}
	c := l.crop
	h := float64(c.img.h)
	starts := append([]int{0}, l.pieces...)
	var out []Line
	for k, s := range starts {
		e := len(l.Words)
		if k+1 < len(starts) {
			e = starts[k+1]
		}
		if s >= e {
			continue
		}
		ws := l.Words[s:e]
		pad := 0.15 * h
		u0, u1 := math.Max(0, l.spans[s][0]-pad), math.Min(float64(c.img.w), l.spans[e-1][1]+pad)
		q := quad{c.f.at(u0, 0), c.f.at(u1, 0), c.f.at(u1, h), c.f.at(u0, h)}
		texts := make([]string, len(ws))
		conf := 0.0
		for i, w := range ws {
			texts[i] = w.Text
			conf += w.Confidence
		}
		out = append(out, Line{Text: strings.Join(texts, " "), Quad: [4]Point(q), Box: q.bounds(), Confidence: conf / float64(len(ws)),
			Words: slices.Clone(ws), Flipped: l.Flipped})
	}
	return out
}

// digitsFor reads letters that look like digits as the digits.
var digitsFor = strings.NewReplacer("o", "0", "O", "0", "l", "1", "I", "1")

// digitLike reports whether a word is a number some of whose digits the
// recogniser read as the letters they look like ("2o12", "14,ooo",
// "(o.91"): it holds a digit, and besides digits only o, O, l, I and
// the punctuation of numbers.
func digitLike(w string) bool {
	digit, letter := false, false
	for _, r := range w {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case r == 'o' || r == 'O' || r == 'l' || r == 'I':
			letter = true
		case strings.ContainsRune(".,:;-+%$()/", r):
		default:
			return false
		}
	}
	return digit && letter
}

// romanNumerals reads a word of two to four l's and I's (trailing
// punctuation aside) after a capitalised word that ends no sentence as
// the Roman numeral of I's it looks like ("Chronicles lll" → "Chronicles
// III", "War ll," → "War II,"); it reports whether it changed a word.
func romanNumerals(words []Word) bool {
	changed := false
	for i := 1; i < len(words); i++ {
		core := strings.TrimRight(words[i].Text, ".,;:)]")
		if len(core) < 2 || len(core) > 4 || strings.Trim(core, "lI") != "" || !strings.Contains(core, "l") {
			continue
		}
		prev := words[i-1].Text
		first, _ := utf8.DecodeRuneInString(prev)
		if !unicode.IsUpper(first) || strings.ContainsAny(prev[len(prev)-1:], ".!?:;") {
			continue
		}
		words[i].Text = strings.Repeat("I", len(core)) + words[i].Text[len(core):]
		changed = true
	}
	return changed
}
