package layout

import (
	"math"
	"strings"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// List markers drawn as shapes: Chromium (Skia) paints an HTML list's
// disc, circle and square as small paths, not as text, so a page printed
// from a browser has list items without a marker in its text. On PDFs
// Skia made, the small round or square paths standing where a line's
// text would have its marker become the marker's character.

// maxMarkObjects bounds the page objects looked at for markers.
const maxMarkObjects = 20000

// skiaProducer reports whether a document was made by Skia (Chromium's
// printing), whose list markers are shapes.
func skiaProducer(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT) bool {
	m, err := inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: doc, Tag: "Producer"})
	return err == nil && strings.Contains(m.Value, "Skia")
}

// markRuns returns a page's list markers drawn as shapes as runs (• for a
// filled round, ◦ for a stroked one, ▪ for a filled square), in the
// displayed page's space, each as tall as a text run beside it; none on
// a page Skia did not make.
func markRuns(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, page requests.Page, rot int, w, h float64, runs []pdfRun) []mark {
	if len(runs) == 0 || !skiaProducer(inst, doc) {
		return nil
	}
	n, err := inst.FPDFPage_CountObjects(&requests.FPDFPage_CountObjects{Page: page})
	if err != nil {
		return nil
	}
	var out []mark
	for i := 0; i < n.Count && i < maxMarkObjects; i++ {
		o, err := inst.FPDFPage_GetObject(&requests.FPDFPage_GetObject{Page: page, Index: i})
		if err != nil {
			continue
		}
		t, err := inst.FPDFPageObj_GetType(&requests.FPDFPageObj_GetType{PageObject: o.PageObject})
		if err != nil || t.Type != enums.FPDF_PAGEOBJ_PATH {
			continue
		}
		b, err := inst.FPDFPageObj_GetBounds(&requests.FPDFPageObj_GetBounds{PageObject: o.PageObject})
		if err != nil {
			continue
		}
		x0, y0 := display(rot, w, h, float64(b.Left), float64(b.Top))
		x1, y1 := display(rot, w, h, float64(b.Right), float64(b.Bottom))
		x0, x1 = math.Min(x0, x1), math.Max(x0, x1)
		y0, y1 = math.Min(y0, y1), math.Max(y0, y1)
		bw, bh := x1-x0, y1-y0
		if bw < 1.5 || bh < 1.5 || bw > 8 || bh > 8 || bw > 1.4*bh || bh > 1.4*bw {
			continue
		}
		text, ok := markText(inst, o.PageObject)
		if !ok {
			continue
		}
		// The text run the marker stands before: on its band, starting
		// within two ems to its right.
		cy := (y0 + y1) / 2
		best := -1
		for k, r := range runs {
			if r.size <= 0 || cy < r.y0 || cy > r.y1 || r.x0 < x1 || r.x0 > x1+2*r.size {
				continue
			}
			if best < 0 || r.x0 < runs[best].x0 {
				best = k
			}
		}
		if best < 0 {
			continue
		}
		r := runs[best]
		out = append(out, mark{pdfRun{text: text, x0: x0, x1: x1, y0: r.y0, y1: r.y1, size: r.size}, best})
	}
	return out
}

// markText returns the marker a small path draws: • filled and round, ◦
// stroked and round, ▪ filled with straight sides.
func markText(inst pdfium.Pdfium, o references.FPDF_PAGEOBJECT) (string, bool) {
	m, err := inst.FPDFPath_GetDrawMode(&requests.FPDFPath_GetDrawMode{PageObject: o})
	if err != nil {
		return "", false
	}
	filled := m.FillMode != enums.FPDF_FILLMODE_NONE
	if !filled && !m.Stroke {
		return "", false
	}
	// A square is a few lines; a round, curves or (as Skia writes a
	// circle) dozens of short lines.
	c, err := inst.FPDFPath_CountSegments(&requests.FPDFPath_CountSegments{PageObject: o})
	if err != nil || c.Count < 2 || c.Count > 80 {
		return "", false
	}
	curved := c.Count > 6
	for k := 1; k < c.Count && !curved; k++ {
		s, err := inst.FPDFPath_GetPathSegment(&requests.FPDFPath_GetPathSegment{PageObject: o, Index: k})
		if err != nil {
			continue
		}
		if st, err := inst.FPDFPathSegment_GetType(&requests.FPDFPathSegment_GetType{PathSegment: s.PathSegment}); err == nil && st.Type == enums.FPDF_SEGMENT_BEZIERTO {
			curved = true
		}
	}
	switch {
	case curved && filled:
		return "•", true
	case curved:
		return "◦", true
	case filled:
		return "▪", true
	}
	return "", false
}

// mark is a marker's run and the index of the run it stands before.
type mark struct {
	run pdfRun
	at  int
}

// insertMarks puts each marker run into a page's runs just before the
// run it stands before (the runs are in the order the page draws them,
// which the lines are built in), with a space after it.
func insertMarks(runs []pdfRun, marks []mark) []pdfRun {
	if len(marks) == 0 {
		return runs
	}
	before := make(map[int]pdfRun, len(marks))
	for _, m := range marks {
		if _, ok := before[m.at]; !ok {
			before[m.at] = m.run
		}
	}
	out := make([]pdfRun, 0, len(runs)+2*len(before))
	for k, r := range runs {
		if m, ok := before[k]; ok {
			out = append(out, m, pdfRun{text: " "})
		}
		out = append(out, r)
	}
	return out
}
