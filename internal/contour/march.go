package contour

import "encoding/binary"

// Marching squares on the lattice. Cell (i, j) has the corners 0 = (i, j)
// top-left, 1 = (i+1, j) top-right, 2 = (i+1, j+1) bottom-right and
// 3 = (i, j+1) bottom-left, and the edges 0 top (corners 0–1), 1 right
// (1–2), 2 bottom (3–2) and 3 left (0–3). A cell's case has bit k set when
// corner k is inside. The contour is walked with the inside on its right,
// which on screen (y down) is clockwise around an island and
// counter-clockwise around a hole.

var (
	edgeCorners = [4][2]int{{0, 1}, {1, 2}, {3, 2}, {0, 3}}
	cornerPos   = [4]Point{{0, 0}, {1, 0}, {1, 1}, {0, 1}}
	edgeMid     = [4]Point{{0.5, 0}, {1, 0.5}, {0.5, 1}, {0, 0.5}}
	cornerEdges = [4][2]int{{0, 3}, {0, 1}, {1, 2}, {2, 3}}

	// exitSep[case][entry] is the exit edge of the segment entering a cell
	// through edge entry, or -1. Saddles (cases 5 and 10) have the inside
	// corners apart here, and together in exitJoin.
	exitSep  [16][4]int8
	exitJoin [16][4]int8
)

func init() {
	for c := range 16 {
		in := func(k int) bool { return c>>k&1 != 0 }
		var crossed []int
		for e, ab := range edgeCorners {
			if in(ab[0]) != in(ab[1]) {
				crossed = append(crossed, e)
			}
		}
		for k := range 4 {
			exitSep[c][k], exitJoin[c][k] = -1, -1
		}
		orient := func(tab *[16][4]int8, ea, eb int) {
			// The corner that decides: shared by the edges, or corner 0
			// when they are opposite.
			k := 0
			for kk, ce := range cornerEdges {
				if (ce[0] == ea || ce[1] == ea) && (ce[0] == eb || ce[1] == eb) {
					k = kk
				}
			}
			right := edgeMid[eb].sub(edgeMid[ea]).cross(cornerPos[k].sub(edgeMid[ea])) > 0
			if right == in(k) {
				tab[c][ea] = int8(eb)
			} else {
				tab[c][eb] = int8(ea)
			}
		}
		switch len(crossed) {
		case 2:
			orient(&exitSep, crossed[0], crossed[1])
			orient(&exitJoin, crossed[0], crossed[1])
		case 4:
			for k := range 4 {
				ce := cornerEdges[k]
				if in(k) {
					orient(&exitSep, ce[0], ce[1])
				} else {
					orient(&exitJoin, ce[0], ce[1])
				}
			}
		}
	}
}

func (l *lattice) cellCase(i, j int) int {
	out, w := l.ws.out, l.w
	o := j*w + i
	return int(out[o]) | int(out[o+1])<<1 | int(out[o+w+1])<<2 | int(out[o+w])<<3
}

// exit is the exit edge of the segment entering cell (i, j) of case c
// through edge entry. A saddle joins its inside corners when the mean of the
// corners' distances is within T (the asymptotic value at the cell centre).
func (l *lattice) exit(c, i, j, entry int) int {
	if c == 5 || c == 10 {
		m := (l.dist(i, j) + l.dist(i+1, j) + l.dist(i+1, j+1) + l.dist(i, j+1)) / 4
		if m <= l.t {
			return int(exitJoin[c][entry])
		}
	}
	return int(exitSep[c][entry])
}

// crossing is where the contour crosses edge e of cell (i, j), linear in
// D' between the edge's ends, in image pixels. An opaque end counts for
// ½ − s along the edge. Below an offset of 1 px the crossing keeps at least
// ½ px from an opaque end, so that simplifying within 0.3 px cannot cut an
// opaque pixel centre out.
func (l *lattice) crossing(i, j, e int) Point {
	ab := edgeCorners[e]
	pa, pb := cornerPos[ab[0]], cornerPos[ab[1]]
	ia, ja := i+int(pa.X), j+int(pa.Y)
	ib, jb := i+int(pb.X), j+int(pb.Y)
	ux, uy := float64(ib-ia), float64(jb-ja)
	oa, ob := l.opaque(ia, ja), l.opaque(ib, jb)
	var da, db float64
	if oa {
		da = 0.5 - l.edge(ia, ja, ux, uy)
	} else {
		da = l.dist(ia, ja)
	}
	if ob {
		db = 0.5 - l.edge(ib, jb, -ux, -uy)
	} else {
		db = l.dist(ib, jb)
	}
	t := 0.5
	if db != da {
		t = min(max((l.t-da)/(db-da), 0), 1)
	}
	if l.clampT {
		if oa {
			t = max(t, 0.5)
		}
		if ob {
			t = min(t, 0.5)
		}
	}
	return Point{float64(ia) + t*ux + float64(l.ox) + 0.5, float64(ja) + t*uy + float64(l.oy) + 0.5}
}

// trace returns every contour of the grown mask as a polygon of edge
// crossings, islands clockwise and holes counter-clockwise on screen.
func (l *lattice) trace(ws *workspace) [][]Point {
	w, h := l.w, l.h
	ws.visited = grow(ws.visited, w*h, true)
	out := l.ws.out
	const ones = 0x0101010101010101
	var polys [][]Point
	for j := 0; j+1 < h; j++ {
		ra, rb := out[j*w:(j+1)*w], out[(j+1)*w:(j+2)*w]
		for i := 0; i+1 < w; {
			// Eight cells at once when their nine corner columns agree.
			if i+9 <= w {
				a, b := binary.LittleEndian.Uint64(ra[i:]), binary.LittleEndian.Uint64(rb[i:])
				if a == b && (a == 0 || a == ones) && ra[i+8] == uint8(a&1) && rb[i+8] == uint8(a&1) {
					i += 8
					continue
				}
			}
			c := l.cellCase(i, j)
			if c != 0 && c != 15 {
				for entry := range 4 {
					if ws.visited[j*w+i]&(1<<entry) != 0 || l.exit(c, i, j, entry) < 0 {
						continue
					}
					polys = append(polys, l.follow(i, j, entry))
				}
			}
			i++
		}
	}
	return polys
}

// follow walks the contour that enters cell (i, j) through edge entry until
// it comes back, marking the cells it passes.
func (l *lattice) follow(i, j, entry int) []Point {
	var pts []Point
	ci, cj, e := i, j, entry
	w := l.w
	for {
		c := l.cellCase(ci, cj)
		x := l.exit(c, ci, cj, e)
		l.ws.visited[cj*w+ci] |= 1 << e
		pts = append(pts, l.crossing(ci, cj, x))
		switch x {
		case 0:
			cj, e = cj-1, 2
		case 1:
			ci, e = ci+1, 3
		case 2:
			cj, e = cj+1, 0
		case 3:
			ci, e = ci-1, 1
		}
		if ci == i && cj == j && e == entry {
			return pts
		}
	}
}
