package contour

import "math"

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
func smoothPath(raw []Point, tol float64, ws *workspace) (Path, bool) {
	raw = dedupe(raw)
	n := len(raw)
	if n < 3 {
		return Path{}, false
	}
	idx := rdpClosed(raw, tol*rdpFactor, ws)
	ws.keep = grow(ws.keep, n, true) // straight edges, by their first vertex
	straight := ws.keep
	alt := make([]int32, 0, len(idx)+8)
	for {
		changed := false
		m := len(idx)
		alt = alt[:0]
		for s := range m {
			a, b := idx[s], idx[(s+1)%m]
			alt = append(alt, a)
			c1, c2 := controls(raw, idx, s, straight)
			worst, bad := deviation(raw, int(a), int(b), c1, c2, tol)
			if !bad {
				continue
			}
			switch {
			case worst >= 0:
				alt = append(alt, int32(worst))
				changed = true
			case !straight[a]:
				straight[a] = true
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
	ws.idx = idx[:0]
	return p, true
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

// controls are the control points of segment s of the path through
// raw[idx[…]].
func controls(raw []Point, idx []int32, s int, straight []bool) (Point, Point) {
	m := len(idx)
	a := idx[s]
	p1, p2 := raw[a], raw[idx[(s+1)%m]]
	if straight[a] {
		return lerp(p1, p2, 1.0/3), lerp(p1, p2, 2.0/3)
	}
	p0, p3 := raw[idx[(s-1+m)%m]], raw[idx[(s+2)%m]]
	return catmullRom(p0, p1, p2, p3)
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

// rdpClosed simplifies the closed polygon p (Ramer–Douglas–Peucker) and
// returns the indices it keeps, in order: vertex 0, the vertex farthest
// from it, and recursively whatever strays more than tol from the chords.
func rdpClosed(p []Point, tol float64, ws *workspace) []int32 {
	n := len(p)
	far, best := 0, -1.0
	for i, q := range p {
		if d := q.sub(p[0]).dot(q.sub(p[0])); d > best {
			far, best = i, d
		}
	}
	keep := grow(ws.keep, n, true)
	ws.keep = keep
	keep[0], keep[far] = true, true
	tol2 := tol * tol
	stack := append(ws.stack[:0], 0, int32(far), int32(far), int32(n))
	for len(stack) > 0 {
		a, b := int(stack[len(stack)-2]), int(stack[len(stack)-1])
		stack = stack[:len(stack)-2]
		if b-a < 2 {
			continue
		}
		pa, pb := p[a], p[b%n]
		worst, wd := -1, tol2
		for i := a + 1; i < b; i++ {
			if d := segDist2(p[i], pa, pb); d > wd {
				worst, wd = i, d
			}
		}
		if worst >= 0 {
			keep[worst] = true
			stack = append(stack, int32(a), int32(worst), int32(worst), int32(b))
		}
	}
	ws.stack = stack
	idx := ws.idx[:0]
	for i, k := range keep {
		if k {
			idx = append(idx, int32(i))
		}
	}
	ws.idx = idx
	return append([]int32(nil), idx...)
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
