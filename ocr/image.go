package ocr

import (
	"image"
	"image/color"
	"image/draw"
	"math"
)

// rgb is an 8-bit RGB image, 3 bytes a pixel, row by row.
type rgb struct {
	w, h int
	pix  []uint8
}

// toRGB converts an image to RGB, composing transparency over white (a
// scan with a transparent background reads as paper).
func toRGB(img image.Image) *rgb {
	b := img.Bounds()
	out := &rgb{w: b.Dx(), h: b.Dy(), pix: make([]uint8, 3*b.Dx()*b.Dy())}
	switch m := img.(type) {
	case *image.Gray:
		for y := 0; y < out.h; y++ {
			row := m.Pix[y*m.Stride : y*m.Stride+out.w]
			o := out.pix[3*y*out.w:]
			for x, v := range row {
				o[3*x], o[3*x+1], o[3*x+2] = v, v, v
			}
		}
		return out
	case *image.YCbCr:
		for y := 0; y < out.h; y++ {
			o := out.pix[3*y*out.w:]
			for x := 0; x < out.w; x++ {
				yi, ci := m.YOffset(b.Min.X+x, b.Min.Y+y), m.COffset(b.Min.X+x, b.Min.Y+y)
				r, g, bl := color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
				o[3*x], o[3*x+1], o[3*x+2] = r, g, bl
			}
		}
		return out
	case *image.NRGBA:
		for y := 0; y < out.h; y++ {
			row := m.Pix[y*m.Stride : y*m.Stride+4*out.w]
			o := out.pix[3*y*out.w:]
			for x := 0; x < out.w; x++ {
				a := uint32(row[4*x+3])
				for c := 0; c < 3; c++ {
					o[3*x+c] = uint8((uint32(row[4*x+c])*a + 255*(255-a) + 127) / 255)
				}
			}
		}
		return out
	case *image.RGBA:
		for y := 0; y < out.h; y++ {
			row := m.Pix[y*m.Stride : y*m.Stride+4*out.w]
			o := out.pix[3*y*out.w:]
			for x := 0; x < out.w; x++ {
				a := uint32(row[4*x+3])
				for c := 0; c < 3; c++ { // premultiplied
					o[3*x+c] = uint8(min(255, uint32(row[4*x+c])+(255-a)))
				}
			}
		}
		return out
	}
	// Any other model (paletted, 16-bit, CMYK): drawn over white.
	tmp := image.NewRGBA(image.Rect(0, 0, out.w, out.h))
	draw.Draw(tmp, tmp.Bounds(), image.White, image.Point{}, draw.Src)
	draw.Draw(tmp, tmp.Bounds(), img, b.Min, draw.Over)
	return toRGB(tmp)
}

// rotate returns the image turned clockwise by 90, 180 or 270 degrees.
func (m *rgb) rotate(deg int) *rgb {
	out := &rgb{pix: make([]uint8, len(m.pix))}
	switch deg {
	case 90, 270:
		out.w, out.h = m.h, m.w
	default:
		out.w, out.h = m.w, m.h
	}
	for y := 0; y < m.h; y++ {
		for x := 0; x < m.w; x++ {
			var nx, ny int
			switch deg {
			case 90:
				nx, ny = m.h-1-y, x
			case 180:
				nx, ny = m.w-1-x, m.h-1-y
			case 270:
				nx, ny = y, m.w-1-x
			default:
				nx, ny = x, y
			}
			copy(out.pix[3*(ny*out.w+nx):3*(ny*out.w+nx)+3], m.pix[3*(y*m.w+x):3*(y*m.w+x)+3])
		}
	}
	return out
}

// sample returns the bilinear interpolation of the image at (x, y), pixel
// centres at integer coordinates, clamped to the image.
func (m *rgb) sample(x, y float64) (r, g, b float64) {
	x = math.Max(0, math.Min(x, float64(m.w-1)))
	y = math.Max(0, math.Min(y, float64(m.h-1)))
	x0, y0 := int(x), int(y)
	x1, y1 := min(x0+1, m.w-1), min(y0+1, m.h-1)
	fx, fy := x-float64(x0), y-float64(y0)
	p := func(xx, yy, c int) float64 { return float64(m.pix[3*(yy*m.w+xx)+c]) }
	var out [3]float64
	for c := 0; c < 3; c++ {
		top := p(x0, y0, c)*(1-fx) + p(x1, y0, c)*fx
		bot := p(x0, y1, c)*(1-fx) + p(x1, y1, c)*fx
		out[c] = top*(1-fy) + bot*fy
	}
	return out[0], out[1], out[2]
}

// area returns the mean of the image over the source rectangle
// [x0, x1) × [y0, y1) (box filtering, for shrinking), or the bilinear
// sample at its centre when it is under a pixel wide.
func (m *rgb) area(x0, y0, x1, y1 float64) (r, g, b float64) {
	if x1-x0 <= 1 && y1-y0 <= 1 {
		return m.sample((x0+x1)/2-0.5, (y0+y1)/2-0.5)
	}
	ix0, iy0 := max(0, int(x0)), max(0, int(y0))
	ix1, iy1 := min(m.w, int(math.Ceil(x1))), min(m.h, int(math.Ceil(y1)))
	var s [3]float64
	wsum := 0.0
	for y := iy0; y < iy1; y++ {
		wy := math.Min(float64(y+1), y1) - math.Max(float64(y), y0)
		if wy <= 0 {
			continue
		}
		for x := ix0; x < ix1; x++ {
			wx := math.Min(float64(x+1), x1) - math.Max(float64(x), x0)
			if wx <= 0 {
				continue
			}
			w := wx * wy
			o := 3 * (y*m.w + x)
			s[0] += w * float64(m.pix[o])
			s[1] += w * float64(m.pix[o+1])
			s[2] += w * float64(m.pix[o+2])
			wsum += w
		}
	}
	if wsum == 0 {
		return 255, 255, 255
	}
	return s[0] / wsum, s[1] / wsum, s[2] / wsum
}

// Detector normalisation (ImageNet's, on BGR as PaddleOCR feeds it).
var (
	detMean = [3]float32{0.485, 0.456, 0.406}
	detStd  = [3]float32{0.229, 0.224, 0.225}
)

// detInput scales the image so that its longest side is at most maxSide
// and each side a multiple of 32, and returns the detector's input
// tensor (1, 3, h, w) in BGR order, normalised, in buf's memory when it
// is large enough.
func detInput(m *rgb, maxSide int, buf []float32) ([]float32, int, int) {
	ratio := 1.0
	if s := max(m.w, m.h); s > maxSide {
		ratio = float64(maxSide) / float64(s)
	}
	w := max(32, int(math.Round(float64(m.w)*ratio/32))*32)
	h := max(32, int(math.Round(float64(m.h)*ratio/32))*32)
	out := resize(buf, 3*w*h)
	sx, sy := float64(m.w)/float64(w), float64(m.h)/float64(h)
	plane := w * h
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var r, g, b float64
			if sx > 1 || sy > 1 {
				r, g, b = m.area(float64(x)*sx, float64(y)*sy, float64(x+1)*sx, float64(y+1)*sy)
			} else {
				r, g, b = m.sample((float64(x)+0.5)*sx-0.5, (float64(y)+0.5)*sy-0.5)
			}
			i := y*w + x
			out[i] = (float32(b)/255 - detMean[0]) / detStd[0]
			out[plane+i] = (float32(g)/255 - detMean[1]) / detStd[1]
			out[2*plane+i] = (float32(r)/255 - detMean[2]) / detStd[2]
		}
	}
	return out, w, h
}

// resize returns buf's memory as n values when it holds that many, else
// a new slice; the values are not cleared.
func resize[T any](buf []T, n int) []T {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]T, n)
}
