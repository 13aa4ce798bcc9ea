package contour

import (
	"image"
	"math"
)

// lattice is the grid of pixel centres the contour is traced on: the
// bounding box of the opaque pixels grown by pad on every side, so that its
// border lies outside the grown mask. Lattice point (i, j) is the centre of
// image pixel (i+ox, j+oy).
//
// D(p) is the exact Euclidean distance from lattice point p to the nearest
// opaque pixel centre q (a seed). The edge of the artwork lies some way s
// beyond q towards p: where the alpha, sampled bilinearly from q along the
// ray to p, falls through the threshold (s = ½ for a hard edge, anything in
// [0, 1] for an antialiased one). The contour is the level set
// D'(p) = D(p) + ½ − s = T, with T = offset + ½, so that it runs the offset
// outside the antialiased edge to within a few hundredths of a pixel rather
// than outside the pixel staircase. Since 0 ≤ s ≤ 1, every point with
// D ≤ offset is inside and every point with D > offset + 1 outside: only
// the band between needs s.
type lattice struct {
	ws     *workspace
	w, h   int
	ox, oy int
	thr    uint8
	level  float64 // the alpha of the edge: thr − ½
	t      float64 // T = offset + ½
	in2    int64   // ⌊offset²⌋: D² ≤ in2 is inside
	band2  int64   // ⌊(offset+1)²⌋: D² > band2 is outside
	cap    int     // distances ≥ cap are not needed exactly
	clampT bool    // offset < 1: keep the contour ½ px off opaque centres
}

// dilate builds the lattice for runs (sorted, non-empty) of img's opaque
// pixels grown by offset: the alpha ws.al, the grown mask ws.out and, per
// lattice row, the lower envelope of the Felzenszwalb–Huttenlocher distance
// transform from which exact distances are read back where the contour
// crosses.
//
// The transform is exact but capped: the vertical passes count at most cap
// rows, and the horizontal pass leaves out the columns whose vertical
// distance reached the cap, since they cannot bring a point within reach.
// Inside a run of opaque pixels only its two ends enter the envelope; the
// pixels between are inside anyway.
func (ws *workspace) dilate(img image.Image, runs []run, offset float64, thr uint8) *lattice {
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
		ws:     ws,
		w:      int(maxX-minX) + 2*pad,
		h:      int(maxY-minY+1) + 2*pad,
		ox:     int(minX) - pad,
		oy:     int(minY) - pad,
		thr:    thr,
		level:  float64(thr) - 0.5,
		t:      t,
		in2:    int64(math.Floor(offset * offset)),
		band2:  int64(math.Floor((offset + 1) * (offset + 1))),
		cap:    capD,
		clampT: offset < 1,
	}
	w, h := l.w, l.h
	al := grow(ws.al, w*h, true)
	ws.al = al
	copyAlpha(img, l.ox, l.oy, w, h, al)
	for _, r := range ws.dropped {
		row := (int(r.y) - l.oy) * w
		if row < 0 || row >= len(al) {
			continue
		}
		lo, hi := max(int(r.x0)-l.ox, 0), min(int(r.x1)-l.ox, w)
		if lo < hi {
			clear(al[row+lo : row+hi])
		}
	}
	out := grow(ws.out, w*h, true)
	ws.out = out
	c := uint16(capD)

	// The opaque runs of each lattice row, in lattice columns: inside them
	// every distance is 0 and only their ends are seeds, so the passes below
	// work pixel by pixel only between them.
	lr := grow(ws.latRuns, len(runs), false)
	ws.latRuns = lr
	rowRuns := grow(ws.rowRuns, h+1, true)
	ws.rowRuns = rowRuns
	for i, r := range runs {
		lr[i] = [2]int32{r.x0 - int32(l.ox), r.x1 - int32(l.ox)}
		rowRuns[int(r.y)-l.oy+1] = int32(i + 1)
	}
	for j := 1; j <= h; j++ {
		rowRuns[j] = max(rowRuns[j], rowRuns[j-1])
	}
	between := func(j int, f func(x0, x1 int), onRun func(x0, x1 int)) {
		x := 0
		for _, r := range lr[rowRuns[j]:rowRuns[j+1]] {
			if int(r[0]) > x {
				f(x, int(r[0]))
			}
			onRun(int(r[0]), int(r[1]))
			x = int(r[1])
		}
		if x < w {
			f(x, w)
		}
	}

	// Vertical pass, downwards: fwd is the distance to the nearest seed at
	// or above, in rows.
	fwd := grow(ws.fwd, w*h, false)
	ws.fwd = fwd
	first := fwd[:w]
	for x := range first {
		first[x] = c
	}
	for j := 1; j < h; j++ {
		prev := fwd[(j-1)*w : j*w]
		row := fwd[j*w : (j+1)*w]
		between(j, func(x0, x1 int) { step(row[x0:x1], prev[x0:x1], c) }, func(x0, x1 int) { clear(row[x0:x1]) })
	}

	// Vertical pass upwards, fused with the horizontal pass row by row.
	bwd := grow(ws.bwd, w, false)
	ws.bwd = bwd
	for x := range bwd {
		bwd[x] = c
	}
	ws.envRow = grow(ws.envRow, 2*h, false)
	ws.envV, ws.envF, ws.envZ, ws.envS = ws.envV[:0], ws.envF[:0], ws.envZ[:0], ws.envS[:0]
	for j := h - 1; j >= 0; j-- {
		frow := fwd[j*w : (j+1)*w]
		cx, cf, cs, fill := ws.candX[:0], ws.candF[:0], ws.candS[:0], ws.fill[:0]
		between(j, func(x0, x1 int) {
			b, f := bwd[x0:x1], frow[x0:x1]
			f = f[:len(b)]
			for i := range b {
				v := min(b[i]+1, c)
				b[i] = v
				if fv := f[i]; fv < v {
					if fv < c {
						cx, cf, cs = append(cx, int32(x0+i)), append(cf, int32(fv)*int32(fv)), append(cs, -1)
					}
				} else if v < c {
					cx, cf, cs = append(cx, int32(x0+i)), append(cf, int32(v)*int32(v)), append(cs, 1)
				}
			}
		}, func(x0, x1 int) {
			clear(bwd[x0:x1])
			cx, cf, cs = append(cx, int32(x0)), append(cf, 0), append(cs, 1)
			if x1-1 > x0 {
				cx, cf, cs = append(cx, int32(x1-1)), append(cf, 0), append(cs, 1)
			}
			fill = append(fill, int32(x0), int32(x1))
		})
		ws.candX, ws.candF, ws.candS, ws.fill = cx, cf, cs, fill
		l.row(j, out[j*w:(j+1)*w])
	}
	return l
}

// step sets dst[i] = min(src[i]+1, c): one row further from the seeds.
func step(dst, src []uint16, c uint16) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = min(src[i]+1, c)
	}
}

// row computes lattice row j's lower envelope from its seeds (ws.candX,
// candF, candS, in column order) and marks the row's inside points in out,
// the opaque runs ws.fill among them.
func (l *lattice) row(j int, out []uint8) {
	ws := l.ws
	w := len(out)
	cx, cf, cs, fill := ws.candX, ws.candF, ws.candS, ws.fill
	start := len(ws.envV)
	envV, envF, envZ, envS := ws.envV, ws.envF, ws.envZ, ws.envS
	for i, q := range cx {
		fq := cf[i]
		s := math.Inf(-1)
		for len(envV) > start {
			k := len(envV) - 1
			v, fv := envV[k], envF[k]
			s = (float64(int64(fq)+int64(q)*int64(q)) - float64(int64(fv)+int64(v)*int64(v))) / float64(2*(int64(q)-int64(v)))
			if s > envZ[k] {
				break
			}
			envV, envF, envZ, envS = envV[:k], envF[:k], envZ[:k], envS[:k]
			s = math.Inf(-1)
		}
		envV, envF, envZ, envS = append(envV, q), append(envF, fq), append(envZ, s), append(envS, cs[i])
	}
	ws.envV, ws.envF, ws.envZ, ws.envS = envV, envF, envZ, envS
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
		if f > l.band2 {
			continue
		}
		v := int64(envV[k])
		dlo, dhi := int64(0), int64(w-1)
		if k > start {
			dlo = max(dlo, int64(math.Ceil(envZ[k])))
		}
		if k+1 < end {
			dhi = min(dhi, int64(math.Ceil(envZ[k+1]))-1)
		}
		// Certainly inside: D ≤ offset.
		r := int64(-1)
		if f <= l.in2 {
			r = isqrt(l.in2 - f)
			if lo, hi := max(v-r, dlo), min(v+r, dhi); lo <= hi {
				seg := out[lo : hi+1]
				for i := range seg {
					seg[i] = 1
				}
			}
		}
		// The band: decide each point on D'.
		rb := isqrt(l.band2 - f)
		for _, iv := range [2][2]int64{{v - rb, v - r - 1}, {v + r + 1, v + rb}} {
			for x := max(iv[0], dlo); x <= min(iv[1], dhi); x++ {
				if out[x] == 0 && l.refined(int(x), j, k) <= l.t {
					out[x] = 1
				}
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

func (l *lattice) opaque(i, j int) bool { return l.ws.al[j*l.w+i] >= l.thr }

// segment is the envelope segment of row j that holds column i, or -1 when
// the row has no seed within the cap.
func (l *lattice) segment(i, j int) int {
	ws := l.ws
	s, e := int(ws.envRow[2*j]), int(ws.envRow[2*j+1])
	if s == e {
		return -1
	}
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
	return lo - 1
}

// refined is D' of the non-opaque lattice point (i, j) whose nearest seed
// is given by envelope segment k of its row. The nearest seed is not always
// the one whose edge is nearest (a seed with alpha just over the threshold
// has its edge at its centre, its inner neighbour's lies a pixel on), so
// the opaque pixels around it compete too.
func (l *lattice) refined(i, j, k int) float64 {
	ws := l.ws
	f := ws.envF[k]
	gy := int(math.Sqrt(float64(f)) + 0.5)
	qx, qy := int(ws.envV[k]), j+int(ws.envS[k])*gy
	best := math.Inf(1)
	for y := qy - 1; y <= qy+1; y++ {
		for x := qx - 1; x <= qx+1; x++ {
			if !l.opaque(x, y) || (x == i && y == j) {
				continue
			}
			dx, dy := float64(i-x), float64(j-y)
			d := math.Sqrt(dx*dx + dy*dy)
			if d-0.5 >= best {
				continue
			}
			best = min(best, d+0.5-l.edge(x, y, dx/d, dy/d))
		}
	}
	return best
}

// dist is D' of lattice point (i, j): 0 for an opaque point.
func (l *lattice) dist(i, j int) float64 {
	if l.opaque(i, j) {
		return 0
	}
	k := l.segment(i, j)
	if k < 0 {
		return float64(l.cap)
	}
	return l.refined(i, j, k)
}

// edge is how far beyond the opaque centre (qx, qy) the alpha falls to the
// edge level, along the unit direction (ux, uy): linear between the centre
// and the bilinear alpha one pixel on, within [0, 1].
func (l *lattice) edge(qx, qy int, ux, uy float64) float64 {
	a0 := float64(l.ws.al[qy*l.w+qx])
	a1 := l.bilinear(float64(qx)+ux, float64(qy)+uy)
	if a1 >= l.level {
		return 1
	}
	return min(max((a0-l.level)/(a0-a1), 0), 1)
}

func (l *lattice) bilinear(x, y float64) float64 {
	x0, y0 := math.Floor(x), math.Floor(y)
	fx, fy := x-x0, y-y0
	i, j := int(x0), int(y0)
	al, w := l.ws.al, l.w
	o := j*w + i
	a := float64(al[o])*(1-fx) + float64(al[o+1])*fx
	b := float64(al[o+w])*(1-fx) + float64(al[o+w+1])*fx
	return a*(1-fy) + b*fy
}
