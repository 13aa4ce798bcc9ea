package contour

import (
	"image"
	"sync"
)

// run is a horizontal run of opaque pixels [x0, x1) on row y, in image
// pixels relative to the bounds' top-left corner. Runs are kept sorted by
// y, then x0.
type run struct{ y, x0, x1 int32 }

// workspace holds the buffers of one Trace, reused through a pool so that a
// trace allocates little beyond its result.
type workspace struct {
	runs   []run
	parent []int32 // union-find over runs
	area   []int64

	dropped []run
	al      []uint8  // alpha on the lattice (dust cleared); opaque ⇔ ≥ thr
	out     []uint8  // grown mask on the lattice
	fwd     []uint16 // vertical distance to an opaque pixel above, capped
	bwd     []uint16 // the same from below, one row
	latRuns [][2]int32
	rowRuns []int32
	candX   []int32
	candF   []int32
	candS   []int8
	envS    []int8  // +1: the row's nearest seed is below, -1: above
	envV    []int32 // lower envelopes of all rows, flattened
	envF    []int32
	envZ    []float64
	envRow  []int32 // per lattice row: start, end in env*
	fill    []int32 // runs of the row's own opaque pixels
	visited []uint8

	refs     []vref
	clear    []float64
	arc      []float64
	spans    []int32
	straight []bool
	keep     []bool
	stack    []int32
	idx      []int32
	pts      []Point
	clr      []float64
	gen      []int32
}

var pool = sync.Pool{New: func() any { return new(workspace) }}

func getWorkspace() *workspace  { return pool.Get().(*workspace) }
func putWorkspace(w *workspace) { pool.Put(w) }

// grow returns s resized to n, reusing its array when it is large enough;
// the contents are unspecified unless zero is set.
func grow[T any](s []T, n int, zero bool) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	if zero {
		clear(s)
	}
	return s
}

// thresholdRuns appends the runs of pixels of img whose alpha is at least
// thr, row by row.
func thresholdRuns(img image.Image, thr uint8, runs []run) []run {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 {
		return runs
	}
	switch m := img.(type) {
	case *image.NRGBA:
		for y := range h {
			off := (y) * m.Stride
			runs = scanRuns4(m.Pix[off+3:off+4*w], w, thr, int32(y), runs)
		}
		return runs
	case *image.RGBA:
		for y := range h {
			off := y * m.Stride
			runs = scanRuns4(m.Pix[off+3:off+4*w], w, thr, int32(y), runs)
		}
		return runs
	case *image.Alpha:
		for y := range h {
			off := y * m.Stride
			runs = scanRuns1(m.Pix[off:off+w], thr, int32(y), runs)
		}
		return runs
	case *image.Gray, *image.Gray16, *image.YCbCr, *image.CMYK:
		return fullRows(w, h, runs)
	case *image.Paletted:
		var opaque [256]bool
		for i, c := range m.Palette {
			_, _, _, a := c.RGBA()
			opaque[i] = uint8(a>>8) >= thr
		}
		for y := range h {
			off := y * m.Stride
			row := m.Pix[off : off+w]
			for x := 0; x < w; {
				for x < w && !opaque[row[x]] {
					x++
				}
				if x == w {
					break
				}
				x0 := x
				for x < w && opaque[row[x]] {
					x++
				}
				runs = append(runs, run{int32(y), int32(x0), int32(x)})
			}
		}
		return runs
	}
	if o, ok := img.(interface{ Opaque() bool }); ok && o.Opaque() {
		return fullRows(w, h, runs)
	}
	ws := make([]uint8, w)
	for y := range h {
		for x := range w {
			_, _, _, a := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			ws[x] = uint8(a >> 8)
		}
		runs = scanRuns1(ws, thr, int32(y), runs)
	}
	return runs
}

func fullRows(w, h int, runs []run) []run {
	for y := range h {
		runs = append(runs, run{int32(y), 0, int32(w)})
	}
	return runs
}

// scanRuns4 scans alpha bytes 4 apart (RGBA and NRGBA: a starts at the
// first pixel's alpha).
func scanRuns4(a []uint8, w int, thr uint8, y int32, runs []run) []run {
	_ = a[4*(w-1)]
	for x := 0; x < w; {
		for x < w && a[4*x] < thr {
			x++
		}
		if x == w {
			break
		}
		x0 := x
		for x < w && a[4*x] >= thr {
			x++
		}
		runs = append(runs, run{y, int32(x0), int32(x)})
	}
	return runs
}

func scanRuns1(a []uint8, thr uint8, y int32, runs []run) []run {
	w := len(a)
	for x := 0; x < w; {
		for x < w && a[x] < thr {
			x++
		}
		if x == w {
			break
		}
		x0 := x
		for x < w && a[x] >= thr {
			x++
		}
		runs = append(runs, run{y, int32(x0), int32(x)})
	}
	return runs
}

// dropDust removes the 8-connected islands of fewer than minArea pixels
// (none when minArea ≤ 0). It unions the runs of adjacent rows that touch,
// so its cost follows the number of runs, not of pixels.
func dropDust(runs []run, minArea float64, ws *workspace) []run {
	ws.dropped = ws.dropped[:0]
	if minArea <= 0 || len(runs) == 0 {
		return runs
	}
	n := len(runs)
	parent := grow(ws.parent, n, false)
	ws.parent = parent
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	// prevStart..prevEnd are the runs of the row above cur's row.
	prevStart, prevEnd := 0, 0
	for start := 0; start < n; {
		y := runs[start].y
		end := start
		for end < n && runs[end].y == y {
			end++
		}
		if prevEnd > prevStart && runs[prevStart].y == y-1 {
			i, j := prevStart, start
			for i < prevEnd && j < end {
				a, b := runs[i], runs[j]
				if a.x0 <= b.x1 && b.x0 <= a.x1 {
					ra, rb := find(int32(i)), find(int32(j))
					if ra != rb {
						parent[max(ra, rb)] = min(ra, rb)
					}
				}
				if a.x1 < b.x1 {
					i++
				} else {
					j++
				}
			}
		}
		prevStart, prevEnd = start, end
		start = end
	}
	area := grow(ws.area, n, true)
	ws.area = area
	for i, r := range runs {
		area[find(int32(i))] += int64(r.x1 - r.x0)
	}
	k := 0
	ws.dropped = ws.dropped[:0]
	for i, r := range runs {
		if float64(area[find(int32(i))]) >= minArea {
			runs[k] = r
			k++
		} else {
			ws.dropped = append(ws.dropped, r)
		}
	}
	return runs[:k]
}

// copyAlpha writes the alpha of img's pixels (relative to its bounds'
// top-left corner) in the window of w × h pixels at (x0, y0) into dst, row
// after row; pixels outside the image get 0.
func copyAlpha(img image.Image, x0, y0, w, h int, dst []uint8) {
	b := img.Bounds()
	iw, ih := b.Dx(), b.Dy()
	for j := range h {
		y := y0 + j
		if y < 0 || y >= ih {
			continue
		}
		lo, hi := max(x0, 0), min(x0+w, iw)
		if lo >= hi {
			continue
		}
		d := dst[j*w+lo-x0 : j*w+hi-x0]
		switch m := img.(type) {
		case *image.NRGBA:
			src := m.Pix[y*m.Stride+4*lo+3:]
			_ = src[4*(len(d)-1)]
			for i := range d {
				d[i] = src[4*i]
			}
		case *image.RGBA:
			src := m.Pix[y*m.Stride+4*lo+3:]
			_ = src[4*(len(d)-1)]
			for i := range d {
				d[i] = src[4*i]
			}
		case *image.Alpha:
			copy(d, m.Pix[y*m.Stride+lo:])
		case *image.Gray, *image.Gray16, *image.YCbCr, *image.CMYK:
			for i := range d {
				d[i] = 0xff
			}
		default:
			for i := range d {
				_, _, _, a := img.At(b.Min.X+lo+i, b.Min.Y+y).RGBA()
				d[i] = uint8(a >> 8)
			}
		}
	}
}
