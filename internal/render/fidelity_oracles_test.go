package render

// The fidelity suite's rasterisers: Platen's PDF through poppler, and the
// hand-written SVG through two independent renderers, librsvg and
// Chromium, all on one pixel grid and with the same font files.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// pxPerMM is the pixel grid every raster of the suite is drawn on: fine
// enough that a 0.25 mm shift moves an edge by a whole pixel, coarse
// enough that a 120 mm page stays under 500 pixels.
const pxPerMM = 4

// pdfSupersampling is how many pdftoppm pixels, across and down, make one
// pixel of the grid. Poppler's Splash rasteriser moves each glyph's origin
// down to a whole device pixel (its baseline floored: up to a pixel too
// high) and snaps the edges of upright rectangles to whole pixels (stroke
// adjustment); the PDF itself is exact, as pdftocairo shows. Drawn at 8×
// and averaged down, those roundings shrink to an eighth of a pixel, and
// the average gives edges the area coverage the oracles' antialiasing
// gives. (At 4×, text still came out a quarter of a pixel high: 3% of a
// line's pixels off where 8× leaves 1%, as much as the two oracles differ
// from each other.)
const pdfSupersampling = 8

// pdfDPI is the resolution pdftoppm draws at.
const pdfDPI = pxPerMM * pdfSupersampling * 25.4

// chromiumSupersampling is Chromium's device scale factor: how many of
// its pixels, across and down, make one pixel of the grid. Chromium puts
// each line of text on a whole device pixel, up to half a pixel from where
// it belongs, and quantises how much of a pixel an edge covers to quarters
// down the page: drawn larger and averaged down, both errors shrink. At 1×
// a line of 11 pt text had 5% of its pixels off. 3 is the best of 2, 3 and
// 4 on the fixtures (text-fonts: 1.20%, 0.07% and 1.18% off): the Go
// fonts' ascent is 1935/2048 em, 0.3333 mm a point, so at 12 pixels a mm
// the first baseline of text set at a whole mm in a whole number of
// points falls on a whole pixel.
const chromiumSupersampling = 3

// toolTimeout bounds each run of an external renderer.
const toolTimeout = 2 * time.Minute

// run runs a program, with env added to the test's environment, and says
// what it printed when it fails.
func run(env []string, name string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// pdfPageRaster rasterises page (from 1) of the PDF at path with pdftoppm
// at pdfSupersampling times the grid's resolution, cut to the page's
// size (pdftoppm rounds a page's size up, so a page of exactly w pixels
// can come out w+1 wide), and averages it down to w×h pixels. It reads
// pdftoppm's PPM, which costs nothing to decode, rather than a PNG of 64
// times the grid's pixels.
func pdfPageRaster(path string, page, w, h int) (*image.RGBA, error) {
	prefix := strings.TrimSuffix(path, ".pdf") + "-page" + strconv.Itoa(page)
	n, s := strconv.Itoa(page), pdfSupersampling
	err := run(nil, "pdftoppm", "-r", strconv.FormatFloat(pdfDPI, 'f', -1, 64), "-f", n, "-l", n,
		"-x", "0", "-y", "0", "-W", strconv.Itoa(w*s), "-H", strconv.Itoa(h*s), "-singlefile", path, prefix)
	if err != nil {
		return nil, err
	}
	ppm, err := os.ReadFile(prefix + ".ppm")
	if err != nil {
		return nil, err
	}
	defer os.Remove(prefix + ".ppm")
	rgb, err := ppmPixels(ppm, w*s, h*s)
	if err != nil {
		return nil, fmt.Errorf("%s.ppm: %w", filepath.Base(prefix), err)
	}
	return downsample(rgb, 3, 3*w*s, w, h, s), nil
}

// ppmPixels returns the RGB bytes of a binary PPM (P6, 8 bits a channel)
// that must be w×h pixels. pdftoppm writes no comments in the header.
func ppmPixels(ppm []byte, w, h int) ([]byte, error) {
	var header []string
	rest := ppm
	for len(header) < 4 {
		rest = bytes.TrimLeft(rest, " \t\r\n")
		end := bytes.IndexAny(rest, " \t\r\n")
		if end < 0 {
			return nil, errors.New("not a binary PPM: its header is cut short")
		}
		// The pixels start after the one whitespace byte that ends maxval.
		header, rest = append(header, string(rest[:end])), rest[end+1:]
	}
	want := []string{"P6", strconv.Itoa(w), strconv.Itoa(h), "255"}
	if !slices.Equal(header, want) {
		return nil, fmt.Errorf("has the header %q, want %q (a %d×%d binary PPM of 8-bit channels)", header, want, w, h)
	}
	if len(rest) != 3*w*h {
		return nil, fmt.Errorf("holds %d bytes of pixels, want %d", len(rest), 3*w*h)
	}
	return rest, nil
}

// downsample averages each n×n block of a (w·n)×(h·n) raster into one
// pixel of a w×h raster. The raster is pix, bpp bytes a pixel (red, green
// and blue first), stride bytes a row.
//
// It reads 64 bytes of pdftoppm's output for each byte it writes: under
// the race detector checking each read took most of the suite's time. It
// reads and writes only what its caller owns, so it is left out
// (go:norace).
//
//go:norace
func downsample(pix []byte, bpp, stride, w, h, n int) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			var sum [3]int
			for dy := range n {
				row := pix[(y*n+dy)*stride+bpp*x*n:]
				for dx := range n {
					for c := range 3 {
						sum[c] += int(row[bpp*dx+c])
					}
				}
			}
			px := out.Pix[y*out.Stride+4*x:]
			for c := range 3 {
				px[c] = uint8((sum[c] + n*n/2) / (n * n))
			}
			px[3] = 255
		}
	}
	return out
}

// oracleFallbackFonts are the fonts of Platen's fallback chain
// (DefaultFallbackFonts) the fixtures draw characters with that the Go
// fonts lack: Noto Sans (Latin beyond the Go fonts) and Droid Sans
// Fallback (Chinese and Japanese). Their SVGs name them by family
// ("Noto Sans", "Droid Sans Fallback").
var oracleFallbackFonts = []string{
	"/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
	"/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
}

// oracleFonts is a fontconfig configuration that knows the Go fonts Platen
// embeds, from the very same files, and the fallback fonts the fixtures
// use (oracleFallbackFonts), also the very files Platen reads, and no
// other font: an SVG that names a family wrongly falls back to one of
// these and fails, rather than finding a system font that looks alike.
// Hinting is off because poppler draws the PDF's glyphs unhinted, as
// their outlines; subpixel (LCD) colour fringes are off because poppler
// has none.
type oracleFonts struct {
	dir  string
	conf string
}

func newOracleFonts(dir string) (*oracleFonts, error) {
	fontDir := filepath.Join(dir, "fonts")
	if err := os.MkdirAll(fontDir, 0o700); err != nil {
		return nil, err
	}
	for name, data := range builtinFonts {
		if err := os.WriteFile(filepath.Join(fontDir, name+".ttf"), data, 0o600); err != nil {
			return nil, err
		}
	}
	for _, path := range oracleFallbackFonts {
		if err := os.Symlink(path, filepath.Join(fontDir, filepath.Base(path))); err != nil {
			return nil, err
		}
	}
	conf := filepath.Join(dir, "fonts.conf")
	xml := `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <dir>` + fontDir + `</dir>
  <cachedir>` + filepath.Join(dir, "fontconfig-cache") + `</cachedir>
  <match target="font">
    <edit name="antialias" mode="assign"><bool>true</bool></edit>
    <edit name="hinting" mode="assign"><bool>false</bool></edit>
    <edit name="hintstyle" mode="assign"><const>hintnone</const></edit>
    <edit name="rgba" mode="assign"><const>none</const></edit>
  </match>
</fontconfig>
`
	if err := os.WriteFile(conf, []byte(xml), 0o600); err != nil {
		return nil, err
	}
	return &oracleFonts{dir: dir, conf: conf}, nil
}

// env is the environment the oracles run in: these fonts only, and caches
// and settings kept in the suite's own directory.
func (f *oracleFonts) env() []string {
	return []string{
		"FONTCONFIG_FILE=" + f.conf,
		"XDG_CACHE_HOME=" + filepath.Join(f.dir, "cache"),
		"XDG_CONFIG_HOME=" + filepath.Join(f.dir, "config"),
	}
}

// rsvgRaster rasterises the SVG file at path with librsvg, on white paper,
// into the PNG file out. librsvg's antialiasing is exact area coverage,
// as the average of pdftoppm's pixels is: it needs no supersampling.
func rsvgRaster(fonts *oracleFonts, path, out string, w, h int) (*image.RGBA, error) {
	if err := run(fonts.env(), "rsvg-convert", "--background-color=white", "-o", out, path); err != nil {
		return nil, err
	}
	return readRaster(out, w, h)
}

// svgJob is one SVG for the oracles to draw: a name for its rasters' files,
// its file, and its size in pixels.
type svgJob struct {
	name, path string
	w, h       int
}

// chromiumBatchHeight bounds the height, in CSS pixels, of the SVGs one
// Chromium screenshot holds: 5,000 is 15,000 device pixels at 3×, and 18
// megapixels of PNG to decode.
const chromiumBatchHeight = 5000

// chromiumRasters rasterises every SVG with Chromium's headless shell
// (Debian's chromium-headless-shell: the same drawing as the browser at a
// third less CPU than its headless mode), a launch
// for each batch of them (chromiumBatchHeight), the launches at once: a
// page stacks the batch, each as an <img> at its own size (an SVG document
// of its own, as rsvg-convert reads it), and one screenshot is cut into
// them. A launch costs about half a second, much of it waiting; one per
// SVG would cost most of the suite's time.
func chromiumRasters(fonts *oracleFonts, dir string, jobs []svgJob) ([]*image.RGBA, error) {
	var batches [][]svgJob
	for start := 0; start < len(jobs); {
		end, height := start, 0
		for end < len(jobs) && (end == start || height+jobs[end].h <= chromiumBatchHeight) {
			height += jobs[end].h
			end++
		}
		batches, start = append(batches, jobs[start:end]), end
	}
	rasters := make([][]*image.RGBA, len(batches))
	errs := make([]error, len(batches))
	var wg sync.WaitGroup
	for i, b := range batches {
		wg.Go(func() {
			rasters[i], errs[i] = chromiumBatch(fonts, filepath.Join(dir, fmt.Sprintf("chromium-%d", i)), b)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return slices.Concat(rasters...), nil
}

// chromiumBatch draws one batch of SVGs with one Chromium, working in dir.
func chromiumBatch(fonts *oracleFonts, dir string, jobs []svgJob) ([]*image.RGBA, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	var page strings.Builder
	page.WriteString("<!doctype html><html><head><style>html, body { margin: 0; padding: 0; background: #fff } img { display: block }</style></head><body>\n")
	width, height := 0, 0
	for _, j := range jobs {
		fmt.Fprintf(&page, "<img src=%q width=\"%d\" height=\"%d\">\n", "file://"+j.path, j.w, j.h)
		width, height = max(width, j.w), height+j.h
	}
	page.WriteString("</body></html>\n")
	html := filepath.Join(dir, "oracle.html")
	if err := os.WriteFile(html, []byte(page.String()), 0o600); err != nil {
		return nil, err
	}
	shot := filepath.Join(dir, "oracle.png")
	err := run(fonts.env(), "chromium-headless-shell", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions",
		"--user-data-dir="+filepath.Join(dir, "profile"),
		"--font-render-hinting=none", "--hide-scrollbars", "--force-device-scale-factor="+strconv.Itoa(chromiumSupersampling),
		fmt.Sprintf("--window-size=%d,%d", width, height), "--screenshot="+shot, "file://"+html)
	if err != nil {
		return nil, err
	}
	n := chromiumSupersampling
	all, err := readRaster(shot, width*n, height*n)
	if err != nil {
		return nil, err
	}
	out := make([]*image.RGBA, len(jobs))
	y := 0
	for i, j := range jobs {
		off := all.PixOffset(0, y*n)
		out[i] = downsample(all.Pix[off:], 4, all.Stride, j.w, j.h, n)
		y += j.h
	}
	return out, nil
}

// readRaster reads a PNG that must be w×h pixels, flattened onto white.
func readRaster(path string, w, h int) (*image.RGBA, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		return nil, fmt.Errorf("%s is %d×%d pixels, want %d×%d", filepath.Base(path), b.Dx(), b.Dy(), w, h)
	}
	if rgba, ok := img.(*image.RGBA); ok {
		return rgba, nil // what png decodes an opaque (RGB) PNG to
	}
	return onWhite(img), nil
}

// onWhite copies img onto white paper, as a raster of its own from 0,0.
func onWhite(img image.Image) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Bounds(), image.White, image.Point{}, draw.Src)
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Over)
	return out
}

// writePNG writes img to path.
func writePNG(path string, img image.Image) error {
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o600)
}
