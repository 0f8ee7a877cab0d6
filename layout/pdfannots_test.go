package layout

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gochunk/gochunk/internal/pdfgen"
)

// rawPDF writes a PDF of the objects given (object i+1 is objs[i]) with
// its cross-reference table, the first its catalog.
func rawPDF(objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// A filled form field's value and a text box (FreeText) are read where
// they stand on the page, where they were dropped: they are annotations,
// not the page's content.
func TestPDFFormFieldsAndTextBoxes(t *testing.T) {
	content := "BT /F1 12 Tf 72 700 Td (Name of the insured:) Tj ET"
	pdf := rawPDF(
		"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R] >> >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 6 0 R >> >> /Annots [5 0 R 7 0 R] >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Annot /Subtype /Widget /FT /Tx /T (name) /V (Jane Doe) /Rect [196 694 400 714] /P 3 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		"<< /Type /Annot /Subtype /FreeText /Rect [72 600 300 620] /Contents (Approved by the underwriter) /DA (/Helv 12 Tf 0 g) >>",
	)
	path := filepath.Join(t.TempDir(), "form.pdf")
	os.WriteFile(path, pdf, 0o644)
	text := extractText(t, path)
	if want := "Name of the insured: Jane Doe\n\nApproved by the underwriter"; text != want {
		t.Errorf("%q, want %q", text, want)
	}
}

// A PDF without text says whether it holds images (a scan: OCR reads it)
// or nothing at all, where both were "the PDF holds only images".
func TestPDFNoTextSaysWhy(t *testing.T) {
	blank := writePDF(t, []pdfgen.Page{{Width: 612, Height: 792}})
	_, err := ExtractPDF(t.Context(), blank, PDFOptions{Engine: pdfiumEngine(t)})
	if !errors.Is(err, ErrNoText) || strings.Contains(err.Error(), "only images") || !strings.Contains(err.Error(), "no text and no image") {
		t.Errorf("a blank page: %v", err)
	}
	img := "q 100 0 0 100 72 600 cm /Im1 Do Q"
	scan := rawPDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /XObject << /Im1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(img), img),
		"<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length 4 >>\nstream\n\x00\xff\xff\x00\nendstream",
	)
	path := filepath.Join(t.TempDir(), "scan.pdf")
	os.WriteFile(path, scan, 0o644)
	_, err = ExtractPDF(t.Context(), path, PDFOptions{Engine: pdfiumEngine(t)})
	if !errors.Is(err, ErrNoText) || !strings.Contains(err.Error(), "only images") {
		t.Errorf("a scan: %v", err)
	}
}
