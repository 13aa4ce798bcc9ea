package render

// The fabric fidelity suite: each document of testdata/fabric carries
// canvases saved by fabric.js (canvas.toJSON()). Platen renders the
// document to PDF, poppler rasterises it, and fabric 7.4.0 itself draws
// the same canvases in Chromium (testdata/fabric/oracle.js): Platen's
// raster must match fabric's, up to antialiasing, on the fidelity suite's
// grid. testdata/fabric/README.md says how the corpus is made and read.

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/testtools"
)

var fabricOut = flag.String("fabric.out", "",
	"write every fabric canvas's rasters (fabric's, and Platen's and the diff where Platen rendered it) to this directory (by default only a failing page's, to a new directory under the system's temp dir)")

const (
	fabricDir      = "testdata/fabric"
	fabricManifest = "fabric.tsv"
)

// fabricCorpusFiles are the files of testdata/fabric that are no canvas:
// the generator, the oracle and what they share, their pictures, and the
// manifest and README.
var fabricCorpusFiles = []string{fabricManifest, "README.md", "generate.js", "scenes.js", "browser.js", "oracle.js", "assets.go", "photo.jpg", "badge.png"}

// fabricEnvelope is what the oracle needs of a fabric document, read
// without designdoc: the oracle draws the canvases whether or not Platen
// can read them.
type fabricEnvelope struct {
	Format   string          `json:"format"`
	Width    float64         `json:"width"`
	Height   float64         `json:"height"`
	Bleed    float64         `json:"bleed"`
	Unit     string          `json:"unit"`
	DPI      float64         `json:"dpi"`
	Canvas   *fabricSize     `json:"canvas"`
	Fabric   json.RawMessage `json:"fabric"`
	Surfaces []struct {
		Canvas *fabricSize     `json:"canvas"`
		Fabric json.RawMessage `json:"fabric"`
	} `json:"surfaces"`
}

// fabricSize is a canvas's size in its own pixels.
type fabricSize struct {
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// mm converts a length of the envelope's unit to millimetres.
func (e *fabricEnvelope) mm(v float64) (float64, error) {
	switch e.Unit {
	case "", "mm":
		return v, nil
	case "in":
		return v * 25.4, nil
	case "px":
		if e.DPI <= 0 {
			return 0, errors.New("unit px without a dpi")
		}
		return v * 25.4 / e.DPI, nil
	}
	return 0, fmt.Errorf("unknown unit %q", e.Unit)
}

// fabricPage is one surface of a corpus document: the oracle's job of
// drawing its canvas, and Platen's page (unless Platen cannot read the
// document: parseErr).
type fabricPage struct {
	fidelityPage // the document, its page and size, as the fidelity suite renders it
	parseErr     error
	canvas       json.RawMessage
	// zoom is the oracle's device pixels a canvas pixel; bleed how many
	// device pixels the trim box starts in from the element's corner.
	zoom, bleed float64
}

// loadFabricPages reads the manifest and each document it lists, and
// checks that the directory holds nothing else.
func loadFabricPages() ([]fabricPage, error) {
	fixtures, differences, err := readManifest(filepath.Join(fabricDir, fabricManifest))
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, f := range fabricCorpusFiles {
		known[f] = true
	}
	var pages []fabricPage
	for i, fx := range append(fixtures, differences...) {
		fxPages, err := loadFabricDocument(fx)
		if err != nil {
			return nil, fmt.Errorf("%s.json: %w", fx.name, err)
		}
		known[fx.name+".json"] = true
		if i < len(fixtures) {
			pages = append(pages, fxPages...)
		}
	}
	return pages, strayFiles(fabricDir, known, "belongs to no canvas of "+fabricManifest)
}

// loadFabricDocument reads a document's envelope into its pages, and
// parses it with designdoc.Parse, keeping the error for the pages' own
// tests to report.
func loadFabricDocument(fx fidelityFixture) ([]fabricPage, error) {
	raw, err := os.ReadFile(filepath.Join(fabricDir, fx.name+".json"))
	if err != nil {
		return nil, err
	}
	var env fabricEnvelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, err
	}
	canvases, sizes := []json.RawMessage{env.Fabric}, []*fabricSize{env.Canvas}
	if len(env.Surfaces) > 0 {
		canvases, sizes = nil, nil
		for _, s := range env.Surfaces {
			canvases, sizes = append(canvases, s.Fabric), append(sizes, s.Canvas)
		}
	}
	if env.Format != "fabric" {
		return nil, fmt.Errorf("format is %q, want fabric", env.Format)
	}
	doc, parseErr := designdoc.Parse(raw)
	var pages []fabricPage
	for i := range canvases {
		p, err := fabricPageOf(fx, &env, canvases[i], sizes[i])
		if err != nil {
			return nil, fmt.Errorf("surface %d: %w", i+1, err)
		}
		p.fidelityPage.doc, p.parseErr, p.fidelityPage.page = doc, parseErr, i+1
		if i > 0 {
			p.label += "." + strconv.Itoa(i+1)
		}
		pages = append(pages, p)
	}
	if parseErr == nil && len(doc.Surfaces) != len(pages) {
		return nil, fmt.Errorf("designdoc reads %d surfaces, the document has %d canvases", len(doc.Surfaces), len(pages))
	}
	return pages, nil
}

// fabricPageOf places a canvas on the suite's grid: the page, bleed
// included, a whole number of pixels, and the canvas scaled uniformly onto
// the trim box, which it must fit exactly.
func fabricPageOf(fx fidelityFixture, env *fabricEnvelope, canvas json.RawMessage, size *fabricSize) (fabricPage, error) {
	if len(canvas) == 0 || size == nil || size.Width <= 0 || size.Height <= 0 {
		return fabricPage{}, errors.New("no canvas, or no canvas size")
	}
	w, errW := env.mm(env.Width)
	h, errH := env.mm(env.Height)
	b, errB := env.mm(env.Bleed)
	if err := errors.Join(errW, errH, errB); err != nil {
		return fabricPage{}, err
	}
	if math.Abs(w/size.Width-h/size.Height) > 1e-9*w/size.Width {
		return fabricPage{}, fmt.Errorf("the canvas, %g × %g px, has not the trim box's proportions (%g × %g mm)", size.Width, size.Height, w, h)
	}
	fw, fh := (w+2*b)*pxPerMM, (h+2*b)*pxPerMM
	if math.Abs(fw-math.Round(fw)) > 1e-6 || math.Abs(fh-math.Round(fh)) > 1e-6 {
		return fabricPage{}, fmt.Errorf("the page, bleed included, is %g × %g mm: not a whole number of pixels at %d px/mm", w+2*b, h+2*b, pxPerMM)
	}
	n := float64(chromiumSupersampling)
	return fabricPage{
		fidelityPage: fidelityPage{fixture: fx, label: fx.name, w: int(math.Round(fw)), h: int(math.Round(fh))},
		canvas:       canvas,
		zoom:         n * pxPerMM * w / size.Width,
		bleed:        n * pxPerMM * b,
	}, nil
}

// fabricJob is a page as the oracle reads it (oracle.js).
type fabricJob struct {
	Name   string          `json:"name"`
	Out    string          `json:"out"`
	Fabric json.RawMessage `json:"fabric"`
	Width  int             `json:"width"`
	Height int             `json:"height"`
	Bleed  float64         `json:"bleed"`
	Zoom   float64         `json:"zoom"`
}

// fabricNodeProject is the node project whose fabric and playwright-core
// the oracle runs with.
const fabricNodeProject = "../panel/browser"

// fabricRasters draws every page with fabric in one Chromium
// (oracle.js), at chromiumSupersampling times the grid's resolution, and
// averages each down to the grid, as chromiumBatch does.
func fabricRasters(fonts *oracleFonts, dir string, pages []fabricPage) ([]*image.RGBA, error) {
	batch := struct {
		Fonts string      `json:"fonts"`
		Jobs  []fabricJob `json:"jobs"`
	}{Fonts: filepath.Join(fonts.dir, "fonts")}
	n := chromiumSupersampling
	for _, p := range pages {
		batch.Jobs = append(batch.Jobs, fabricJob{
			Name: p.label, Out: filepath.Join(dir, p.label+".fabric-3x.png"), Fabric: p.canvas,
			Width: p.w * n, Height: p.h * n, Bleed: p.bleed, Zoom: p.zoom,
		})
	}
	data, err := json.Marshal(batch)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "fabric-batch.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return nil, err
	}
	script, err := filepath.Abs(filepath.Join(fabricDir, "oracle.js"))
	if err != nil {
		return nil, err
	}
	if err := run(fonts.env(), "node", script, path); err != nil {
		return nil, err
	}
	out := make([]*image.RGBA, len(pages))
	for i, j := range batch.Jobs {
		big, err := readRaster(j.Out, j.Width, j.Height)
		if err != nil {
			return nil, err
		}
		out[i] = downsample(big.Pix, 4, big.Stride, pages[i].w, pages[i].h, n)
	}
	return out, nil
}

// rasteriseFabric draws the pages with Platen (those it can read), as many
// at once as there are CPUs, while the oracle draws them all.
func rasteriseFabric(pages []fabricPage, fonts *oracleFonts, dir string) (platen, oracle []raster) {
	platen, oracle = make([]raster, len(pages)), make([]raster, len(pages))
	oracleDone := make(chan struct{})
	go func() {
		defer close(oracleDone)
		imgs, err := fabricRasters(fonts, dir, pages)
		for i := range pages {
			if err != nil {
				oracle[i] = raster{err: err}
			} else {
				oracle[i] = raster{img: imgs[i]}
			}
		}
	}()
	eachInParallel(len(pages), func(i int) {
		if pages[i].parseErr != nil {
			platen[i] = raster{err: fmt.Errorf("designdoc.Parse refuses the document: %w", pages[i].parseErr)}
			return
		}
		img, err := platenRaster(pages[i].fidelityPage, dir)
		platen[i] = raster{img, err}
	})
	<-oracleDone
	return platen, oracle
}

// needFabricTools skips (or, in CI, fails) t unless poppler, Chromium,
// Node.js and the node project's fabric and playwright-core are installed.
func needFabricTools(t *testing.T) {
	t.Helper()
	needFidelityTools(t)
	testtools.Need(t, "nodejs", "node")
	for _, module := range []string{"fabric", "playwright-core"} {
		if _, err := os.Stat(filepath.Join(fabricNodeProject, "node_modules", module)); err != nil {
			testtools.Missing(t, module+" is not installed in internal/panel/browser: `make test-tools` runs npm ci there when npm is installed")
		}
	}
}

// fabricRow is a page's line of the table.
type fabricRow struct {
	label   string
	off     float64 // share of Platen's pixels off against fabric's; NaN when either is missing
	fixture fidelityFixture
}

func (r fabricRow) pass() bool { return r.off <= r.fixture.maxOff }

// TestFabricFidelity compares every page of the fabric corpus as Platen
// prints it with the same canvas as fabric draws it, then checks that
// each comparison fails with the picture moved 0.5 mm.
func TestFabricFidelity(t *testing.T) {
	needFabricTools(t)
	start := time.Now()
	pages, err := loadFabricPages()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	fonts, err := newOracleFonts(work)
	if err != nil {
		t.Fatal(err)
	}
	platen, oracle := rasteriseFabric(pages, fonts, work)
	artefacts := &artefactDir{work: work, out: fabricOut, prefix: "platen-fabric-"}
	rows := make([]fabricRow, len(pages))
	for i, p := range pages {
		rows[i] = fabricRow{label: p.label, off: math.NaN(), fixture: p.fixture}
		t.Run(p.label, func(t *testing.T) {
			checkFabricPage(t, p, &rows[i], platen[i], oracle[i], artefacts)
		})
	}
	var caught wrongCount
	t.Run("wrong pictures fail", func(t *testing.T) {
		caught = checkShiftedFabric(t, pages, platen, oracle)
	})
	reportFabric(t, rows, caught, time.Since(start))
}

// checkFabricPage compares a page's Platen raster with fabric's, fills in
// its row, and fails t, naming where the rasters and diff were written,
// when Platen could not render the page or is off by more than the page
// allows.
func checkFabricPage(t *testing.T, p fabricPage, row *fabricRow, platen, oracle raster, artefacts *artefactDir) {
	kept := map[string]*image.RGBA{}
	if oracle.err == nil {
		kept["fabric"] = oracle.img
	}
	var failures []string
	switch {
	case platen.err != nil:
		failures = append(failures, "Platen: "+platen.err.Error())
	case oracle.err != nil:
		failures = append(failures, "fabric: "+oracle.err.Error())
	default:
		off := comparePixels(platen.img, oracle.img, p.fixture.tolerance)
		row.off = off.share()
		kept["platen"], kept["diff"] = platen.img, diffImage(platen.img, off)
		if off.share() > p.fixture.maxOff {
			failures = append(failures, fmt.Sprintf("%.2f%% of pixels off against fabric (%d of %d), over the %.2f%% allowed",
				100*off.share(), off.off, off.all, 100*p.fixture.maxOff))
		}
	}
	if len(failures) == 0 && *fabricOut == "" {
		return
	}
	doc := p.fixture.name + ".json"
	dir, err := artefacts.write(p.label, kept, map[string]string{filepath.Join(fabricDir, doc): doc})
	if err != nil {
		t.Errorf("writing the rasters: %v", err)
	}
	if len(failures) > 0 {
		t.Errorf("%s\nrasters (%s.fabric.png, .platen.png, .diff.png: off pixels in red), the PDF and the document are in %s",
			strings.Join(failures, "\n"), p.label, dir)
	}
}

// checkShiftedFabric checks that every page's comparison fails when
// Platen's picture is moved pageShift mm to the right: a threshold that
// lets that pass could not catch a misplaced object. Until Platen renders
// a page, its fabric picture is moved against itself instead, which
// checks the threshold all the same.
func checkShiftedFabric(t *testing.T, pages []fabricPage, platen, oracle []raster) wrongCount {
	var count wrongCount
	dx := int(pageShift * pxPerMM)
	for i, p := range pages {
		if oracle[i].err != nil {
			continue // reported by the page's own test
		}
		got, what := platen[i].img, fmt.Sprintf("Platen's page moved %g mm right", pageShift)
		if platen[i].err != nil {
			got, what = oracle[i].img, fmt.Sprintf("fabric's own picture moved %g mm right", pageShift)
		}
		share := comparePixels(shiftedRight(got, dx), oracle[i].img, p.fixture.tolerance).share()
		count.check(t, p.label, what, "fabric", share, p.fixture.maxOff)
	}
	return count
}

// reportFabric prints the table: to standard output, and appended to the
// file PLATEN_FIDELITY_TABLE names, which make test prints after the
// fidelity suite's.
func reportFabric(t *testing.T, rows []fabricRow, caught wrongCount, took time.Duration) {
	slices.SortStableFunc(rows, func(a, b fabricRow) int { return strings.Compare(a.label, b.label) })
	var b strings.Builder
	passed := 0
	fmt.Fprintf(&b, "fabric (internal/render/testdata/fabric): Platen's PDF through pdftoppm against fabric 7.4.0 in Chromium, %d px/mm\n", pxPerMM)
	fmt.Fprintf(&b, "  %% of pixels off by more than tol; max: the canvas's threshold; a blank share: Platen drew nothing to compare\n")
	fmt.Fprintf(&b, "  %-26s %7s %7s %4s  %s\n", "canvas", "off", "max", "tol", "result")
	for _, r := range rows {
		result, off := "FAIL", "      -"
		if !math.IsNaN(r.off) {
			off = fmt.Sprintf("%6.2f%%", 100*r.off)
		}
		if r.pass() {
			result, passed = "ok", passed+1
		}
		fmt.Fprintf(&b, "  %-26s %7s %6.2f%% %4d  %s\n", r.label, off, 100*r.fixture.maxOff, r.fixture.tolerance, result)
	}
	fmt.Fprintf(&b, "  %d of %d pages within their thresholds; %d of %d comparisons with a picture moved %g mm failed, as they must; %.1f s\n",
		passed, len(rows), caught.failed, caught.all, pageShift, took.Seconds())
	publishTable(t, b.String())
}

// TestFabricEnvelope checks how the suite places a canvas on its grid, in
// memory: the zoom and bleed the oracle gets, and the envelopes it refuses.
func TestFabricEnvelope(t *testing.T) {
	fx := fidelityFixture{name: "x"}
	env := &fabricEnvelope{Width: 100, Height: 70, Bleed: 2, Unit: "mm"}
	p, err := fabricPageOf(fx, env, json.RawMessage(`{}`), &fabricSize{800, 560})
	if err != nil {
		t.Fatal(err)
	}
	if p.w != 416 || p.h != 296 || p.zoom != 1.5 || p.bleed != 24 {
		t.Errorf("100 × 70 mm, bleed 2, canvas 800 × 560: %d × %d px, zoom %g, bleed %g; want 416 × 296, 1.5, 24", p.w, p.h, p.zoom, p.bleed)
	}
	if _, err := fabricPageOf(fx, env, json.RawMessage(`{}`), &fabricSize{800, 600}); err == nil {
		t.Error("a canvas of other proportions than the trim box's was taken")
	}
	env.Width = 100.1
	if _, err := fabricPageOf(fx, env, json.RawMessage(`{}`), &fabricSize{1001, 700}); err == nil {
		t.Error("a page of a fraction of a pixel was taken")
	}
}
