package contour

import (
	"math"
	"slices"
)

// clearanceFactor: a stretch of contour may stray from the traced polygon
// by at most a third of the polygon's clearance there, so that where two
// stretches run closer than three times the tolerance (the two sides of a
// narrow gap or neck, or two islands about to merge) their curves cannot
// meet.
const clearanceFactor = 3

// maxCells bounds the reach in pixels (the tolerance is at most 0.6 px).
const maxCells = 2

type vref struct {
	key       int64
	poly, idx int32
}

// clearances sets, for every vertex of the traced polygons, the distance
// to the nearest vertex of another stretch of contour (another polygon, or
// the same one far away along it), when that is less than the reach
// clearanceFactor × tol; the others get +Inf. Vertices are bucketed by
// pixel and sorted, so a query reads a few neighbouring buckets.
func clearances(polys [][]Point, tol float64, ws *workspace) [][]float64 {
	reach := clearanceFactor * tol
	cells := min(int(math.Ceil(reach)), maxCells)
	n := 0
	for _, p := range polys {
		n += len(p)
	}
	refs := ws.refs[:0]
	flat := grow(ws.clear, n, false)
	ws.clear = flat
	out := make([][]float64, len(polys))
	arc := grow(ws.arc, n, false)
	ws.arc = arc
	key := func(cx, cy int) int64 { return int64(cy)<<32 | int64(cx+1<<30) }
	o := 0
	for pi, p := range polys {
		out[pi] = flat[o : o+len(p) : o+len(p)]
		s := 0.0
		for i, q := range p {
			if i > 0 {
				s += q.dist(p[i-1])
			}
			arc[o+i] = s
			out[pi][i] = math.Inf(1)
			refs = append(refs, vref{key(int(math.Floor(q.X)), int(math.Floor(q.Y))), int32(pi), int32(i)})
		}
		o += len(p)
	}
	ws.refs = refs
	slices.SortFunc(refs, func(a, b vref) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	starts := make([]int, len(polys)+1)
	for pi, p := range polys {
		starts[pi+1] = starts[pi] + len(p)
	}
	// The vertices come in (row, column) order, so where each of the rows
	// of buckets a query reads starts only moves forward: one cursor a row.
	var cursor [2*maxCells + 1]int
	for qi, r := range refs {
		p := polys[r.poly]
		q := p[r.idx]
		cx, cy := int(math.Floor(q.X)), int(math.Floor(q.Y))
		best := out[r.poly][r.idx]
		total := arc[starts[r.poly]+len(p)-1] + p[len(p)-1].dist(p[0])
		for dy := -cells; dy <= cells; dy++ {
			lo, hi := key(cx-cells, cy+dy), key(cx+cells, cy+dy)
			k := cursor[dy+cells]
			if qi == 0 {
				k = 0
			}
			for k < len(refs) && refs[k].key < lo {
				k++
			}
			cursor[dy+cells] = k
			for ; k < len(refs) && refs[k].key <= hi; k++ {
				o := refs[k]
				d := q.dist(polys[o.poly][o.idx])
				if d >= reach || d >= best {
					continue
				}
				if o.poly == r.poly {
					along := math.Abs(arc[starts[r.poly]+int(o.idx)] - arc[starts[r.poly]+int(r.idx)])
					along = min(along, total-along)
					if along <= 2*d+reach {
						continue
					}
				}
				best = d
			}
		}
		out[r.poly][r.idx] = best
	}
	return out
}
