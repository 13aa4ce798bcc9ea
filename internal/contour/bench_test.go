package contour

import (
	"image"
	"math"
	"sync"
	"testing"
)

var sticker = sync.OnceValue(func() *image.RGBA {
	// A sticker: a five-pointed star, three blobs (two of them touching
	// it) and a ring, antialiased over about a pixel as a renderer would.
	const n = 2000
	img := image.NewRGBA(image.Rect(0, 0, n, n))
	var star []Point
	for k := range 10 {
		r := 900.0
		if k%2 == 1 {
			r = 380
		}
		a := math.Pi*float64(k)/5 - math.Pi/2
		star = append(star, Point{1000 + r*math.Cos(a), 1050 + r*math.Sin(a)})
	}
	sd := func(x, y float64) float64 {
		// Signed distance, negative inside.
		p := Point{x, y}
		d := math.Inf(1)
		for i := range star {
			d = min(d, math.Sqrt(segDist2(p, star[i], star[(i+1)%len(star)])))
		}
		if winding([][]Point{star}, p) == 0 {
			d = -d
		}
		d = -d
		for _, b := range [][3]float64{{330, 330, 200}, {1650, 1600, 260}, {1700, 300, 150}} {
			d = min(d, math.Hypot(x-b[0], y-b[1])-b[2])
		}
		r := math.Hypot(x-400, y-1650)
		d = min(d, max(r-220, 120-r))
		return d
	}
	for y := range n {
		for x := range n {
			fx, fy := float64(x)+0.5, float64(y)+0.5
			// Far from every edge the sign is enough; near one, the
			// distance gives the antialiased coverage.
			a := min(max(0.5-sd(fx, fy), 0), 1)
			o := y*img.Stride + 4*x
			v := uint8(a*255 + 0.5)
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = v/2, v/3, v, v
		}
	}
	return img
})

func BenchmarkTrace2000(b *testing.B) {
	img := sticker()
	b.ReportAllocs()
	var c *Contour
	for b.Loop() {
		var err error
		c, err = Trace(img, Options{Offset: 20})
		if err != nil {
			b.Fatal(err)
		}
	}
	segs := 0
	for _, p := range c.Paths {
		segs += len(p.Segments)
	}
	b.ReportMetric(float64(len(c.Paths)), "paths")
	b.ReportMetric(float64(segs), "segments")
}
