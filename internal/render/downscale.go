package render

import "image"

// x/image/draw's kernels scale through a buffer of four float64s for
// every pixel of the destination's width times the source's height: 144 MB
// to bring a 4000 × 4000 sticker down to print resolution, which with the
// decoded image took its render past the process's 384 MB. Scaling down is
// averaging, which one pass over the source rows does in two rows of
// accumulators.

// areaScale scales src down to size (each side at most src's): each
// destination pixel is the mean of the source area it covers, in
// premultiplied colour so that transparent pixels lend no colour to their
// neighbours.
func areaScale(src image.Image, size image.Point) *image.RGBA {
	b := src.Bounds()
	out := image.NewRGBA(image.Rectangle{Max: size})
	cols, rows := spans(b.Dx(), size.X), spans(b.Dy(), size.Y)
	px := make([]uint8, 4*b.Dx())
	line := make([]float32, 4*size.X) // one source row, summed across
	acc := make([]float32, 4*size.X)  // the destination row being filled
	next := make([]float32, 4*size.X) // its successor, which a row may straddle
	for sy, r := range rows {
		premultipliedRow(src, b.Min.Y+sy, px)
		scaleRow(px, cols, line)
		addScaled(acc, line, r.w0)
		addScaled(next, line, r.w1)
		if sy == len(rows)-1 || rows[sy+1].d != r.d {
			emit(out, r.d, acc)
			acc, next = next, acc
			clear(next)
		}
	}
	return out
}

// premultipliedRow reads row y of src as premultiplied RGBA into px: the
// decoders' types directly, any other through its colour model.
func premultipliedRow(src image.Image, y int, px []uint8) {
	b := src.Bounds()
	switch m := src.(type) {
	case *image.RGBA:
		copy(px, m.Pix[m.PixOffset(b.Min.X, y):])
	case *image.NRGBA:
		row := m.Pix[m.PixOffset(b.Min.X, y):]
		for i := 0; i < len(px); i += 4 {
			a := uint32(row[i+3])
			px[i] = uint8((uint32(row[i])*a + 127) / 255)
			px[i+1] = uint8((uint32(row[i+1])*a + 127) / 255)
			px[i+2] = uint8((uint32(row[i+2])*a + 127) / 255)
			px[i+3] = uint8(a)
		}
	default:
		for x := range b.Dx() {
			r, g, bl, a := src.At(b.Min.X+x, y).RGBA()
			px[4*x], px[4*x+1], px[4*x+2], px[4*x+3] = uint8(r>>8), uint8(g>>8), uint8(bl>>8), uint8(a>>8)
		}
	}
}

// span is where one source pixel goes along an axis: into destination d
// with weight w0 and, when it straddles the boundary, into d+1 with w1;
// weights are fractions of a destination pixel, so that each destination
// pixel's add up to one.
type span struct {
	d      int
	w0, w1 float32
}

type spanList []span

// spans maps n source pixels onto m destination pixels (m ≤ n).
func spans(n, m int) spanList {
	s := make(spanList, n)
	for i := range n {
		// Source pixel i covers [i, i+1) of n, [i*m/n, (i+1)*m/n) of m.
		lo, hi := float64(i)*float64(m)/float64(n), float64(i+1)*float64(m)/float64(n)
		d := min(int(lo), m-1)
		if split := float64(d + 1); hi > split && d+1 < m {
			s[i] = span{d: d, w0: float32(split - lo), w1: float32(hi - split)}
			continue
		}
		s[i] = span{d: d, w0: float32(hi - lo)}
	}
	return s
}

// scaleRow sums a row of premultiplied pixels into the destination's
// columns.
func scaleRow(px []uint8, cols spanList, line []float32) {
	clear(line)
	for x, c := range cols {
		p := px[4*x : 4*x+4 : 4*x+4]
		o := line[4*c.d : 4*c.d+4 : 4*c.d+4]
		for k := range 4 {
			o[k] += c.w0 * float32(p[k])
		}
		if c.w1 > 0 {
			o := line[4*c.d+4 : 4*c.d+8 : 4*c.d+8]
			for k := range 4 {
				o[k] += c.w1 * float32(p[k])
			}
		}
	}
}

func addScaled(acc, line []float32, w float32) {
	if w == 0 {
		return
	}
	for i, v := range line {
		acc[i] += w * v
	}
}

// emit writes destination row y: its sums are already means, each
// pixel's weights (fractions of it) adding up to one.
func emit(out *image.RGBA, y int, acc []float32) {
	row := out.Pix[y*out.Stride : y*out.Stride+len(acc)]
	for i, v := range acc {
		row[i] = uint8(min(255, v+0.5))
	}
}
