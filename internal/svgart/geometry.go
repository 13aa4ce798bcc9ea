package svgart

import (
	"math"

	"github.com/tdewolff/canvas"
)

// MaxCrossingPairs bounds the work of one path intersection. canvas's
// intersection (a Bentley–Ottmann sweep) costs about 7 µs per crossing
// here and a hostile path can make every segment cross every other, so
// the segments about to be intersected are first dropped into a grid and
// the pairs sharing a cell, an upper bound of the crossings, are counted;
// past this many the operation is refused before it runs. Real clipping
// paths stay in the hundreds.
const MaxCrossingPairs = 50_000

// maxGridVisits bounds the cost of the count itself.
const maxGridVisits = 4_000_000

// boolean runs op, a path intersection of inputs (flattened, art space),
// once its crossings are bounded, and turns a panic inside canvas into a
// refusal: canvas's sweep has panicked on degenerate input here.
func (b *builder) boolean(n *node, op func() *canvas.Path, inputs ...*canvas.Path) (out *canvas.Path, err error) {
	if pairs := crossingPairs(inputs...); pairs > MaxCrossingPairs {
		return nil, overLimit(n, "clipping or group opacity over shapes whose outlines cross too often (%d+ candidate crossings): simplify the artwork, or release the clipping masks", MaxCrossingPairs)
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, refuse(n, "the clipping or group opacity geometry cannot be computed (%v): release the clipping masks or flatten the transparency in your design program", r)
		}
	}()
	return op(), nil
}

// segment is a line of a flattened path.
type segment struct{ a, b canvas.Point }

// segments lists the lines of flattened paths (a closepath is the line
// back to its subpath's start).
func segments(paths ...*canvas.Path) []segment {
	var out []segment
	for _, p := range paths {
		for s := p.Scanner(); s.Scan(); {
			if s.Cmd() != canvas.MoveToCmd {
				out = append(out, segment{s.Start(), s.End()})
			}
		}
	}
	return out
}

// crossingPairs counts the pairs of segments that share a grid cell: at
// least as many as the pairs that cross. It stops early, returning a
// count past MaxCrossingPairs, once the answer is known to be too many.
func crossingPairs(paths ...*canvas.Path) int {
	segs := segments(paths...)
	if len(segs) < 2 {
		return 0
	}
	box := canvas.Rect{X0: math.Inf(1), Y0: math.Inf(1), X1: math.Inf(-1), Y1: math.Inf(-1)}
	for _, s := range segs {
		box = canvas.Rect{X0: math.Min(box.X0, math.Min(s.a.X, s.b.X)), Y0: math.Min(box.Y0, math.Min(s.a.Y, s.b.Y)),
			X1: math.Max(box.X1, math.Max(s.a.X, s.b.X)), Y1: math.Max(box.Y1, math.Max(s.a.Y, s.b.Y))}
	}
	g := int(math.Min(math.Ceil(math.Sqrt(float64(len(segs)))), 1024))
	cw, ch := math.Max(box.W(), 1e-9)/float64(g), math.Max(box.H(), 1e-9)/float64(g)
	cell := func(v, o, size float64) int { return min(max(int((v-o)/size), 0), g-1) }
	counts := make([]int32, g*g)
	pairs, visits := 0, 0
	for _, s := range segs {
		x0, x1 := cell(math.Min(s.a.X, s.b.X), box.X0, cw), cell(math.Max(s.a.X, s.b.X), box.X0, cw)
		y0, y1 := cell(math.Min(s.a.Y, s.b.Y), box.Y0, ch), cell(math.Max(s.a.Y, s.b.Y), box.Y0, ch)
		visits += (x1 - x0 + 1) * (y1 - y0 + 1)
		if visits > maxGridVisits {
			return MaxCrossingPairs + 1
		}
		for y := y0; y <= y1; y++ {
			for x := x0; x <= x1; x++ {
				pairs += int(counts[y*g+x])
				counts[y*g+x]++
			}
		}
		if pairs > MaxCrossingPairs {
			return pairs
		}
	}
	return pairs
}
