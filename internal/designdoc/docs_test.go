package designdoc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"image/png"
	"log/slog"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/fetch"
	"github.com/platen-print/platen/internal/pdfxtest"
	"github.com/platen-print/platen/internal/poppler"
	"github.com/platen-print/platen/internal/renderproc"
)

// docFile is the design document's user documentation, and
// fabricDocFile that of fabric canvases, whose examples are checked alike.
var (
	docFile       = filepath.Join("..", "..", "docs", "design-document.md")
	fabricDocFile = filepath.Join("..", "..", "docs", "fabric.md")
)

// minExamples is fewer examples than the documentation has: a parser that
// stopped seeing them must not pass for one that checked them all.
const minExamples = 70

// The fences of the documentation, each checked by TestDesignDocumentExamples.
const (
	fenceDesign       = "json design"                // a document that renders
	fenceDesignError  = "json design-error"          // a document refused at "api" or "print", then its message
	fenceEncoded      = "text template_config"       // the document above it, URL-encoded
	fenceEncodedError = "text template_config-error" // a template_config the API refuses, then its message
	fenceMessage      = "text"                       // the message an error example gives
	itemField         = "items[0].template_config"   // the field an order create names
	whenAPI           = "api"                        // refused when the order is created
	whenPrint         = "print"                      // accepted, and the print fails
)

// How colours are checked (at=): PNGs at previewDPI unless the document
// sets its own dpi, the PDF rasterised at pdfPixelDPI, each channel within
// colourTolerance (anti-aliasing, JPEG, colour rounding).
const (
	previewDPI      = 100
	pdfPixelDPI     = 100
	colourTolerance = 24
)

// fence is one fenced block of the documentation: its info string and text.
type fence struct {
	info, body string
	line       int
}

var fencePattern = regexp.MustCompile("(?ms)^```([^\n]*)\n(.*?)^```\\s*$")

func fences(t *testing.T) []fence { return fencesOf(t, docFile) }

func fencesOf(t *testing.T, file string) []fence {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	var list []fence
	for _, m := range fencePattern.FindAllStringSubmatchIndex(text, -1) {
		list = append(list, fence{
			info: strings.TrimSpace(text[m[2]:m[3]]),
			body: text[m[4]:m[5]],
			line: strings.Count(text[:m[0]], "\n") + 1,
		})
	}
	return list
}

// kind splits an info string into its first two words, which say what the
// fence holds, and the options after them.
func (f fence) kind() (string, []string) {
	words := strings.Fields(f.info)
	if len(words) < 2 {
		return f.info, nil
	}
	return words[0] + " " + words[1], words[2:]
}

// TestDesignDocumentExamples checks every example of docs/design-document.md:
//
//   - ```json design [pages=N] [trim=WxH] [bleed=B] [at=X,Y[,P]:#rrggbb]…:
//     a document the API accepts and that renders, as a print (PDF) and as
//     PNGs, to N pages whose TrimBox is W × H mm, whose page is the trim plus
//     B mm each side, and whose colour X, Y mm from the trim's top-left
//     corner (of page P, 1 unless given) is that colour, in the PDF and in
//     the PNG alike; ink=X,Y[,P]:Name=percent[+Name=percent]…: the plates
//     Ghostscript's tiffsep device separates page P into carry each ink
//     named at that percentage there, and no other ink (unless the list
//     ends in +*; a name's spaces are %20); ink=X,Y~R:Name=…: each ink
//     named is within R mm of X, Y (a hairline);
//   - ```json design-error api or print, then ```text: a document the API
//     refuses with exactly that message (as an order create answers it, for
//     items[0]), or one the API accepts and whose print fails at once
//     (retrying cannot help) with exactly that reason;
//   - ```text template_config: the document of the ```json design just
//     before it, URL-encoded, which the API accepts as it is;
//   - ```text template_config-error, then ```text: a template_config sent as
//     it is that the API refuses with exactly that message.
//
// Images at https://images.example.com/ come from imageServer. Any other
// fence fails the test, so that no example goes unchecked.
func TestDesignDocumentExamples(t *testing.T) {
	poppler.Need(t, "pdfinfo", "pdftoppm")
	if checked := checkExamples(t, newDocEnv(t), fences(t), nil); checked < minExamples {
		t.Fatalf("only %d examples checked, fewer than %d: the documentation lost its examples", checked, minExamples)
	}
}

// TestFabricDocumentExamples checks docs/fabric.md's examples as
// TestDesignDocumentExamples checks design-document.md's; its shell
// commands are the user's to run.
func TestFabricDocumentExamples(t *testing.T) {
	poppler.Need(t, "pdfinfo", "pdftoppm")
	list := fencesOf(t, fabricDocFile)
	if checked := checkExamples(t, newDocEnv(t), list, []string{"sh"}); checked < 2 {
		t.Fatalf("only %d examples checked: docs/fabric.md lost its examples", checked)
	}
	checkSentCanvas(t, list)
}

// checkSentCanvas checks that the canvas the shell example writes and
// sends is the document's first example, which the test renders.
func checkSentCanvas(t *testing.T, list []fence) {
	t.Helper()
	var shown, sent any
	for _, f := range list {
		kind, _ := f.kind()
		switch {
		case kind == fenceDesign && shown == nil:
			if err := json.Unmarshal([]byte(f.body), &shown); err != nil {
				t.Fatalf("line %d: %v", f.line, err)
			}
		case f.info == "sh" && sent == nil:
			_, doc, _ := strings.Cut(f.body, "<<'EOF'\n")
			doc, _, _ = strings.Cut(doc, "\nEOF\n")
			if err := json.Unmarshal([]byte(doc), &sent); err != nil {
				t.Fatalf("line %d: the canvas the shell example writes: %v", f.line, err)
			}
		}
	}
	if shown == nil || sent == nil || !reflect.DeepEqual(shown, sent) {
		t.Error("the canvas the shell example sends is not the document's first example")
	}
}

// checkExamples checks each fence of list as TestDesignDocumentExamples
// says, passing over those whose info string is in unchecked; it returns
// how many it checked.
func checkExamples(t *testing.T, env *docEnv, list []fence, unchecked []string) int {
	checked := 0
	for i := 0; i < len(list); i++ {
		f := list[i]
		kind, opts := f.kind()
		name := fmt.Sprintf("line %d", f.line)
		switch kind {
		case fenceDesign:
			t.Run(name, func(t *testing.T) { env.checkRenders(t, f.body, opts) })
		case fenceDesignError, fenceEncodedError:
			want := messageAfter(t, list, i)
			i++
			t.Run(name, func(t *testing.T) { env.checkRefused(t, kind, f.body, opts, want) })
		case fenceEncoded:
			if i == 0 || !strings.HasPrefix(list[i-1].info, fenceDesign) {
				t.Fatalf("line %d: a %s block must follow the ```%s block it encodes", f.line, fenceEncoded, fenceDesign)
			}
			prev := list[i-1].body
			t.Run(name, func(t *testing.T) { checkEncoded(t, prev, f.body) })
		default:
			if slices.Contains(unchecked, f.info) {
				continue
			}
			t.Fatalf("line %d: a fence this test does not check: ```%s", f.line, f.info)
		}
		checked++
	}
	return checked
}

// messageAfter is the message of the error example at list[i]: the
// ```text block that must follow it.
func messageAfter(t *testing.T, list []fence, i int) string {
	t.Helper()
	if i+1 >= len(list) || list[i+1].info != fenceMessage {
		t.Fatalf("line %d: an error example must be followed by a ```text block with its message", list[i].line)
	}
	return strings.TrimSpace(list[i+1].body)
}

// apiMessage is the 400's message of an order create whose first item
// carries templateConfig, as the orders API makes it (Accept, and
// the member's path under the item's field); "" when the API accepts it.
func apiMessage(templateConfig string) string {
	if _, err := designdoc.Accept(templateConfig); err != nil {
		field, msg := designdoc.FieldOf(itemField, err)
		return field + ": " + msg
	}
	return ""
}

func checkEncoded(t *testing.T, doc, encoded string) {
	encoded = strings.TrimSpace(encoded)
	if msg := apiMessage(encoded); msg != "" {
		t.Fatalf("the API refuses it: %s", msg)
	}
	decoded, err := designdoc.Decode(encoded)
	if err != nil {
		t.Fatal(err)
	}
	got, err := designdoc.Fingerprint(decoded)
	if err != nil {
		t.Fatal(err)
	}
	want, err := designdoc.Fingerprint([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("it decodes to\n%s\nnot the document above it", decoded)
	}
}

// docEnv renders examples: with Platen's default image fetcher, which
// refuses this machine's addresses, or, for documents naming the test's
// image host, with one allowed to reach the server standing in for it.
type docEnv struct {
	strict, local *renderproc.Server
	imagesURL     string
}

func newDocEnv(t *testing.T) *docEnv {
	logger := slog.New(slog.DiscardHandler)
	images := imageServer(t)
	return &docEnv{
		strict:    renderproc.NewServer(renderproc.Options{Logger: logger}),
		local:     renderproc.NewServer(renderproc.Options{Logger: logger, Fetcher: fetch.New(fetch.Config{AllowPrivateNetwork: true})}),
		imagesURL: images,
	}
}

// server returns the server to render doc with, and doc as it sends it.
func (e *docEnv) server(doc string) (*renderproc.Server, string) {
	if !strings.Contains(doc, imageHost) {
		return e.strict, doc
	}
	return e.local, strings.ReplaceAll(doc, imageHost, e.imagesURL)
}

// render renders doc in format (PNGs at previewDPI unless the document
// sets its own).
func (e *docEnv) render(doc string, format renderv1.Format) ([]*renderv1.RenderedFile, error) {
	srv, doc := e.server(doc)
	req := &renderv1.RenderRequest{Document: []byte(doc), Formats: []renderv1.Format{format}}
	if format == renderv1.Format_FORMAT_PNG {
		req.Settings = &renderv1.PrintSettings{Dpi: previewDPI}
	}
	resp, err := srv.Render(context.Background(), req)
	if err != nil {
		return nil, err
	}
	return resp.Files, nil
}

// reason is a render's failure as the print shows it, with the test's image
// server named as the documentation names it.
func (e *docEnv) reason(err error) string {
	return strings.ReplaceAll(renderproc.Reason(err), e.imagesURL, imageHost)
}

func (e *docEnv) checkRenders(t *testing.T, doc string, opts []string) {
	if msg := apiMessage(url.QueryEscape(doc)); msg != "" {
		t.Fatalf("the API refuses it: %s", msg)
	}
	parsed, err := designdoc.Parse([]byte(doc))
	if err != nil {
		t.Fatalf("it does not parse: %v", err)
	}
	pdf, err := e.render(doc, renderv1.Format_FORMAT_PDF)
	if err != nil {
		t.Fatalf("the print fails: %s", e.reason(err))
	}
	if len(pdf) != 1 {
		t.Fatalf("%d PDFs, want one", len(pdf))
	}
	pngs, err := e.render(doc, renderv1.Format_FORMAT_PNG)
	if err != nil {
		t.Fatalf("the PNG fails: %s", e.reason(err))
	}
	path := filepath.Join(t.TempDir(), "example.pdf")
	if err := os.WriteFile(path, pdf[0].Data, 0o600); err != nil {
		t.Fatal(err)
	}
	out := rendered{path: path, pngs: pngs, bleed: parsed.ToMM(parsed.Bleed), separated: map[int]*pdfxtest.Plates{}}
	out.info = poppler.Run(t, "pdfinfo", "-box", path)
	for _, opt := range opts {
		out.check(t, opt)
	}
}

func (e *docEnv) checkRefused(t *testing.T, kind, doc string, opts []string, want string) {
	when := strings.Join(opts, " ")
	switch {
	case kind == fenceEncodedError:
		checkMessage(t, "the API", apiMessage(strings.TrimSpace(doc)), want)
	case when == whenAPI:
		checkMessage(t, "the API", apiMessage(url.QueryEscape(doc)), want)
	case when == whenPrint:
		e.checkPrintFails(t, doc, want)
	default:
		t.Fatalf("an error example is api or print, not %q", when)
	}
}

func (e *docEnv) checkPrintFails(t *testing.T, doc, want string) {
	if msg := apiMessage(url.QueryEscape(doc)); msg != "" {
		t.Fatalf("the API refuses it (%s): mark the example api", msg)
	}
	_, err := e.render(doc, renderv1.Format_FORMAT_PDF)
	if err == nil {
		t.Fatalf("it renders; want the print to fail with %q", want)
	}
	checkMessage(t, "the print", e.reason(err), want)
	if !renderproc.Permanent(err) {
		t.Errorf("a retry could get past it (%v): the print would be tried again, not fail at once", err)
	}
}

func checkMessage(t *testing.T, who, got, want string) {
	t.Helper()
	switch {
	case got == "":
		t.Errorf("%s accepts it; the documentation says\n%s", who, want)
	case got != want:
		t.Errorf("%s says\n%s\nthe documentation says\n%s", who, got, want)
	}
}

// rendered is an example's print (a PDF file) and PNGs, a page each.
type rendered struct {
	path  string
	info  string // pdfinfo -box
	pngs  []*renderv1.RenderedFile
	bleed float64 // mm
	// separated are the pages separated into plates so far (ink=).
	separated map[int]*pdfxtest.Plates
}

func (r rendered) check(t *testing.T, opt string) {
	t.Helper()
	key, value, _ := strings.Cut(opt, "=")
	switch key {
	case "pages":
		if got := pdfField(t, r.info, "Pages"); got[0] != parse(t, value) || len(r.pngs) != int(got[0]) {
			t.Errorf("%v pages and %d PNGs, want %s", got[0], len(r.pngs), value)
		}
	case "trim":
		w, h, _ := strings.Cut(value, "x")
		trim := pdfField(t, r.info, "TrimBox")
		checkMM(t, "trim width", trim[2]-trim[0], parse(t, w))
		checkMM(t, "trim height", trim[3]-trim[1], parse(t, h))
	case "bleed":
		trim, media := pdfField(t, r.info, "TrimBox"), pdfField(t, r.info, "MediaBox")
		checkMM(t, "bleed", trim[0]-media[0], parse(t, value))
	case "at":
		r.checkColour(t, value)
	case "ink":
		r.checkInks(t, value)
	default:
		t.Fatalf("unknown option %q", opt)
	}
}

// checkColour checks an at= option, "X,Y[,P]:#rrggbb", in the PDF and the
// PNG of page P.
func (r rendered) checkColour(t *testing.T, value string) {
	t.Helper()
	where, hex, _ := strings.Cut(value, ":")
	want, ok := designdoc.ParseColor(hex)
	if !ok {
		t.Fatalf("bad colour in at=%s", value)
	}
	x, y, page := r.place(t, "at="+value, where)
	// The colour the PDF paints, as the documentation promises it (sRGB);
	// pdftoppm would show the output intent's view of it, the press's.
	checkRGB(t, "the PDF at "+where, pdfxtest.Painted(t, r.path, page, pdfPixelDPI, x, y), want)
	checkRGB(t, "the PNG at "+where, pngPixel(t, r.pngs[page-1], x, y), want)
}

// place reads "X,Y[,P]" of an option: mm from the trim's top-left corner
// (returned from the page's, bleed included) on page P, 1 unless given.
func (r rendered) place(t *testing.T, option, where string) (x, y float64, page int) {
	t.Helper()
	coords := strings.Split(where, ",")
	if len(coords) == 2 {
		coords = append(coords, "1")
	}
	if len(coords) != 3 {
		t.Fatalf("bad place in %s: X,Y or X,Y,page", option)
	}
	x, y, page = parse(t, coords[0])+r.bleed, parse(t, coords[1])+r.bleed, int(parse(t, coords[2]))
	if page < 1 || page > len(r.pngs) {
		t.Fatalf("%s: no page %d", option, page)
	}
	return x, y, page
}

// checkInks checks an ink= option, "X,Y[,P]:Name=percent[+Name=percent]…",
// on the plates Ghostscript separates page P into: each ink named is there
// at that percentage, every other plate carries none.
func (r rendered) checkInks(t *testing.T, value string) {
	t.Helper()
	where, list, _ := strings.Cut(value, ":")
	place, near, _ := strings.Cut(where, "~")
	x, y, page := r.place(t, "ink="+value, place)
	want, others := map[string]float64{}, true
	for _, ink := range strings.Split(list, "+") {
		if ink == "*" {
			others = false
			continue
		}
		name, percent, ok := strings.Cut(ink, "=")
		if !ok {
			t.Fatalf("bad ink in ink=%s: Name=percent", value)
		}
		name, err := url.PathUnescape(name) // %20 for a space
		if err != nil {
			t.Fatalf("bad ink name in ink=%s: %v", value, err)
		}
		want[name] = parse(t, percent) / 100
	}
	plates := r.plates(t, page)
	if near != "" {
		for name := range want {
			if !plates.InkNear(name, x, y, parse(t, near)) {
				t.Errorf("the %s plate has no ink within %s mm of %s", name, near, place)
			}
		}
		return
	}
	for name, amount := range want {
		if got := plates.Ink(name, x, y); !pdfxtest.Near(got, amount) {
			t.Errorf("the %s plate at %s: %.0f %%, want %.0f %%", name, where, 100*got, 100*amount)
		}
	}
	for _, name := range plates.Names() {
		if _, named := want[name]; others && !named && plates.Ink(name, x, y) > 0.02 {
			t.Errorf("the %s plate at %s: %.0f %%, want none", name, where, 100*plates.Ink(name, x, y))
		}
	}
}

// plates separates page of the example's PDF, once per page.
func (r rendered) plates(t *testing.T, page int) *pdfxtest.Plates {
	if p, ok := r.separated[page]; ok {
		return p
	}
	p := pdfxtest.Separate(t, r.path, page, pdfPixelDPI)
	r.separated[page] = p
	return p
}

// pngPixel is the colour x, y mm from a PNG page's top-left corner, over
// white paper (a PNG is transparent where nothing is painted).
func pngPixel(t *testing.T, f *renderv1.RenderedFile, x, y float64) color.RGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(f.Data))
	if err != nil {
		t.Fatal(err)
	}
	dpmm := float64(f.Dpi) / 25.4
	r, g, b, a := img.At(int(x*dpmm), int(y*dpmm)).RGBA() // premultiplied
	over := func(c uint32) uint8 { return uint8((c + 0xffff - a) >> 8) }
	return color.RGBA{R: over(r), G: over(g), B: over(b), A: 255}
}

func checkRGB(t *testing.T, what string, got color.RGBA, want designdoc.Color) {
	t.Helper()
	near := func(a, b uint8) bool { return math.Abs(float64(a)-float64(b)) <= colourTolerance }
	if !near(got.R, want.R) || !near(got.G, want.G) || !near(got.B, want.B) {
		t.Errorf("%s: #%02x%02x%02x, want #%02x%02x%02x", what, got.R, got.G, got.B, want.R, want.G, want.B)
	}
}

// pdfField reads the numbers of a pdfinfo field of the first page.
func pdfField(t *testing.T, info, name string) []float64 {
	t.Helper()
	for line := range strings.SplitSeq(info, "\n") {
		key, rest, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(key) != name {
			continue
		}
		var nums []float64
		for _, f := range strings.Fields(rest) {
			if v, err := strconv.ParseFloat(f, 64); err == nil {
				nums = append(nums, v)
			}
		}
		if len(nums) > 0 {
			return nums
		}
	}
	t.Fatalf("pdfinfo has no %s:\n%s", name, info)
	return nil
}

// checkMM compares a length in points with one in millimetres.
func checkMM(t *testing.T, what string, points, mm float64) {
	t.Helper()
	if got := points * 25.4 / 72; math.Abs(got-mm) > 0.05 {
		t.Errorf("%s %.2f mm, want %v", what, got, mm)
	}
}

func parse(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("bad number %q in an example's options", s)
	}
	return v
}

// encodedDesign is a URL-encoded design document in the guides' examples;
// jsonDesign, one written as JSON in a JSON string.
var (
	encodedDesign = regexp.MustCompile(`%7B[0-9A-Za-z%._~-]*%7D`)
	jsonDesign    = regexp.MustCompile(`"template_config": ("\{(?:[^"\\]|\\.)*\}")`)
)

// TestGuideDesigns: the README's and the tutorial's requests carry design
// documents the API accepts, and those with layers parse for the print. Not
// all render: one is only a dpi, registered as a design version, and
// another names an image on the local machine, whose print the tutorial
// shows failing.
func TestGuideDesigns(t *testing.T) {
	var configs []string
	for _, name := range []string{"README.md", filepath.Join("docs", "tutorial.md")} {
		raw, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		found := encodedDesign.FindAllString(string(raw), -1)
		for _, m := range jsonDesign.FindAllStringSubmatch(string(raw), -1) {
			var config string
			if err := json.Unmarshal([]byte(m[1]), &config); err != nil {
				t.Fatalf("%s: %s is not a JSON string: %v", name, m[1], err)
			}
			found = append(found, config)
		}
		if len(found) == 0 {
			t.Fatalf("%s has no design document", name)
		}
		configs = append(configs, found...)
	}
	for _, config := range configs {
		if msg := apiMessage(config); msg != "" {
			t.Errorf("the API refuses the guide's %.60s…: %s", config, msg)
			continue
		}
		doc, err := designdoc.Decode(config)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := designdoc.Parse(doc); err != nil && bytes.Contains(doc, []byte(`"layers"`)) {
			t.Errorf("the guide's %s does not parse: %v", doc, err)
		}
	}
}
