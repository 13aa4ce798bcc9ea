package bench

import (
	"fmt"
	"image/color"
	"image/png"
	"math"
	"os"
	"time"

	"github.com/tdewolff/canvas"
	"github.com/tdewolff/canvas/renderers/rasterizer"
	"golang.org/x/image/font/gofont/goregular"
)

// Chart geometry, in mm of a canvas rasterised at chartDPI: one panel per
// soak metric, two columns.
const (
	chartDPI     = 120
	panelW       = 150.0
	panelH       = 70.0
	panelMargin  = 14.0
	chartColumns = 2
)

// drawSoakCharts draws each metric of the samples against time, one panel
// each, the warm-up shaded, into a PNG at path.
func drawSoakCharts(path, title string, samples []soakSample, warmup time.Duration) error {
	family := canvas.NewFontFamily("Go")
	if err := family.LoadFont(goregular.TTF, 0, canvas.FontRegular); err != nil {
		return err
	}
	rows := (len(soakMetrics) + chartColumns - 1) / chartColumns
	w, h := chartColumns*(panelW+panelMargin)+panelMargin, float64(rows)*(panelH+panelMargin)+2*panelMargin
	c := canvas.New(w, h)
	ctx := canvas.NewContext(c)
	ctx.SetFillColor(canvas.White)
	ctx.DrawPath(0, 0, canvas.Rectangle(w, h))
	ctx.DrawText(panelMargin, h-panelMargin/2, canvas.NewTextLine(family.Face(14, canvas.Black), title, canvas.Left))
	for i, m := range soakMetrics {
		x := panelMargin + float64(i%chartColumns)*(panelW+panelMargin)
		y := h - 2*panelMargin - float64(i/chartColumns+1)*(panelH+panelMargin) + panelMargin
		drawPanel(ctx, family, x, y, m, samples, warmup)
	}
	img := rasterizer.Draw(c, canvas.DPI(chartDPI), canvas.DefaultColorSpace)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// drawPanel draws one metric's line in the panel whose bottom-left corner
// is x, y: axes from 0 to above the largest value, the warm-up shaded.
func drawPanel(ctx *canvas.Context, family *canvas.FontFamily, x, y float64, m soakMetric, samples []soakSample, warmup time.Duration) {
	small := family.Face(7, canvas.Black)
	end := samples[len(samples)-1].At.Seconds()
	top := 0.0
	for _, s := range samples {
		top = math.Max(top, m.of(s))
	}
	top = niceCeil(top)
	ctx.SetFillColor(color.RGBA{R: 235, G: 235, B: 235, A: 255})
	ctx.SetStrokeColor(canvas.Transparent)
	ctx.DrawPath(x, y, canvas.Rectangle(panelW*math.Min(1, warmup.Seconds()/end), panelH))
	ctx.SetFillColor(canvas.Transparent)
	ctx.SetStrokeColor(canvas.Black)
	ctx.SetStrokeWidth(0.2)
	ctx.DrawPath(x, y, canvas.Rectangle(panelW, panelH))
	line := &canvas.Path{}
	for i, s := range samples {
		px, py := panelW*s.At.Seconds()/end, panelH*m.of(s)/top
		if i == 0 {
			line.MoveTo(px, py)
		} else {
			line.LineTo(px, py)
		}
	}
	ctx.SetStrokeColor(color.RGBA{R: 30, G: 80, B: 200, A: 255})
	ctx.SetStrokeWidth(0.5)
	ctx.DrawPath(x, y, line)
	label := m.name
	if m.unit != "" {
		label += " (" + m.unit + ")"
	}
	ctx.DrawText(x, y+panelH+2, canvas.NewTextLine(family.Face(9, canvas.Black), label, canvas.Left))
	ctx.DrawText(x-1, y+panelH-2, canvas.NewTextLine(small, trimFloat(top), canvas.Right))
	ctx.DrawText(x-1, y, canvas.NewTextLine(small, "0", canvas.Right))
	ctx.DrawText(x+panelW, y-4, canvas.NewTextLine(small, fmt.Sprintf("%.0f min", end/60), canvas.Right))
	ctx.DrawText(x, y-4, canvas.NewTextLine(small, "0", canvas.Left))
}

// niceCeil is the axis top for a largest value v: 1, 2 or 5 times a power
// of ten, at least v (and 1 for nothing to show).
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, f := range []float64{1, 2, 5, 10} {
		if f*p >= v {
			return f * p
		}
	}
	return 10 * p
}

func trimFloat(v float64) string { return fmt.Sprintf("%g", v) }
