package contour

import (
	"errors"
	"image"
	"math"
	"testing"
)

// FuzzTrace traces small random alpha masks: no panic, every path closed
// with finite coordinates and the orientation its kind says, and every
// opaque pixel centre inside the contours by the non-zero rule, with a
// winding number of exactly 1 there (so even-odd agrees).
func FuzzTrace(f *testing.F) {
	f.Add([]byte{4, 4, 0, 128, 255, 255, 0, 0, 255, 255, 0, 0, 0, 0, 255, 255, 0, 0, 255, 255})
	f.Add([]byte{5, 5, 2, 128, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255})
	f.Add([]byte{3, 3, 1, 1, 0, 0, 0, 0, 200, 0, 0, 0, 0})
	f.Add([]byte{8, 6, 5, 128, 10, 250, 130, 127, 140, 200, 90, 255, 255, 128, 129, 0, 64, 255, 255, 255, 255, 30})
	f.Add([]byte{7, 7, 0, 128, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0, 0, 255, 255, 0, 255, 255, 255, 0, 255, 255, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 {
			return
		}
		w, h := 1+int(data[0])%12, 1+int(data[1])%12
		offset := float64(data[2]%24) / 4
		thr := data[3]
		alpha := data[4:]
		img := image.NewNRGBA(image.Rect(0, 0, w, h))
		for i := range w * h {
			if i < len(alpha) {
				img.Pix[4*i+3] = alpha[i]
			}
		}
		c, err := Trace(img, Options{Offset: offset, Threshold: thr, MinArea: -1})
		if thr == 0 {
			thr = DefaultThreshold
		}
		var opaque []Point
		for y := range h {
			for x := range w {
				if img.Pix[y*img.Stride+4*x+3] >= thr {
					opaque = append(opaque, Point{float64(x) + 0.5, float64(y) + 0.5})
				}
			}
		}
		if len(opaque) == 0 {
			if !errors.Is(err, ErrNoOpaquePixels) {
				t.Fatalf("nothing opaque: %v", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		checkPaths(t, c)
		ps, _ := flat(c)
		for _, q := range opaque {
			if n := winding(ps, q); n != 1 {
				t.Fatalf("opaque centre %v has winding number %d\n%s", q, n, c.SVG())
			}
		}
		// Nothing is covered twice or wound backwards anywhere.
		for y := -8.0; y < float64(h)+8; y += 0.37 {
			for x := -8.0; x < float64(w)+8; x += 0.41 {
				if n := winding(ps, Point{x, y}); n != 0 && n != 1 {
					t.Fatalf("(%v, %v) has winding number %d", x, y, n)
				}
			}
		}
		// Nothing lies farther out than the offset allows: an edge at most
		// a pixel past an opaque centre, the tolerance, and the traced
		// polygon's chords, which cut across a concave corner (between two
		// merging islands) by up to half a pixel.
		for _, p := range ps {
			for _, q := range p {
				near := math.Inf(1)
				for _, o := range opaque {
					near = min(near, q.dist(o))
				}
				if near > offset+1+0.5+0.5 {
					t.Fatalf("contour point %v is %.3f px from the nearest opaque centre, offset %v", q, near, offset)
				}
			}
		}
	})
}
