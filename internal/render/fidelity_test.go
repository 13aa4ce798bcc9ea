package render

// The fidelity suite: each fixture of testdata/fidelity is a design
// document and the same picture written by hand as SVG. Platen renders the
// document to PDF and poppler rasterises it; librsvg and Chromium
// rasterise the SVG; Platen's raster must match each of the two, up to
// antialiasing. testdata/fidelity/README.md says how to read and add one.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/fetch"
	"github.com/platen-print/platen/internal/pdfxtest"
	"github.com/platen-print/platen/internal/testtools"
)

var fidelityOut = flag.String("fidelity.out", "",
	"write every fidelity fixture's rasters and diffs to this directory (by default only a failing fixture's, to a new directory under the system's temp dir)")

// fidelityTableEnv names a file the suite appends its table to: go test
// shows nothing a passing package prints unless run with -v, so make test
// sets it and prints the file after the run.
const fidelityTableEnv = "PLATEN_FIDELITY_TABLE"

const (
	fidelityDir      = "testdata/fidelity"
	fidelityManifest = "fidelity.tsv"
)

// fidelityFixture is a row of the manifest.
type fidelityFixture struct {
	name string
	// maxOff is the share of pixels (0 to 1) that may be off against each
	// oracle; tolerance how far (0–255, any channel) a pixel may be from
	// the oracle's before it is off.
	maxOff    float64
	tolerance int
}

// knownPrefix starts a manifest row that is commented out: a fixture
// whose files are kept but which does not run, because Platen draws it
// otherwise than both oracles (README.md, "Known differences"), until
// Platen is fixed and the prefix is taken off its row.
const knownPrefix = "#known\t"

// readFidelityManifest reads fidelity.tsv: name, max percent of pixels
// off, tolerance, and a note, tab-separated; # starts a comment line. It
// returns the fixtures to run, and the known differences (rows starting
// with knownPrefix, which are rows like the others behind it).
func readFidelityManifest() (fixtures, known []fidelityFixture, err error) {
	return readManifest(filepath.Join(fidelityDir, fidelityManifest))
}

// readManifest reads a manifest in fidelity.tsv's form (the fabric
// corpus's fabric.tsv is one too).
func readManifest(path string) (fixtures, known []fidelityFixture, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for n := 1; lines.Scan(); n++ {
		line := lines.Text()
		list := &fixtures
		if rest, ok := strings.CutPrefix(line, knownPrefix); ok {
			line, list = rest, &known
		} else if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fx, err := parseManifestRow(line)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", filepath.Base(path), n, err)
		}
		*list = append(*list, fx)
	}
	return fixtures, known, lines.Err()
}

func parseManifestRow(line string) (fidelityFixture, error) {
	cols := strings.Split(line, "\t")
	if len(cols) < 3 {
		return fidelityFixture{}, fmt.Errorf("want name, max %% off, tolerance and a note, tab-separated: %q", line)
	}
	pct, err := strconv.ParseFloat(cols[1], 64)
	if err != nil || pct < 0 || pct > 100 {
		return fidelityFixture{}, fmt.Errorf("max %% off %q is not a percentage", cols[1])
	}
	tol, err := strconv.Atoi(cols[2])
	if err != nil || tol < 0 || tol > 255 {
		return fidelityFixture{}, fmt.Errorf("tolerance %q is not a whole number from 0 to 255", cols[2])
	}
	return fidelityFixture{name: cols[0], maxOff: pct / 100, tolerance: tol}, nil
}

// fidelityPage is one page of a fixture: Platen's page of the document and
// the SVG drawn by hand for it (NAME.svg for the first, NAME.2.svg for the
// second surface, and so on).
type fidelityPage struct {
	fixture fidelityFixture
	label   string // the fixture's name, then .2, .3 for later pages
	doc     *designdoc.Document
	page    int    // from 1
	svg     string // the SVG's path
	w, h    int    // pixels
}

// loadFidelityPages reads the manifest and every fixture it lists, and
// checks that the directory holds nothing else: a fixture left out of the
// manifest would never run.
//
// The files of a known difference are read and checked too, so that they
// are ready to run once Platen is fixed, but not rendered.
func loadFidelityPages() ([]fidelityPage, error) {
	fixtures, differences, err := readFidelityManifest()
	if err != nil {
		return nil, err
	}
	known := map[string]bool{fidelityManifest: true, "README.md": true}
	var pages []fidelityPage
	for i, fx := range append(fixtures, differences...) {
		fxPages, err := loadFixture(fx)
		if err != nil {
			return nil, fmt.Errorf("fixture %s: %w", fx.name, err)
		}
		known[fx.name+".json"] = true
		for _, p := range fxPages {
			known[filepath.Base(p.svg)] = true
		}
		if i < len(fixtures) {
			pages = append(pages, fxPages...)
		}
	}
	return pages, strayFiles(fidelityDir, known, "belongs to no fixture of "+fidelityManifest+" (or to a page the document does not have)")
}

// strayFiles is an error naming the first file of dir not in known: a
// fixture's file the manifest lost would never be compared.
func strayFiles(dir string, known map[string]bool, why string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !known[e.Name()] {
			return fmt.Errorf("%s/%s %s", dir, e.Name(), why)
		}
	}
	return nil
}

func loadFixture(fx fidelityFixture) ([]fidelityPage, error) {
	raw, err := os.ReadFile(filepath.Join(fidelityDir, fx.name+".json"))
	if err != nil {
		return nil, err
	}
	doc, err := designdoc.Parse(raw)
	if err != nil {
		return nil, err
	}
	w, h, err := pagePixels(doc)
	if err != nil {
		return nil, err
	}
	var pages []fidelityPage
	for i := range doc.Surfaces {
		p := fidelityPage{fixture: fx, label: fx.name, doc: doc, page: i + 1, w: w, h: h}
		if i > 0 {
			p.label += "." + strconv.Itoa(i+1)
		}
		p.svg, err = filepath.Abs(filepath.Join(fidelityDir, p.label+".svg"))
		if err != nil {
			return nil, err
		}
		if err := checkSVGFrame(p.svg, doc, w, h); err != nil {
			return nil, err
		}
		pages = append(pages, p)
	}
	return pages, nil
}

// pagePixels is the size of the document's page, bleed included, on the
// suite's pixel grid; it must be a whole number of pixels, or the rasters
// would disagree on how to round the last column.
func pagePixels(doc *designdoc.Document) (w, h int, err error) {
	bleed := 2 * doc.ToMM(doc.Bleed)
	wmm, hmm := doc.ToMM(doc.Width)+bleed, doc.ToMM(doc.Height)+bleed
	fw, fh := wmm*pxPerMM, hmm*pxPerMM
	if math.Abs(fw-math.Round(fw)) > 1e-6 || math.Abs(fh-math.Round(fh)) > 1e-6 {
		return 0, 0, fmt.Errorf("the page, bleed included, is %g × %g mm: not a whole number of pixels at %d px/mm", wmm, hmm, pxPerMM)
	}
	return int(math.Round(fw)), int(math.Round(fh)), nil
}

// checkSVGFrame checks that the SVG's root draws the page on the suite's
// grid: width and height in pixels, and a viewBox in millimetres whose
// origin is the trim box's top-left corner, the bleed around it.
func checkSVGFrame(path string, doc *designdoc.Document, w, h int) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	root, err := svgRoot(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	b := doc.ToMM(doc.Bleed)
	origin := 0 - b // not -b, which is -0 without bleed
	want := map[string]string{
		"width":   fmt.Sprintf("%dpx", w),
		"height":  fmt.Sprintf("%dpx", h),
		"viewBox": fmt.Sprintf("%g %g %g %g", origin, origin, doc.ToMM(doc.Width)+2*b, doc.ToMM(doc.Height)+2*b),
	}
	for attr, value := range want {
		if got := root[attr]; normaliseNumbers(got) != normaliseNumbers(value) {
			return fmt.Errorf("%s: the root's %s is %q, want %q (%d px/mm over the page and its bleed)", filepath.Base(path), attr, got, value, pxPerMM)
		}
	}
	return nil
}

// svgRoot returns the attributes of the document's root element, which
// must be svg.
func svgRoot(raw []byte) (map[string]string, error) {
	dec := xml.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("no root element: %w", err)
		}
		start, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if start.Name.Local != "svg" {
			return nil, fmt.Errorf("the root element is <%s>, want <svg>", start.Name.Local)
		}
		attrs := map[string]string{}
		for _, a := range start.Attr {
			attrs[a.Name.Local] = a.Value
		}
		return attrs, nil
	}
}

// normaliseNumbers rewrites each number of s as %g, so that "3.0" and "3"
// compare equal.
func normaliseNumbers(s string) string {
	fields := strings.Fields(strings.ReplaceAll(s, ",", " "))
	for i, f := range fields {
		num := strings.TrimSuffix(f, "px")
		if v, err := strconv.ParseFloat(num, 64); err == nil {
			fields[i] = strconv.FormatFloat(v, 'g', 10, 64) + strings.TrimPrefix(f, num)
		}
	}
	return strings.Join(fields, " ")
}

// fixtureImages serves the data: URLs the document's image layers name,
// those inside groups too, decoded by the fetcher the service itself uses.
func fixtureImages(doc *designdoc.Document) (images, error) {
	fetcher := fetch.New(fetch.Config{})
	out := images{}
	var add func(layers []designdoc.Layer) error
	add = func(layers []designdoc.Layer) error {
		for _, l := range layers {
			if l.Type == designdoc.GroupLayer {
				if err := add(l.Layers); err != nil {
					return err
				}
			}
			if l.Type != designdoc.ImageLayer || out[l.Src] != nil {
				continue
			}
			img, err := fetcher.Fetch(context.Background(), l.Src)
			if err != nil {
				return fmt.Errorf("%s: %w", l.Path, err)
			}
			out[l.Src] = &Image{Data: img.Data, Format: img.Format}
		}
		return nil
	}
	for _, s := range doc.Surfaces {
		if err := add(s.Layers); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// platenPDF renders the page's document as Platen prints it.
func platenPDF(p fidelityPage) ([]byte, error) {
	imgs, err := fixtureImages(p.doc)
	if err != nil {
		return nil, err
	}
	return New(imgs, NewFonts(nil)).PDF(context.Background(), p.doc, Settings{DPI: 300})
}

// platenRaster renders the page with Platen and rasterises it with
// pdftoppm, after taking the output intent out (pdfxtest.WithoutOutputIntent says
// why); the PDF is kept in dir for a failure's artefacts.
func platenRaster(p fidelityPage, dir string) (*image.RGBA, error) {
	pdf, err := platenPDF(p)
	if err != nil {
		return nil, err
	}
	if pdf, err = pdfxtest.WithoutOutputIntent(pdf); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, p.label+".pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		return nil, err
	}
	return pdfPageRaster(path, p.page, p.w, p.h)
}

// raster is a rasteriser's result for one page.
type raster struct {
	img *image.RGBA
	err error
}

// eachInParallel calls f(0) … f(n-1), as many at once as there are CPUs.
func eachInParallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range n {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			f(i)
		})
	}
	wg.Wait()
}

// svgJobOf is the job of drawing the page's own SVG.
func svgJobOf(p fidelityPage) svgJob {
	return svgJob{name: p.label, path: p.svg, w: p.w, h: p.h}
}

// rasteriseFidelity draws the pages with Platen (pdftoppm) and the SVGs
// with librsvg, as many at once as there are CPUs, while Chromium draws
// the SVGs too (chromiumRasters).
func rasteriseFidelity(pages []fidelityPage, svgs []svgJob, fonts *oracleFonts, dir string) (platen, rsvg, chromium []raster) {
	platen, rsvg, chromium = make([]raster, len(pages)), make([]raster, len(svgs)), make([]raster, len(svgs))
	chromiumDone := make(chan struct{})
	go func() {
		defer close(chromiumDone)
		imgs, err := chromiumRasters(fonts, dir, svgs)
		for i := range svgs {
			if err != nil {
				chromium[i] = raster{err: err}
			} else {
				chromium[i] = raster{img: imgs[i]}
			}
		}
	}()
	eachInParallel(len(pages)+len(svgs), func(i int) {
		if i < len(pages) {
			img, err := platenRaster(pages[i], dir)
			platen[i] = raster{img, err}
			return
		}
		j := svgs[i-len(pages)]
		img, err := rsvgRaster(fonts, j.path, filepath.Join(dir, j.name+".rsvg.png"), j.w, j.h)
		rsvg[i-len(pages)] = raster{img, err}
	})
	<-chromiumDone
	return platen, rsvg, chromium
}

// needFidelityTools skips (or, in CI, fails) t unless the three renderers
// are installed.
func needFidelityTools(t *testing.T) {
	t.Helper()
	testtools.Need(t, "poppler-utils", "pdftoppm")
	testtools.Need(t, "librsvg2-bin", "rsvg-convert")
	testtools.Need(t, "chromium-headless-shell", "chromium-headless-shell")
	for _, f := range []struct{ pkg, path string }{
		{"fonts-noto-core", oracleFallbackFonts[0]},
		{"fonts-droid-fallback", oracleFallbackFonts[1]},
	} {
		if _, err := os.Stat(f.path); err != nil {
			testtools.Missing(t, f.path+" is not installed (Debian package "+f.pkg+"; `make install-test-tools` installs every one)")
		}
	}
}

// fidelityRow is a page's line of the suite's table.
type fidelityRow struct {
	label string
	// rsvg and chromium are the shares of Platen's pixels off against
	// each oracle; oracles, of librsvg's against Chromium's: how far two
	// good renderers differ, the floor under any threshold. NaN when a
	// raster is missing.
	rsvg, chromium, oracles float64
	fixture                 fidelityFixture
}

func (r fidelityRow) pass() bool {
	return r.rsvg <= r.fixture.maxOff && r.chromium <= r.fixture.maxOff
}

// TestFidelity compares every fixture's Platen raster with both oracles',
// then checks that the same comparison fails every page moved 0.5 mm and
// each wrong SVG (wrongSVGs): the pages are rendered once for both.
func TestFidelity(t *testing.T) {
	needFidelityTools(t)
	start := time.Now()
	pages, err := loadFidelityPages()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	fonts, err := newOracleFonts(work)
	if err != nil {
		t.Fatal(err)
	}
	wrong, wrongJobs, err := writeWrongSVGs(pages, work)
	if err != nil {
		t.Fatal(err)
	}
	svgs := make([]svgJob, len(pages), len(pages)+len(wrongJobs))
	for i, p := range pages {
		svgs[i] = svgJobOf(p)
	}
	platen, rsvg, chromium := rasteriseFidelity(pages, append(svgs, wrongJobs...), fonts, work)
	artefacts := &artefactDir{work: work, out: fidelityOut, prefix: "platen-fidelity-"}
	rows := make([]fidelityRow, len(pages))
	for i, p := range pages {
		rows[i] = fidelityRow{label: p.label, rsvg: math.NaN(), chromium: math.NaN(), oracles: math.NaN(), fixture: p.fixture}
		t.Run(p.label, func(t *testing.T) {
			checkFidelityPage(t, p, &rows[i], platen[i], rsvg[i], chromium[i], artefacts)
		})
	}
	var caught wrongCount
	t.Run("wrong pictures fail", func(t *testing.T) {
		n := len(pages)
		caught.add(checkShiftedPages(t, pages, platen, rsvg[:n], chromium[:n]))
		caught.add(checkWrongSVGs(t, pages, wrong, platen, rsvg[n:], chromium[n:]))
	})
	reportFidelity(t, rows, caught, time.Since(start))
}

// checkFidelityPage compares a page's Platen raster with each oracle's,
// fills in its row, and fails t, naming where the rasters and diffs were
// written, when either is off by more than the fixture allows.
func checkFidelityPage(t *testing.T, p fidelityPage, row *fidelityRow, platen, rsvg, chromium raster, artefacts *artefactDir) {
	if platen.err != nil {
		t.Fatalf("Platen: %v", platen.err)
	}
	var failures []string
	kept := map[string]*image.RGBA{"platen": platen.img}
	for _, o := range []struct {
		name  string
		r     raster
		share *float64
	}{{"rsvg", rsvg, &row.rsvg}, {"chromium", chromium, &row.chromium}} {
		if o.r.err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", o.name, o.r.err))
			continue
		}
		off := comparePixels(platen.img, o.r.img, p.fixture.tolerance)
		*o.share = off.share()
		kept[o.name] = o.r.img
		kept["diff-"+o.name] = diffImage(platen.img, off)
		if off.share() > p.fixture.maxOff {
			failures = append(failures, fmt.Sprintf("%.2f%% of pixels off against %s (%d of %d), over the %.2f%% allowed",
				100*off.share(), o.name, off.off, off.all, 100*p.fixture.maxOff))
		}
	}
	if rsvg.err == nil && chromium.err == nil {
		row.oracles = comparePixels(rsvg.img, chromium.img, p.fixture.tolerance).share()
	}
	if len(failures) == 0 && *fidelityOut == "" {
		return
	}
	dir, err := artefacts.write(p.label, kept, map[string]string{p.svg: p.label + ".svg"})
	if err != nil {
		t.Errorf("writing the rasters: %v", err)
	}
	if len(failures) > 0 {
		t.Errorf("%s\nrasters (%s.platen.png, .rsvg.png, .chromium.png, .diff-*.png: off pixels in red), the PDF and the SVG are in %s",
			strings.Join(failures, "\n"), p.label, dir)
	}
}

// artefactDir is where a run writes the rasters of pages that fail (and
// of every page with its suite's -….out flag, out): made on first use,
// under the system's temp dir with prefix when out is empty.
type artefactDir struct {
	work   string // the run's scratch directory, which holds the PDFs
	out    *string
	prefix string
	once   sync.Once
	path   string
	err    error
}

func (a *artefactDir) dir() (string, error) {
	a.once.Do(func() {
		if *a.out != "" {
			a.path, a.err = *a.out, os.MkdirAll(*a.out, 0o755)
			return
		}
		a.path, a.err = os.MkdirTemp("", a.prefix)
	})
	return a.path, a.err
}

// write writes a page's rasters (LABEL.NAME.png), its PDF (as rasterised,
// when there is one) and the files of more (their paths to the names to
// write them as, in dir).
func (a *artefactDir) write(label string, rasters map[string]*image.RGBA, more map[string]string) (string, error) {
	dir, err := a.dir()
	if err != nil {
		return "", err
	}
	for name, img := range rasters {
		if err := writePNG(filepath.Join(dir, label+"."+name+".png"), img); err != nil {
			return dir, err
		}
	}
	if pdf, err := os.ReadFile(filepath.Join(a.work, label+".pdf")); err == nil {
		if err := os.WriteFile(filepath.Join(dir, label+".pdf"), pdf, 0o644); err != nil {
			return dir, err
		}
	}
	for from, name := range more {
		data, err := os.ReadFile(from)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), data, 0o644)
		}
		if err != nil {
			return dir, err
		}
	}
	return dir, nil
}

// publishTable prints a suite's table and appends it to the file
// fidelityTableEnv names, which make test prints after the run.
func publishTable(t *testing.T, table string) {
	fmt.Print(table)
	if path := os.Getenv(fidelityTableEnv); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			_, err = f.WriteString(table)
			err = errors.Join(err, f.Close())
		}
		if err != nil {
			t.Errorf("%s: %v", fidelityTableEnv, err)
		}
	}
}

// reportFidelity prints the suite's table: to standard output (seen with
// -v, or when the package fails), and appended to the file
// PLATEN_FIDELITY_TABLE names, which make test prints.
func reportFidelity(t *testing.T, rows []fidelityRow, caught wrongCount, took time.Duration) {
	slices.SortStableFunc(rows, func(a, b fidelityRow) int { return strings.Compare(a.label, b.label) })
	var b strings.Builder
	passed := 0
	fmt.Fprintf(&b, "fidelity (internal/render/testdata/fidelity): Platen's PDF through pdftoppm against the SVG drawn by librsvg and by Chromium, %d px/mm\n", pxPerMM)
	fmt.Fprintf(&b, "  %% of pixels off by more than tol; max: the fixture's threshold; r↔c: librsvg against Chromium\n")
	fmt.Fprintf(&b, "  %-20s %7s %9s %7s %5s %4s  %s\n", "fixture", "rsvg", "chromium", "max", "r↔c", "tol", "result")
	for _, r := range rows {
		result := "FAIL"
		if r.pass() {
			result, passed = "ok", passed+1
		}
		fmt.Fprintf(&b, "  %-20s %6.2f%% %8.2f%% %6.2f%% %5.2f%% %4d  %s\n",
			r.label, 100*r.rsvg, 100*r.chromium, 100*r.fixture.maxOff, 100*r.oracles, r.fixture.tolerance, result)
	}
	fmt.Fprintf(&b, "  %d of %d pages within their thresholds; %d of %d comparisons with a wrong picture failed, as they must; %.1f s\n",
		passed, len(rows), caught.failed, caught.all, took.Seconds())
	publishTable(t, b.String())
}
