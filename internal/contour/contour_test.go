package contour

import (
	"errors"
	"image"
	"image/color"
	"math"
	"strings"
	"testing"

	"github.com/tdewolff/canvas"
	"github.com/tdewolff/canvas/renderers/rasterizer"
)

// coverage draws the shape inside(x, y) with n × n supersampled coverage
// as alpha, the way an antialiasing renderer would.
func coverage(w, h, n int, inside func(x, y float64) bool) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := 0
			for sy := range n {
				for sx := range n {
					if inside(float64(x)+(float64(sx)+0.5)/float64(n), float64(y)+(float64(sy)+0.5)/float64(n)) {
						c++
					}
				}
			}
			img.Pix[y*img.Stride+4*x+3] = uint8((c*255 + n*n/2) / (n * n))
		}
	}
	return img
}

func disc(cx, cy, r float64) func(x, y float64) bool {
	return func(x, y float64) bool { return math.Hypot(x-cx, y-cy) < r }
}

func union(fs ...func(x, y float64) bool) func(x, y float64) bool {
	return func(x, y float64) bool {
		for _, f := range fs {
			if f(x, y) {
				return true
			}
		}
		return false
	}
}

// flat returns every path flattened finely, and the total shoelace area.
func flat(c *Contour) ([][]Point, float64) {
	var ps [][]Point
	var a float64
	for _, p := range c.Paths {
		f := p.Flatten(0.005)
		ps = append(ps, f)
		a += polygonArea(f)
	}
	return ps, a
}

// winding is the winding number of the polygons around q: +1 inside an
// outer contour (clockwise on screen, y down), -1 inside a hole alone.
func winding(ps [][]Point, q Point) int {
	w := 0
	for _, p := range ps {
		n := len(p)
		for i := range n {
			a, b := p[i], p[(i+1)%n]
			side := b.sub(a).cross(q.sub(a))
			if a.Y <= q.Y {
				if b.Y > q.Y && side > 0 {
					w++
				}
			} else if b.Y <= q.Y && side < 0 {
				w--
			}
		}
	}
	return w
}

func trace(t testing.TB, img image.Image, o Options) *Contour {
	t.Helper()
	c, err := Trace(img, o)
	if err != nil {
		t.Fatal(err)
	}
	checkPaths(t, c)
	return c
}

// checkPaths checks what holds for every result: closed paths, finite
// coordinates, outer contours clockwise and holes counter-clockwise.
func checkPaths(t testing.TB, c *Contour) {
	t.Helper()
	for i, p := range c.Paths {
		if len(p.Segments) == 0 {
			t.Fatalf("path %d has no segment", i)
		}
		if p.Segments[len(p.Segments)-1].End != p.Start {
			t.Fatalf("path %d is not closed: starts at %v, ends at %v", i, p.Start, p.Segments[len(p.Segments)-1].End)
		}
		if !p.Start.finite() {
			t.Fatalf("path %d starts at %v", i, p.Start)
		}
		for _, s := range p.Segments {
			if !s.C1.finite() || !s.C2.finite() || !s.End.finite() {
				t.Fatalf("path %d has a segment %v", i, s)
			}
		}
		if a := p.Area(); (a > 0) == p.Hole {
			t.Fatalf("path %d: hole %v with area %v", i, p.Hole, a)
		}
	}
}

func TestDisc(t *testing.T) {
	const cx, cy = 80.3, 79.6
	for _, r := range []float64{12, 40} {
		img := coverage(160, 160, 8, disc(cx, cy, r))
		for _, d := range []float64{0, 1, 5, 20} {
			c := trace(t, img, Options{Offset: d})
			if len(c.Paths) != 1 {
				t.Fatalf("r %v d %v: %d paths", r, d, len(c.Paths))
			}
			ps, area := flat(c)
			R := r + d
			for _, q := range ps[0] {
				if e := math.Hypot(q.X-cx, q.Y-cy) - R; math.Abs(e) > 0.75 {
					t.Fatalf("r %v d %v: %v is %.3f px off the radius %v", r, d, q, e, R)
				}
			}
			want := math.Pi * R * R
			// At offset 0 the contour keeps ½ px off opaque centres, so it
			// may run up to ½ px outside an antialiased edge.
			if tol := 0.01; d > 0 && math.Abs(area/want-1) > tol {
				t.Errorf("r %v d %v: area %.1f, want %.1f ± 1%%", r, d, area, want)
			}
			if math.Abs(c.Area()-area) > 1e-3*want {
				t.Errorf("r %v d %v: exact area %.3f, flattened %.3f", r, d, c.Area(), area)
			}
		}
	}
}

func TestSquareHasRoundedCorners(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 100, 100))
	for y := 20; y < 80; y++ {
		for x := 20; x < 80; x++ {
			img.Set(x, y, color.NRGBA{200, 10, 10, 255})
		}
	}
	for _, d := range []float64{3, 12} {
		c := trace(t, img, Options{Offset: d})
		if len(c.Paths) != 1 {
			t.Fatalf("d %v: %d paths", d, len(c.Paths))
		}
		ps, _ := flat(c)
		onArc := 0
		for _, q := range ps[0] {
			// The distance to the square [20, 80]² is d everywhere: along
			// the sides and, round the corners, from the corner itself.
			dx := max(20-q.X, 0, q.X-80)
			dy := max(20-q.Y, 0, q.Y-80)
			if e := math.Hypot(dx, dy) - d; math.Abs(e) > 0.3 {
				t.Fatalf("d %v: %v is %.3f px off the offset", d, q, e)
			}
			if dx > 0.5 && dy > 0.5 {
				onArc++
			}
		}
		if onArc < 8 {
			t.Errorf("d %v: only %d points round the corners", d, onArc)
		}
	}
}

func TestFullyOpaque(t *testing.T) {
	for _, img := range []image.Image{
		image.NewGray(image.Rect(10, 10, 60, 40)),
		func() image.Image {
			m := image.NewRGBA(image.Rect(0, 0, 50, 30))
			for i := range m.Pix {
				m.Pix[i] = 0xff
			}
			return m
		}(),
	} {
		const d = 5
		c := trace(t, img, Options{Offset: d})
		if len(c.Paths) != 1 || c.Width != 50 || c.Height != 30 {
			t.Fatalf("%T: %d paths, %d × %d", img, len(c.Paths), c.Width, c.Height)
		}
		ps, area := flat(c)
		minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, q := range ps[0] {
			minX, minY, maxX, maxY = min(minX, q.X), min(minY, q.Y), max(maxX, q.X), max(maxY, q.Y)
		}
		if math.Abs(minX+d) > 0.2 || math.Abs(minY+d) > 0.2 || math.Abs(maxX-50-d) > 0.2 || math.Abs(maxY-30-d) > 0.2 {
			t.Errorf("%T: bounds [%.2f, %.2f] × [%.2f, %.2f], want [-5, 55] × [-5, 35]", img, minX, maxX, minY, maxY)
		}
		want := 60.0*40 - (4-math.Pi)*d*d
		if math.Abs(area-want) > 0.005*want {
			t.Errorf("%T: area %.1f, want %.1f (rounded corners)", img, area, want)
		}
	}
}

func TestIslandsMergeWithinTwiceTheOffset(t *testing.T) {
	const r, d = 10.0, 5.0
	for _, tc := range []struct {
		gap   float64
		paths int
	}{{14, 2}, {11.5, 2}, {8.5, 1}, {3, 1}} {
		x2 := 30 + 2*r + tc.gap
		img := coverage(int(x2+r+30), 60, 4, union(disc(30, 30, r), disc(x2, 30, r)))
		c := trace(t, img, Options{Offset: d})
		if len(c.Paths) != tc.paths {
			t.Errorf("gap %v: %d paths, want %d", tc.gap, len(c.Paths), tc.paths)
		}
	}
}

func TestRingHasAHole(t *testing.T) {
	const cx, cy = 60.5, 60.5
	img := coverage(121, 121, 4, func(x, y float64) bool {
		r := math.Hypot(x-cx, y-cy)
		return r < 40 && r > 20
	})
	c := trace(t, img, Options{Offset: 5})
	if len(c.Paths) != 2 || c.Paths[0].Hole || !c.Paths[1].Hole {
		t.Fatalf("%d paths, want an outer one then a hole", len(c.Paths))
	}
	if c.Paths[0].Area() <= 0 || c.Paths[1].Area() >= 0 {
		t.Fatalf("areas %v and %v: want opposite windings", c.Paths[0].Area(), c.Paths[1].Area())
	}
	ps, area := flat(c)
	for i, R := range []float64{45, 15} {
		for _, q := range ps[i] {
			if e := math.Hypot(q.X-cx, q.Y-cy) - R; math.Abs(e) > 0.75 {
				t.Fatalf("path %d: %v is %.3f px off %v", i, q, e, R)
			}
		}
	}
	if want := math.Pi * (45*45 - 15*15); math.Abs(area/want-1) > 0.01 {
		t.Errorf("area %.1f, want %.1f", area, want)
	}
	if w := winding(ps, Point{cx, cy}); w != 0 {
		t.Errorf("winding %d at the centre", w)
	}
	if w := winding(ps, Point{cx + 30, cy}); w != 1 {
		t.Errorf("winding %d in the ring", w)
	}
}

func star(cx, cy, r0, r1 float64, n int) func(x, y float64) bool {
	var pts []Point
	for k := range 2 * n {
		r := r1
		if k%2 == 1 {
			r = r0
		}
		a := math.Pi*float64(k)/float64(n) - math.Pi/2
		pts = append(pts, Point{cx + r*math.Cos(a), cy + r*math.Sin(a)})
	}
	return func(x, y float64) bool { return winding([][]Point{pts}, Point{x, y}) != 0 }
}

// hausdorff is the larger of the two directed distances between the closed
// polygons a and b (vertices against edges).
func hausdorff(a, b []Point) float64 {
	dir := func(a, b []Point) float64 {
		var h float64
		for _, p := range a {
			d := math.Inf(1)
			for i := range b {
				d = min(d, segDist2(p, b[i], b[(i+1)%len(b)]))
			}
			h = max(h, d)
		}
		return math.Sqrt(h)
	}
	return max(dir(a, b), dir(b, a))
}

func TestSimplifiedStaysWithinTolerance(t *testing.T) {
	img := coverage(220, 220, 4, union(star(110, 110, 45, 95, 5), disc(40, 40, 25)))
	for _, tc := range []struct{ d, tol float64 }{{0, 0.25}, {4, 0.5}, {10, 0.2}} {
		ws := getWorkspace()
		ws.runs = thresholdRuns(img, DefaultThreshold, ws.runs[:0])
		l := ws.dilate(img, ws.runs, tc.d, DefaultThreshold)
		raws := l.trace(ws)
		if len(raws) == 0 {
			t.Fatal("nothing traced")
		}
		for i := range raws {
			raws[i] = dedupe(raws[i])
		}
		clear := clearances(raws, tc.tol, ws)
		for i, raw := range raws {
			raw = append([]Point(nil), raw...)
			p, ok := smoothPath(append([]Point(nil), raw...), append([]float64(nil), clear[i]...), tc.tol, ws)
			if !ok {
				t.Fatal("degenerate")
			}
			if len(raw) >= 40 && len(p.Segments)*2 > len(raw) {
				t.Errorf("d %v: %d segments for %d traced points: hardly simplified", tc.d, len(p.Segments), len(raw))
			}
			if h := hausdorff(p.Flatten(0.005), raw); h > tc.tol+0.01 {
				t.Errorf("d %v: Hausdorff distance %.3f to the traced polygon, tolerance %v", tc.d, h, tc.tol)
			}
		}
		putWorkspace(ws)
	}
}

func TestDustIsIgnored(t *testing.T) {
	img := coverage(100, 100, 4, disc(50, 50, 20))
	for _, p := range []image.Point{{5, 5}, {90, 10}, {10, 88}} {
		for y := range 3 {
			for x := range 3 {
				img.Set(p.X+x, p.Y+y, color.NRGBA{0, 0, 0, 255})
			}
		}
	}
	// A 2 × 2 pinhole in the disc.
	for y := 49; y < 51; y++ {
		for x := 49; x < 51; x++ {
			img.Set(x, y, color.NRGBA{})
		}
	}
	c := trace(t, img, Options{})
	if len(c.Paths) != 1 || c.Paths[0].Hole {
		t.Errorf("default: %d paths, want the disc alone", len(c.Paths))
	}
	c = trace(t, img, Options{MinArea: -1})
	holes := 0
	for _, p := range c.Paths {
		if p.Hole {
			holes++
		}
	}
	if len(c.Paths) != 5 || holes != 1 {
		t.Errorf("everything kept: %d paths (%d holes), want 5 (1)", len(c.Paths), holes)
	}
	c = trace(t, img, Options{MinArea: 10})
	if len(c.Paths) != 1 {
		t.Errorf("min area 10: %d paths, want 1", len(c.Paths))
	}
	c = trace(t, img, Options{MinArea: 9})
	if len(c.Paths) != 4 {
		t.Errorf("min area 9: %d paths, want 4 (3 × 3 specks are kept)", len(c.Paths))
	}
}

func TestNothingOpaque(t *testing.T) {
	dust := image.NewNRGBA(image.Rect(0, 0, 40, 40))
	dust.Set(3, 3, color.NRGBA{0, 0, 0, 255})
	faint := image.NewNRGBA(image.Rect(0, 0, 40, 40))
	for i := 3; i < len(faint.Pix); i += 4 {
		faint.Pix[i] = 127
	}
	for name, img := range map[string]image.Image{
		"transparent": image.NewNRGBA(image.Rect(0, 0, 40, 40)),
		"empty":       image.NewRGBA(image.Rectangle{}),
		"dust":        dust,
		"faint":       faint,
	} {
		c, err := Trace(img, Options{Offset: 3})
		if !errors.Is(err, ErrNoOpaquePixels) || c != nil {
			t.Errorf("%s: %v, %v; want ErrNoOpaquePixels", name, c, err)
		}
	}
	if _, err := Trace(faint, Options{Threshold: 127}); err != nil {
		t.Errorf("faint at threshold 127: %v", err)
	}
}

func TestInvalidOptions(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 4, 4))
	for _, o := range []Options{{Offset: -1}, {Offset: math.NaN()}, {Offset: MaxOffset + 1}, {Tolerance: -1}, {MinArea: math.NaN()}} {
		if _, err := Trace(img, o); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

// TestImageTypes checks that every fast path reads alpha the same way as
// the generic one.
func TestImageTypes(t *testing.T) {
	src := coverage(64, 48, 4, union(disc(20, 20, 12), star(44, 28, 7, 16, 5)))
	want := trace(t, src, Options{Offset: 2}).SVG()
	rgba := image.NewRGBA(src.Bounds())
	alpha := image.NewAlpha(image.Rect(5, 7, 69, 55))
	pal := image.NewPaletted(src.Bounds(), nil)
	for a := range 256 {
		pal.Palette = append(pal.Palette, color.NRGBA{0, 0, 0, uint8(a)})
	}
	for y := range 48 {
		for x := range 64 {
			c := src.NRGBAAt(x, y)
			rgba.Set(x, y, c)
			alpha.SetAlpha(x+5, y+7, color.Alpha{c.A})
			pal.SetColorIndex(x, y, c.A)
		}
	}
	generic := struct{ image.Image }{src}
	for _, img := range []image.Image{rgba, alpha, pal, generic} {
		if got := trace(t, img, Options{Offset: 2}).SVG(); got != want {
			t.Errorf("%T traces differently:\n%s\nwant\n%s", img, got, want)
		}
	}
}

func TestSVGAndCanvasPath(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 10, 20))
	c := trace(t, img, Options{Offset: 2})
	d := c.SVG()
	if !strings.HasPrefix(d, "M") || !strings.HasSuffix(d, "Z") || strings.Count(d, "C") != len(c.Paths[0].Segments) {
		t.Errorf("SVG %q", d)
	}
	p := c.CanvasPath(0.5, true)
	b := p.Bounds()
	// −2 … 12 px and −2 … 22 px, y flipped against 20, at ½ mm a pixel.
	if math.Abs(b.X0+1) > 0.1 || math.Abs(b.X1-6) > 0.1 || math.Abs(b.Y0+1) > 0.1 || math.Abs(b.Y1-11) > 0.1 {
		t.Errorf("canvas bounds %v", b)
	}
	// Clockwise on screen either way: in y-up numbers once flipped, in
	// y-down numbers (which canvas reads as y-up) when not.
	if p.CCW() {
		t.Error("flipped outer contour is counter-clockwise in y-up terms")
	}
	if !c.CanvasPath(1, false).CCW() {
		t.Error("unflipped outer contour is clockwise in y-up terms")
	}
}

// TestRasterized fills the contour with canvas's rasterizer and checks it
// against the source pixels: every opaque pixel filled, and nothing filled
// farther than the offset and 1.5 px from every opaque pixel centre (2 px
// for antialiased art, whose edge may lie up to a pixel beyond an opaque
// centre).
func TestRasterized(t *testing.T) {
	hard := image.NewNRGBA(image.Rect(0, 0, 90, 70))
	for y := range 70 {
		for x := range 90 {
			fx, fy := float64(x)+0.5, float64(y)+0.5
			if math.Hypot(fx-25, fy-30) < 15 || (fx > 50 && fx < 80 && fy > 10 && fy < 25) || math.Abs(fx-60)+math.Abs(fy-50) < 12 {
				hard.Set(x, y, color.NRGBA{0, 0, 0, 255})
			}
		}
	}
	soft := coverage(90, 70, 4, union(star(30, 35, 12, 28, 5), disc(70, 20, 9), disc(72, 52, 6)))
	for _, tc := range []struct {
		name  string
		img   *image.NRGBA
		slack float64
	}{{"hard", hard, 1.5}, {"soft", soft, 2}} {
		for _, d := range []float64{0, 2, 6} {
			c := trace(t, tc.img, Options{Offset: d, MinArea: -1})
			m := int(d) + 4
			w, h := c.Width+2*m, c.Height+2*m
			dst := image.NewRGBA(image.Rect(0, 0, w, h))
			ras := rasterizer.FromImage(dst, canvas.DPMM(1), canvas.LinearColorSpace{})
			ras.RenderPath(c.CanvasPath(1, true), canvas.DefaultStyle, canvas.Identity.Translate(float64(m), float64(m)))
			ras.Close()
			var opaque []image.Point
			for y := range c.Height {
				for x := range c.Width {
					if tc.img.NRGBAAt(x, y).A >= DefaultThreshold {
						opaque = append(opaque, image.Pt(x, y))
					}
				}
			}
			for _, p := range opaque {
				if a := dst.RGBAAt(p.X+m, p.Y+m).A; a < 128 {
					t.Fatalf("%s d %v: opaque pixel %v only %d/255 filled", tc.name, d, p, a)
				}
			}
			for y := range h {
				for x := range w {
					if dst.RGBAAt(x, y).A < 128 {
						continue
					}
					near := math.Inf(1)
					for _, p := range opaque {
						near = min(near, math.Hypot(float64(x-m-p.X), float64(y-m-p.Y)))
					}
					if near > d+tc.slack {
						t.Fatalf("%s d %v: pixel (%d, %d) is filled %.2f px from the nearest opaque pixel", tc.name, d, x-m, y-m, near)
					}
				}
			}
		}
	}
}

func TestConcurrentTraces(t *testing.T) {
	img := coverage(80, 80, 4, star(40, 40, 15, 35, 6))
	want := trace(t, img, Options{Offset: 3}).SVG()
	errs := make(chan string, 8)
	for range 8 {
		go func() {
			c, err := Trace(img, Options{Offset: 3})
			if err != nil {
				errs <- err.Error()
				return
			}
			if c.SVG() != want {
				errs <- "a concurrent trace differs"
				return
			}
			errs <- ""
		}()
	}
	for range 8 {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}
