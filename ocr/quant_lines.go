//go:build cgo

package ocr

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// calibText is what calibrationLines draws: prose, figures, capitals,
// punctuation and symbols of the kinds scanned pages hold (written for
// this; not from any test page).
var calibText = []string{
	"The committee met on 14 March 2019 to review",
	"the quarterly figures; revenue rose 7.5% to $1,284,300.",
	"SECTION 4(b): ALL NOTICES SHALL BE IN WRITING",
	"AND DELIVERED BY HAND, POST OR E-MAIL (SEE ANNEX II).",
	"Invoice No. 00471-B  Qty 12 @ 3.99 = 47.88  VAT 9.58",
	"Total: EUR 57.46  Due: 2024-07-31  Ref. #A-118/c",
	"\"Where is it?\" she asked, looking at the map [fig. 3]",
	"- a copy of the 1862 survey & its field notes.",
	"jumping quickly over wavy fields, the lazy brown",
	"fox ignored the dog's quiet zigzag path home.",
	"Table 2. Results per site: A 0.87 +/- 0.04, B 1.12,",
	"C 0.65 +/- 0.02 (n = 48, p < 0.01); see Smith et al.",
}

// calibrationLines draws calibText in four faces of the Go fonts, black
// on white and grey on light grey, each as the recogniser reads a line
// (48 pixels high, normalised): the batches calibrate measures the
// recogniser's activations on.
func calibrationLines() ([]calibInput, error) {
	var out []calibInput
	faces := [][]byte{goregular.TTF, gomono.TTF, gobold.TTF, goitalic.TTF}
	for i, text := range calibText {
		f, err := opentype.Parse(faces[i%len(faces)])
		if err != nil {
			return nil, err
		}
		const size = 32
		face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
		if err != nil {
			return nil, err
		}
		w := font.MeasureString(face, text).Ceil() + 16
		h := size * 3 / 2
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		bg, ink := color.RGBA{255, 255, 255, 255}, color.RGBA{0, 0, 0, 255}
		if i%2 == 1 {
			bg, ink = color.RGBA{225, 222, 215, 255}, color.RGBA{70, 70, 80, 255}
		}
		draw.Draw(img, img.Bounds(), image.NewUniform(bg), image.Point{}, draw.Src)
		d := &font.Drawer{Dst: img, Src: image.NewUniform(ink), Face: face, Dot: fixed.P(8, size*5/4-2)}
		d.DrawString(text)
		face.Close()
		c := toRGB(img)
		rw := int(math.Ceil(recHeight * float64(c.w) / float64(c.h)))
		in := make([]float32, 3*recHeight*rw)
		fill(in, c, recHeight, rw, rw)
		out = append(out, calibInput{data: in, shape: []int64{1, 3, recHeight, int64(rw)}})
	}
	return out, nil
}
