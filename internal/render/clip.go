package render

import (
	"image"

	"github.com/tdewolff/canvas"
	"github.com/tdewolff/canvas/renderers/rasterizer"
	"golang.org/x/image/draw"
)

// A clip on a PDF is the PDF's own: a clipping path around what the layer
// draws, which keeps its vectors and images whole in the file.
func (t *pdfTarget) clip(c *canvas.Context, path *canvas.Path, paint func(*canvas.Context, target) error) error {
	t.pdf.PushClipPath(path.Transform(c.CoordSystemView().Mul(c.View())))
	defer t.pdf.PopClip()
	return paint(c, t)
}

// A clip on pixels, which canvas's rasterizer cannot do: the layer is
// drawn on pixels of its own, then laid over the page through the clip's
// coverage as a mask, edges antialiased.
func (t *rasterTarget) clip(c *canvas.Context, path *canvas.Path, paint func(*canvas.Context, target) error) error {
	layer, lc, lt := t.offscreen(c)
	if err := paint(lc, lt); err != nil {
		return err
	}
	mask, mc, _ := t.offscreen(c)
	mc.SetFill(canvas.Black)
	mc.SetStroke(canvas.Paint{})
	mc.DrawPath(0, 0, path)
	r := t.pixels.Bounds()
	draw.DrawMask(t.pixels, r, layer, r.Min, mask, r.Min, draw.Over)
	return nil
}

// offscreen is transparent pixels the size of t's, with a context on
// them that has c's coordinates.
func (t *rasterTarget) offscreen(c *canvas.Context) (*image.RGBA, *canvas.Context, *rasterTarget) {
	pixels := image.NewRGBA(t.pixels.Bounds())
	ras := rasterizer.FromImage(pixels, canvas.DPMM(t.dpmm), canvas.LinearColorSpace{})
	sub := &rasterTarget{Renderer: ras, pixels: pixels, dpmm: t.dpmm, height: t.height}
	sc := canvas.NewContext(sub)
	sc.SetCoordSystem(canvas.CartesianIV)
	sc.SetView(c.View())
	return pixels, sc, sub
}
