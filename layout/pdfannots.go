package layout

import (
	"strings"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// maxAnnots bounds the annotations read from a page, and maxObjects the
// objects looked through for an image on a page without text.
const (
	maxAnnots  = 2000
	maxObjects = 10000
)

// annotationRuns returns the text that a page's annotations show and its
// content does not hold: the values of its form fields (widgets' /V) and
// the text of its text boxes (FreeText's /Contents), each a run placed
// where the annotation is on the displayed page (rot quarter turns, w by
// h points), for the page's lines and blocks.
func annotationRuns(inst pdfium.Pdfium, page requests.Page, rot int, w, h float64) []pdfRun {
	n, err := inst.FPDFPage_GetAnnotCount(&requests.FPDFPage_GetAnnotCount{Page: page})
	if err != nil || n.Count == 0 {
		return nil
	}
	var out []pdfRun
	for i := range min(n.Count, maxAnnots) {
		a, err := inst.FPDFPage_GetAnnot(&requests.FPDFPage_GetAnnot{Page: page, Index: i})
		if err != nil {
			continue
		}
		if run, ok := annotationRun(inst, a.Annotation, rot, w, h); ok {
			out = append(out, run)
		}
		inst.FPDFPage_CloseAnnot(&requests.FPDFPage_CloseAnnot{Annotation: a.Annotation})
	}
	return out
}

func annotationRun(inst pdfium.Pdfium, a references.FPDF_ANNOTATION, rot int, w, h float64) (pdfRun, bool) {
	st, err := inst.FPDFAnnot_GetSubtype(&requests.FPDFAnnot_GetSubtype{Annotation: a})
	if err != nil {
		return pdfRun{}, false
	}
	key := ""
	switch st.Subtype {
	case enums.FPDF_ANNOT_SUBTYPE_WIDGET:
		key = "V"
	case enums.FPDF_ANNOT_SUBTYPE_FREETEXT:
		key = "Contents"
	default:
		return pdfRun{}, false
	}
	v, err := inst.FPDFAnnot_GetStringValue(&requests.FPDFAnnot_GetStringValue{Annotation: a, Key: key})
	if err != nil {
		return pdfRun{}, false
	}
	text := strings.Join(strings.Fields(v.Value), " ")
	if text == "" || text == "Off" { // an unchecked box's state
		return pdfRun{}, false
	}
	r, err := inst.FPDFAnnot_GetRect(&requests.FPDFAnnot_GetRect{Annotation: a})
	if err != nil {
		return pdfRun{}, false
	}
	x0, y0 := display(rot, w, h, float64(r.Rect.Left), float64(r.Rect.Top))
	x1, y1 := display(rot, w, h, float64(r.Rect.Right), float64(r.Rect.Bottom))
	run := pdfRun{text: text, x0: min(x0, x1), y0: min(y0, y1), x1: max(x0, x1), y1: max(y0, y1)}
	if run.x1-run.x0 < 1 || run.y1-run.y0 < 1 {
		return pdfRun{}, false // not placed on the page
	}
	// A field's box is often taller than its text: its line is as high
	// as an ordinary line's, amid the box.
	run.size = min(run.y1-run.y0, 12)
	mid := (run.y0 + run.y1) / 2
	run.y0, run.y1 = mid-run.size/2, mid+run.size/2
	return run, true
}

// hasImage reports whether a page draws an image (among its first
// maxObjects objects), for telling a scan from a page without anything to
// read.
func hasImage(inst pdfium.Pdfium, page requests.Page) bool {
	n, err := inst.FPDFPage_CountObjects(&requests.FPDFPage_CountObjects{Page: page})
	if err != nil {
		return true // unknown: as before
	}
	for i := range min(n.Count, maxObjects) {
		o, err := inst.FPDFPage_GetObject(&requests.FPDFPage_GetObject{Page: page, Index: i})
		if err != nil {
			continue
		}
		if t, err := inst.FPDFPageObj_GetType(&requests.FPDFPageObj_GetType{PageObject: o.PageObject}); err == nil && t.Type == enums.FPDF_PAGEOBJ_IMAGE {
			return true
		}
	}
	return n.Count > maxObjects
}
