package render

import (
	"image"
	"image/color"
	"testing"
)

// offPixels is what a comparison of two rasters of one size found: which
// pixels differ by more than the tolerance in any channel, and how many.
type offPixels struct {
	mask     []bool // row by row, true where the pixel is off
	off, all int
}

// share is the fraction of the pixels that are off, 0 to 1.
func (o offPixels) share() float64 {
	if o.all == 0 {
		return 0
	}
	return float64(o.off) / float64(o.all)
}

// comparePixels compares got with want, pixel by pixel. A pixel is off
// when its red, green or blue differs by more than tolerance (0–255):
// the tolerance absorbs rounding in colour conversion and image decoding,
// the share of pixels off (checked by the caller) the antialiasing of
// edges, which every renderer does its own way. Like downsample, it is
// left out of the race detector's checks (go:norace): it reads only its
// arguments, and the checks made it the suite's slowest part.
//
//go:norace
func comparePixels(got, want *image.RGBA, tolerance int) offPixels {
	w, h := got.Rect.Dx(), got.Rect.Dy()
	o := offPixels{mask: make([]bool, w*h), all: w * h}
	for y := range h {
		g, wt := got.Pix[y*got.Stride:], want.Pix[y*want.Stride:]
		for x := range w {
			i := 4 * x
			if channelOff(g[i], wt[i], tolerance) || channelOff(g[i+1], wt[i+1], tolerance) || channelOff(g[i+2], wt[i+2], tolerance) {
				o.mask[y*w+x] = true
				o.off++
			}
		}
	}
	return o
}

func channelOff(a, b uint8, tolerance int) bool {
	d := int(a) - int(b)
	return d > tolerance || -d > tolerance
}

// diffImage shows where got is off: those pixels in red, the others as
// got faded to a quarter of their contrast, so that the picture can still
// be recognised under the red.
func diffImage(got *image.RGBA, o offPixels) *image.RGBA {
	w, h := got.Rect.Dx(), got.Rect.Dy()
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	fade := func(c uint8) uint8 { return 255 - (255-c)/4 }
	for y := range h {
		for x := range w {
			if o.mask[y*w+x] {
				out.SetRGBA(x, y, color.RGBA{R: 255, A: 255})
				continue
			}
			c := got.RGBAAt(x, y)
			out.SetRGBA(x, y, color.RGBA{R: fade(c.R), G: fade(c.G), B: fade(c.B), A: 255})
		}
	}
	return out
}

// TestFidelityComparison checks the comparison itself on rasters made in
// memory: within the tolerance is not off, past it is, in any channel.
func TestFidelityComparison(t *testing.T) {
	plain := func(c color.RGBA) *image.RGBA {
		img := image.NewRGBA(image.Rect(0, 0, 10, 10))
		for i := 0; i < len(img.Pix); i += 4 {
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
		}
		return img
	}
	base := plain(color.RGBA{100, 100, 100, 255})
	for _, c := range []struct {
		name string
		want *image.RGBA
		off  int
	}{
		{"identical", plain(color.RGBA{100, 100, 100, 255}), 0},
		{"at the tolerance", plain(color.RGBA{116, 84, 116, 255}), 0},
		{"past it in red", plain(color.RGBA{117, 100, 100, 255}), 100},
		{"past it in blue, below", plain(color.RGBA{100, 100, 83, 255}), 100},
	} {
		if got := comparePixels(base, c.want, 16); got.off != c.off || got.all != 100 {
			t.Errorf("%s: %d of %d off, want %d of 100", c.name, got.off, got.all, c.off)
		}
	}
	one := plain(color.RGBA{100, 100, 100, 255})
	one.SetRGBA(3, 4, color.RGBA{0, 0, 0, 255})
	o := comparePixels(base, one, 16)
	if o.off != 1 || !o.mask[4*10+3] || o.share() != 0.01 {
		t.Errorf("one pixel off: %d, share %v", o.off, o.share())
	}
	if d := diffImage(base, o); d.RGBAAt(3, 4) != (color.RGBA{255, 0, 0, 255}) || d.RGBAAt(0, 0) != (color.RGBA{217, 217, 217, 255}) {
		t.Errorf("diff image: %v at the pixel off, %v elsewhere", d.RGBAAt(3, 4), d.RGBAAt(0, 0))
	}
}
