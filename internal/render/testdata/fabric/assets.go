// Command assets writes what generate.js needs besides fabric: the
// pictures the corpus places (photo.jpg, a photo-like landscape, and
// badge.png, a logo with transparency), drawn here rather than taken from
// anywhere, so that they are ours and the same on every run (Go's encoders
// are deterministic), into the first directory; and the Go fonts, the very
// files Platen embeds, as NAME.ttf into the second, so that fabric
// measures text with them.
//
//	go run assets.go PICTURES-DIR FONTS-DIR
package main

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"log"
	"math"
	"os"
	"path/filepath"

	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gobolditalic"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/gomedium"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/gofont/gosmallcaps"
)

// fonts are the Go fonts the corpus uses, by their Platen names (the
// render package's builtinFonts).
var fonts = map[string][]byte{
	"Go-Regular":    goregular.TTF,
	"Go-Bold":       gobold.TTF,
	"Go-Italic":     goitalic.TTF,
	"Go-BoldItalic": gobolditalic.TTF,
	"Go-Medium":     gomedium.TTF,
	"Go-Mono":       gomono.TTF,
	"Go-Mono-Bold":  gomonobold.TTF,
	"Go-Smallcaps":  gosmallcaps.TTF,
}

func writeFonts(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range fonts {
		if err := os.WriteFile(filepath.Join(dir, name+".ttf"), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	if len(os.Args) != 3 {
		log.Fatal("usage: go run assets.go PICTURES-DIR FONTS-DIR")
	}
	dir := os.Args[1]
	if err := writeFonts(os.Args[2]); err != nil {
		log.Fatal(err)
	}
	var photo, badge bytes.Buffer
	if err := jpeg.Encode(&photo, landscape(600, 400), &jpeg.Options{Quality: 80}); err != nil {
		log.Fatal(err)
	}
	if err := png.Encode(&badge, logo(200, 200)); err != nil {
		log.Fatal(err)
	}
	for name, data := range map[string][]byte{"photo.jpg": photo.Bytes(), "badge.png": badge.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

// landscape is a sky fading to the horizon, a sun, two hills and a lake:
// smooth areas and a few hard edges, as a photo has, and distinct enough
// that a crop or a flip shows.
func landscape(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			fx, fy := float64(x)/float64(w), float64(y)/float64(h)
			c := mix(color.RGBA{40, 90, 200, 255}, color.RGBA{250, 200, 150, 255}, fy/0.6)
			if d := math.Hypot(fx-0.75, fy-0.25) * float64(w); d < 45 {
				c = color.RGBA{255, 230, 90, 255}
			}
			if fy > 0.55+0.12*math.Sin(fx*5) {
				c = mix(color.RGBA{60, 140, 60, 255}, color.RGBA{20, 70, 30, 255}, fy)
			}
			if fy > 0.7+0.08*math.Cos(fx*7+1) {
				c = mix(color.RGBA{30, 110, 40, 255}, color.RGBA{10, 50, 20, 255}, fy)
			}
			if fy > 0.85 {
				c = mix(color.RGBA{50, 120, 190, 255}, color.RGBA{20, 60, 120, 255}, (fy-0.85)/0.15)
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

// logo is a red ring around a blue star on a transparent ground, its
// edges soft (partly transparent pixels).
func logo(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	cx, cy := float64(w)/2, float64(h)/2
	for y := range h {
		for x := range w {
			dx, dy := float64(x)+0.5-cx, float64(y)+0.5-cy
			r, a := math.Hypot(dx, dy), math.Atan2(dy, dx)
			star := 0.45*cx + 0.2*cx*math.Cos(5*a)
			switch {
			case r > 0.8*cx && r < 0.98*cx:
				img.SetNRGBA(x, y, color.NRGBA{210, 40, 40, edge(0.98*cx-r, r-0.8*cx)})
			case r < star:
				img.SetNRGBA(x, y, color.NRGBA{30, 60, 200, edge(star-r, 1)})
			}
		}
	}
	return img
}

// edge is the opacity of a pixel the given distances (in pixels) inside
// a shape's two edges: a one-pixel soft border.
func edge(in1, in2 float64) uint8 {
	return uint8(255 * math.Min(1, math.Min(in1, in2)))
}

func mix(a, b color.RGBA, t float64) color.RGBA {
	t = math.Max(0, math.Min(1, t))
	l := func(p, q uint8) uint8 { return uint8(math.Round(float64(p) + (float64(q)-float64(p))*t)) }
	return color.RGBA{l(a.R, b.R), l(a.G, b.G), l(a.B, b.B), 255}
}
