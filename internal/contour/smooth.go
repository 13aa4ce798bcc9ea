package contour

import (
	"math"
	"slices"
)

// rdpFactor is the share of the tolerance RDP may use: the smoothing needs
// some room, and a tighter polygon needs fewer repairs after it.
const rdpFactor = 0.8

// smoothPath turns a traced polygon into a closed path of cubic Béziers
// through some of its vertices. RDP picks the vertices; centripetal
// Catmull-Rom (which neither overshoots nor loops between unevenly spaced
// points) gives the tangents; then every segment is checked against the
// stretch of polygon it replaces, both ways, and a segment that strays more
// than tol gets the polygon's worst vertex added, or, when it spans a single
// edge, becomes that straight edge. ok is false for a degenerate polygon.
func smoothPath(raw []Point, clear []float64, tol float64, ws *workspace) (Path, bool) {
	raw = dedupe(raw)
	n := len(raw)
	if len(clear) != n {
		return Path{}, false
	}
	if n < 3 {
		return Path{}, false
	}
	// Start at an extreme vertex (a corner, more often than not), so that
	// no straight side is cut in two by the start.
	far, best := 0, -1.0
	for i, q := range raw {
		if d := q.sub(raw[0]).dot(q.sub(raw[0])); d > best {
			far, best = i, d
		}
	}
	ws.pts = append(ws.pts[:0], raw...)
	for i := range raw {
		raw[i] = ws.pts[(i+far)%n]
	}
	ws.clr = append(ws.clr[:0], clear...)
	for i := range clear {
		clear[i] = ws.clr[(i+far)%n]
	}

	ws.straight = grow(ws.straight, n, true) // straight edges, by their first vertex
	straight := ws.straight
	keep := grow(ws.keep, n, true)
	ws.keep = keep
	ws.spans = straightRuns(raw, min(straightTol, tol/4), straightLen, ws.spans[:0])
	for k := 0; k < len(ws.spans); k += 2 {
		i, j := ws.spans[k], ws.spans[k+1]
		keep[i], keep[int(j)%n], straight[i] = true, true, true
	}
	if len(ws.spans) == 0 {
		keep[0] = true
		far, best = 0, -1.0
		for i, q := range raw {
			if d := q.sub(raw[0]).dot(q.sub(raw[0])); d > best {
				far, best = i, d
			}
		}
		keep[far] = true
	}
	idx := rdp(raw, keep, straight, tol*rdpFactor, ws)
	if len(idx) < 3 {
		// Two vertices make a lens of no area: keep the farthest from
		// their chord as well.
		a, b := raw[idx[0]], raw[idx[1]]
		worst, wd := -1, -1.0
		for i, q := range raw {
			if d := segDist2(q, a, b); d > wd && i != int(idx[0]) && i != int(idx[1]) {
				worst, wd = i, d
			}
		}
		idx = append(idx, int32(worst))
		slices.Sort(idx)
	}

	// Check every segment, then again those a change could have moved:
	// their own and their neighbours' vertices decide their tangents.
	ws.gen = grow(ws.gen, n, true)
	gen := ws.gen // the pass in which a vertex came in or went straight, plus one
	alt := make([]int32, 0, len(idx)+8)
	for pass := int32(1); ; pass++ {
		changed := false
		m := len(idx)
		alt = alt[:0]
		for s := range m {
			a, b := idx[s], idx[(s+1)%m]
			alt = append(alt, a)
			if pass > 1 && gen[idx[(s-1+m)%m]] != pass-1 && gen[a] != pass-1 && gen[b] != pass-1 && gen[idx[(s+2)%m]] != pass-1 {
				continue
			}
			c1, c2 := controls(raw, idx, s, straight)
			worst, bad := deviation(raw, int(a), int(b), c1, c2, spanTol(clear, int(a), int(b), tol))
			if !bad {
				continue
			}
			switch {
			case worst >= 0:
				alt = append(alt, int32(worst))
				gen[worst] = pass
				changed = true
			case !straight[a]:
				straight[a] = true
				gen[a], gen[b] = pass, pass
				changed = true
			}
		}
		idx, alt = alt, idx
		if !changed {
			break
		}
	}
	m := len(idx)
	p := Path{Start: raw[idx[0]], Segments: make([]Segment, m)}
	for s := range m {
		c1, c2 := controls(raw, idx, s, straight)
		p.Segments[s] = Segment{C1: c1, C2: c2, End: raw[idx[(s+1)%m]]}
	}
	return p, true
}

// A stretch of the traced polygon at least straightLen px long whose
// vertices all keep within straightTol px of its chord is a straight side:
// it stays a line. The shortest arc that qualifies has a radius of
// straightLen²/(8 straightTol) = 640 px, so where such arcs are drawn as
// chords the turn between two is at most 8 straightTol/straightLen = 1.4°.
// Shorter stretches down to exactLen px qualify when they are straight to
// within exactTol (the sides of pixel-aligned art are exactly straight).
const (
	straightTol = 0.05
	straightLen = 16.0
	exactTol    = 0.005
	exactLen    = 4.0
)

// straightRuns appends, as pairs of indices (the second up to len(raw),
// which stands for vertex 0), the maximal stretches of raw at least minLen
// long along which every vertex keeps within tol of the chord, found
// greedily from vertex 0. A stretch grows while its next vertex lies in the
// cone of directions that keep all before within tol.
func straightRuns(raw []Point, tol, minLen float64, runs []int32) []int32 {
	n := len(raw)
	for i := 0; i < n-1; {
		p := raw[i]
		// The cone runs counter-clockwise from the unit vector lo to hi.
		var lo, hi Point
		have := false
		j := i + 1
		for k := i + 1; k <= n; k++ {
			v := raw[k%n].sub(p)
			if r2 := v.dot(v); r2 > tol*tol {
				r := math.Sqrt(r2)
				u := v.mul(1 / r)
				if have && (lo.cross(u) < 0 || u.cross(hi) < 0) {
					break
				}
				sh := tol / r
				ch := math.Sqrt(1 - sh*sh)
				a := Point{u.X*ch + u.Y*sh, u.Y*ch - u.X*sh} // u turned by −asin(tol/r)
				b := Point{u.X*ch - u.Y*sh, u.Y*ch + u.X*sh} // and by +asin(tol/r)
				switch {
				case !have:
					lo, hi, have = a, b, true
				default:
					if lo.cross(a) > 0 {
						lo = a
					}
					if b.cross(hi) > 0 {
						hi = b
					}
				}
			}
			j = k
		}
		if l := p.dist(raw[j%n]); j-i >= 2 && (l >= minLen || l >= exactLen && straightSpan(raw, i, j%n, exactTol)) {
			runs = append(runs, int32(i), int32(j))
			i = j
		} else {
			i++
		}
	}
	return runs
}

// spanTol is the tolerance for the stretch from vertex a to b: tol, or less
// where the contour runs close to another stretch.
func spanTol(clear []float64, a, b int, tol float64) float64 {
	n := len(clear)
	for i := a; ; i = (i + 1) % n {
		tol = min(tol, clear[i]/clearanceFactor)
		if i == b {
			return tol
		}
	}
}

// dedupe drops vertices equal to the one before (a crossing exactly on a
// lattice point is met from two edges), in place.
func dedupe(p []Point) []Point {
	k := 0
	for i, q := range p {
		if i > 0 && q.eq(p[k-1], 1e-9) {
			continue
		}
		p[k] = q
		k++
	}
	for k > 1 && p[k-1].eq(p[0], 1e-9) {
		k--
	}
	return p[:k]
}

// straightSpan reports whether raw[a..b] (cyclic) keeps within tol of the
// chord.
func straightSpan(raw []Point, a, b int, tol float64) bool {
	n := len(raw)
	for i := (a + 1) % n; i != b; i = (i + 1) % n {
		if segDist2(raw[i], raw[a], raw[b]) > tol*tol {
			return false
		}
	}
	return true
}

// controls are the control points of segment s of the path through
// raw[idx[…]]: a straight line, or centripetal Catmull-Rom whose tangent
// follows a straight neighbour where it meets one.
func controls(raw []Point, idx []int32, s int, straight []bool) (Point, Point) {
	m := len(idx)
	a, b, z := idx[s], idx[(s+1)%m], idx[(s-1+m)%m]
	p1, p2 := raw[a], raw[b]
	if straight[a] {
		return lerp(p1, p2, 1.0/3), lerp(p1, p2, 2.0/3)
	}
	p0, p3 := raw[z], raw[idx[(s+2)%m]]
	c1, c2 := catmullRom(p0, p1, p2, p3)
	l := p1.dist(p2) / 3
	if straight[z] {
		if u := p1.sub(p0); u.dot(u) > 0 {
			c1 = p1.add(u.mul(l / math.Sqrt(u.dot(u))))
		}
	}
	if straight[b] {
		if u := p3.sub(p2); u.dot(u) > 0 {
			c2 = p2.sub(u.mul(l / math.Sqrt(u.dot(u))))
		}
	}
	return c1, c2
}

// catmullRom returns the Bézier control points of the centripetal (α = ½)
// Catmull-Rom segment from p1 to p2 (Yuksel, Schaefer and Keyser 2011).
func catmullRom(p0, p1, p2, p3 Point) (Point, Point) {
	d1, d2, d3 := p1.dist(p0), p2.dist(p1), p3.dist(p2)
	s1, s2, s3 := math.Sqrt(d1), math.Sqrt(d2), math.Sqrt(d3)
	const eps = 1e-9
	c1, c2 := lerp(p1, p2, 1.0/3), lerp(p1, p2, 2.0/3)
	if s1 > eps && s2 > eps {
		k := 3 * s1 * (s1 + s2)
		c1 = p2.mul(d1).sub(p0.mul(d2)).add(p1.mul(2*d1 + 3*s1*s2 + d2)).mul(1 / k)
	}
	if s3 > eps && s2 > eps {
		k := 3 * s3 * (s3 + s2)
		c2 = p1.mul(d3).sub(p3.mul(d2)).add(p2.mul(2*d3 + 3*s3*s2 + d2)).mul(1 / k)
	}
	return c1, c2
}

// rdp simplifies the closed polygon p (Ramer–Douglas–Peucker) between the
// vertices keep marks, leaving the straight stretches alone, and returns
// the indices it keeps in order.
func rdp(p []Point, keep, straight []bool, tol float64, ws *workspace) []int32 {
	n := len(p)
	anchors := ws.idx[:0]
	for i, k := range keep {
		if k {
			anchors = append(anchors, int32(i))
		}
	}
	ws.idx = anchors
	tol2 := tol * tol
	stack := ws.stack[:0]
	for s, a := range anchors {
		if straight[a] {
			continue
		}
		b := anchors[(s+1)%len(anchors)]
		if b <= a {
			b += int32(n)
		}
		stack = append(stack, a, b)
	}
	for len(stack) > 0 {
		a, b := int(stack[len(stack)-2]), int(stack[len(stack)-1])
		stack = stack[:len(stack)-2]
		if b-a < 2 {
			continue
		}
		pa, pb := p[a%n], p[b%n]
		worst, wd := -1, tol2
		for i := a + 1; i < b; i++ {
			if d := segDist2(p[i%n], pa, pb); d > wd {
				worst, wd = i, d
			}
		}
		if worst >= 0 {
			keep[worst%n] = true
			stack = append(stack, int32(a), int32(worst), int32(worst), int32(b))
		}
	}
	ws.stack = stack
	idx := make([]int32, 0, len(anchors)*2)
	for i, k := range keep {
		if k {
			idx = append(idx, int32(i))
		}
	}
	return idx
}

// segDist2 is the squared distance from p to the segment ab.
func segDist2(p, a, b Point) float64 {
	ab, ap := b.sub(a), p.sub(a)
	l := ab.dot(ab)
	t := 0.0
	if l > 0 {
		t = min(max(ap.dot(ab)/l, 0), 1)
	}
	d := ap.sub(ab.mul(t))
	return d.dot(d)
}

// bezier evaluates the cubic Bézier p0, c1, c2, p3 at t.
func bezier(p0, c1, c2, p3 Point, t float64) Point {
	u := 1 - t
	a, b, c, d := u*u*u, 3*u*u*t, 3*u*t*t, t*t*t
	return Point{a*p0.X + b*c1.X + c*c2.X + d*p3.X, a*p0.Y + b*c1.Y + c*c2.Y + d*p3.Y}
}

// deviation checks the Bézier from raw[a] to raw[b] with controls c1, c2
// against the polygon raw[a..b] (cyclic) both ways, on a sampling of the
// curve. bad says it strays more than tol; worst is then the polygon
// vertex to add (the farthest from the curve, or the one nearest the
// curve's farthest sample), or -1 when the stretch is a single edge.
func deviation(raw []Point, a, b int, c1, c2 Point, tol float64) (worst int, bad bool) {
	n := len(raw)
	p0, p3 := raw[a], raw[b]
	span := (b - a + n) % n
	if span == 0 {
		span = n
	}
	ns := min(4+int(p0.dist(p3)/2), 32)
	var buf [33]Point
	smp := buf[:ns+1]
	for k := range smp {
		smp[k] = bezier(p0, c1, c2, p3, float64(k)/float64(ns))
	}
	tol2 := tol * tol
	// The polygon's vertices against the curve.
	worst, wd := -1, tol2
	for s := 1; s < span; s++ {
		i := (a + s) % n
		d := math.Inf(1)
		for k := range ns {
			d = min(d, segDist2(raw[i], smp[k], smp[k+1]))
		}
		if d > wd {
			worst, wd = i, d
		}
	}
	if worst >= 0 {
		return worst, true
	}
	// The curve against the polygon.
	far, fd := Point{}, tol2
	bad = false
	for k := 1; k < ns; k++ {
		d := math.Inf(1)
		for s := range span {
			i := (a + s) % n
			d = min(d, segDist2(smp[k], raw[i], raw[(i+1)%n]))
		}
		if d > fd {
			far, fd, bad = smp[k], d, true
		}
	}
	if !bad {
		return -1, false
	}
	worst, wd = -1, math.Inf(1)
	for s := 1; s < span; s++ {
		i := (a + s) % n
		if d := raw[i].sub(far).dot(raw[i].sub(far)); d < wd {
			worst, wd = i, d
		}
	}
	return worst, true
}
