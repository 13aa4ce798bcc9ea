package contour

import (
	"math"
)

// lattice is the grid of pixel centres the contour is traced on: the
// bounding box of the opaque pixels grown by pad on every side, so that its
// border lies outside the grown mask. Lattice point (i, j) is the centre of
// image pixel (i+ox, j+oy).
//
// The distance D of a lattice point is the Euclidean distance from its
// centre to the centre of the nearest opaque pixel. A point is inside the
// grown mask when D ≤ T = offset + 0.5: each opaque pixel counts for a disc
// of radius 0.5 around its centre, so that at offset 0 the boundary passes
// half-way between an opaque and a transparent centre, the pixels' edge.
type lattice struct {
	ws     *workspace
	w, h   int
	ox, oy int
	t      float64 // threshold distance T
	t2     int64   // floor(T²): inside ⇔ D² ≤ t2 (D² is an integer)
	cap    int     // distances ≥ cap are not needed exactly (cap > T + √2)
}

// dilate builds the lattice for runs (sorted, non-empty) grown by offset:
// the opaque mask ws.in, the grown mask ws.out and, per lattice row, the
// lower envelope of the Felzenszwalb–Huttenlocher distance transform from
// which exact distances are read back where the contour crosses.
//
// The transform is exact but capped: the vertical pass counts at most cap
// rows, and the horizontal pass leaves out the columns whose vertical
// distance reached the cap, since they cannot bring a point within T.
// Inside a run of opaque pixels only its two ends enter the envelope; the
// pixels between are inside anyway and have D = 0.
func (ws *workspace) dilate(runs []run, offset float64) *lattice {
	t := offset + 0.5
	pad := int(math.Ceil(t)) + 1
	capD := int(math.Ceil(t)) + 2
	minX, maxX := runs[0].x0, runs[0].x1
	for _, r := range runs {
		minX = min(minX, r.x0)
		maxX = max(maxX, r.x1)
	}
	minY, maxY := runs[0].y, runs[len(runs)-1].y
	l := &lattice{
		ws:  ws,
		w:   int(maxX-minX) + 2*pad,
		h:   int(maxY-minY+1) + 2*pad,
		ox:  int(minX) - pad,
		oy:  int(minY) - pad,
		t:   t,
		t2:  int64(math.Floor(t * t)),
		cap: capD,
	}
	w, h := l.w, l.h
	in := grow(ws.in, w*h, true)
	ws.in = in
	for _, r := range runs {
		row := (int(r.y) - l.oy) * w
		seg := in[row+int(r.x0)-l.ox : row+int(r.x1)-l.ox]
		for i := range seg {
			seg[i] = 1
		}
	}
	out := grow(ws.out, w*h, true)
	ws.out = out
	c := uint16(capD)

	// Vertical pass, downwards: rows above the content are all at the cap.
	fwd := grow(ws.fwd, w*h, false)
	ws.fwd = fwd
	first := fwd[:w]
	for x := range first {
		first[x] = c
	}
	for j := 1; j < h; j++ {
		prev := fwd[(j-1)*w : j*w]
		row := fwd[j*w : (j+1)*w]
		inr := in[j*w : (j+1)*w]
		for x := range row {
			v := min(prev[x]+1, c)
			if inr[x] != 0 {
				v = 0
			}
			row[x] = v
		}
	}

	// Vertical pass upwards, fused with the horizontal pass row by row.
	bwd := grow(ws.bwd, w, false)
	ws.bwd = bwd
	for x := range bwd {
		bwd[x] = c
	}
	g := grow(ws.gRow, w, false)
	ws.gRow = g
	ws.envRow = grow(ws.envRow, 2*h, false)
	ws.envV, ws.envF, ws.envZ = ws.envV[:0], ws.envF[:0], ws.envZ[:0]
	for j := h - 1; j >= 0; j-- {
		inr := in[j*w : (j+1)*w]
		frow := fwd[j*w : (j+1)*w]
		for x := range g {
			v := min(bwd[x]+1, c)
			if inr[x] != 0 {
				v = 0
			}
			bwd[x] = v
			g[x] = min(v, frow[x])
		}
		l.row(j, g, out[j*w:(j+1)*w])
	}
	return l
}

// row computes lattice row j's lower envelope from its vertical distances
// g and marks the row's points within T in out.
func (l *lattice) row(j int, g []uint16, out []uint8) {
	ws := l.ws
	c := uint16(l.cap)
	w := len(g)
	cx, cf, fill := ws.candX[:0], ws.candF[:0], ws.fill[:0]
	for x := 0; x < w; x++ {
		v := g[x]
		if v >= c {
			continue
		}
		if v == 0 {
			e := x + 1
			for e < w && g[e] == 0 {
				e++
			}
			cx, cf = append(cx, int32(x)), append(cf, 0)
			if e-1 > x {
				cx, cf = append(cx, int32(e-1)), append(cf, 0)
			}
			fill = append(fill, int32(x), int32(e))
			x = e - 1
			continue
		}
		cx, cf = append(cx, int32(x)), append(cf, int32(v)*int32(v))
	}
	ws.candX, ws.candF, ws.fill = cx, cf, fill

	start := len(ws.envV)
	envV, envF, envZ := ws.envV, ws.envF, ws.envZ
	for i, q := range cx {
		fq := cf[i]
		if len(envV) == start {
			envV, envF, envZ = append(envV, q), append(envF, fq), append(envZ, math.Inf(-1))
			continue
		}
		var s float64
		for {
			k := len(envV) - 1
			v, fv := envV[k], envF[k]
			s = (float64(int64(fq)+int64(q)*int64(q)) - float64(int64(fv)+int64(v)*int64(v))) / float64(2*(int64(q)-int64(v)))
			if s > envZ[k] {
				break
			}
			envV, envF, envZ = envV[:k], envF[:k], envZ[:k]
		}
		envV, envF, envZ = append(envV, q), append(envF, fq), append(envZ, s)
	}
	ws.envV, ws.envF, ws.envZ = envV, envF, envZ
	end := len(envV)
	ws.envRow[2*j], ws.envRow[2*j+1] = int32(start), int32(end)

	for i := 0; i < len(fill); i += 2 {
		seg := out[fill[i]:fill[i+1]]
		for k := range seg {
			seg[k] = 1
		}
	}
	for k := start; k < end; k++ {
		f := int64(envF[k])
		if f > l.t2 {
			continue
		}
		r := isqrt(l.t2 - f)
		v := int64(envV[k])
		lo, hi := v-r, v+r
		if k > start {
			lo = max(lo, int64(math.Ceil(envZ[k])))
		}
		if k+1 < end {
			hi = min(hi, int64(math.Ceil(envZ[k+1]))-1)
		}
		lo, hi = max(lo, 0), min(hi, int64(w-1))
		if lo <= hi {
			seg := out[lo : hi+1]
			for i := range seg {
				seg[i] = 1
			}
		}
	}
}

// isqrt is ⌊√n⌋ for n ≥ 0.
func isqrt(n int64) int64 {
	r := int64(math.Sqrt(float64(n)))
	for r*r > n {
		r--
	}
	for (r+1)*(r+1) <= n {
		r++
	}
	return r
}

// dist2 is the squared distance D² of lattice point (i, j), exact when
// below cap², else at least cap².
func (l *lattice) dist2(i, j int) int64 {
	ws := l.ws
	if ws.in[j*l.w+i] != 0 {
		return 0
	}
	s, e := int(ws.envRow[2*j]), int(ws.envRow[2*j+1])
	if s == e {
		return int64(l.cap) * int64(l.cap)
	}
	// The last segment starting at or before i.
	x := float64(i)
	lo, hi := s+1, e
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ws.envZ[m] <= x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	k := lo - 1
	d := int64(i) - int64(ws.envV[k])
	return min(d*d+int64(ws.envF[k]), int64(l.cap)*int64(l.cap))
}

// dist is D of lattice point (i, j).
func (l *lattice) dist(i, j int) float64 { return math.Sqrt(float64(l.dist2(i, j))) }

// inside reports whether lattice point (i, j) is in the grown mask.
func (l *lattice) inside(i, j int) bool { return l.ws.out[j*l.w+i] != 0 }
