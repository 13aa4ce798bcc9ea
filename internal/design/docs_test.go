package design_test

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/design"
	"github.com/platen-print/platen/internal/poppler"
	"github.com/platen-print/platen/internal/rendersvc"
)

// docFile is the design document's user documentation.
var docFile = filepath.Join("..", "..", "docs", "design-document.md")

// fence is one fenced block of the documentation: its info string and text.
type fence struct {
	info, body string
	line       int
}

var fencePattern = regexp.MustCompile("(?ms)^```([^\n]*)\n(.*?)^```\\s*$")

func fences(t *testing.T) []fence {
	t.Helper()
	raw, err := os.ReadFile(docFile)
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

// TestDesignDocumentExamples checks every example of docs/design-document.md:
//
//   - ```json design [pages=N] [trim=WxH] [bleed=B]: a document the API
//     accepts and that renders to a PDF of N pages whose TrimBox is W × H mm
//     and whose page is the trim plus B mm each side;
//   - ```json design-error api, then ```text: a document the API refuses
//     with exactly that message (the member's path, without the field that
//     carried the document);
//   - ```json design-error print, then ```text: a document the API accepts
//     and whose print fails with exactly that reason.
//
// Any other fence fails the test, so an example cannot go unchecked.
func TestDesignDocumentExamples(t *testing.T) {
	poppler.Need(t, "pdfinfo")
	srv := rendersvc.NewServer(rendersvc.Options{Logger: slog.New(slog.DiscardHandler)})
	list := fences(t)
	checked := 0
	for i := 0; i < len(list); i++ {
		f := list[i]
		kind, opts, _ := strings.Cut(strings.TrimPrefix(f.info, "json "), " ")
		name := fmt.Sprintf("line %d", f.line)
		switch {
		case f.info == "json design" || strings.HasPrefix(f.info, "json design "):
			t.Run(name, func(t *testing.T) { checkRenders(t, srv, f.body, opts) })
		case kind == "design-error" && (opts == "api" || opts == "print"):
			if i+1 >= len(list) || list[i+1].info != "text" {
				t.Fatalf("line %d: a design-error example must be followed by a ```text block with the message", f.line)
			}
			want := strings.TrimSpace(list[i+1].body)
			i++
			t.Run(name, func(t *testing.T) { checkRefused(t, srv, f.body, opts, want) })
		default:
			t.Fatalf("line %d: a fence this test does not check: ```%s", f.line, f.info)
		}
		checked++
	}
	if checked < 40 {
		t.Fatalf("only %d examples checked: the documentation lost its examples", checked)
	}
}

func checkRenders(t *testing.T, srv *rendersvc.Server, doc, opts string) {
	if _, err := design.Accept(url.QueryEscape(doc)); err != nil {
		t.Fatalf("the API refuses it: %v", err)
	}
	pdf := render(t, srv, doc)
	if err := pdf.err; err != nil {
		t.Fatalf("the print fails: %s", rendersvc.Reason(err))
	}
	path := filepath.Join(t.TempDir(), "example.pdf")
	if err := os.WriteFile(path, pdf.data, 0o600); err != nil {
		t.Fatal(err)
	}
	info := poppler.Run(t, "pdfinfo", "-box", path)
	for _, opt := range strings.Fields(opts) {
		key, value, _ := strings.Cut(opt, "=")
		switch key {
		case "pages":
			if got := pdfField(t, info, "Pages"); got[0] != parse(t, value) {
				t.Errorf("%v pages, want %s", got[0], value)
			}
		case "trim":
			w, h, _ := strings.Cut(value, "x")
			trim := pdfField(t, info, "TrimBox")
			checkMM(t, "trim width", trim[2]-trim[0], parse(t, w))
			checkMM(t, "trim height", trim[3]-trim[1], parse(t, h))
		case "bleed":
			trim, media := pdfField(t, info, "TrimBox"), pdfField(t, info, "MediaBox")
			checkMM(t, "bleed", trim[0]-media[0], parse(t, value))
		default:
			t.Fatalf("unknown option %q", opt)
		}
	}
}

func checkRefused(t *testing.T, srv *rendersvc.Server, doc, when, want string) {
	_, err := design.Accept(url.QueryEscape(doc))
	if when == "api" {
		if err == nil {
			t.Fatalf("the API accepts it; want %q", want)
		}
		if err.Error() != want {
			t.Errorf("the API says\n%s\nthe documentation\n%s", err, want)
		}
		return
	}
	if err != nil {
		t.Fatalf("the API refuses it (%v): mark the example api", err)
	}
	got := render(t, srv, doc).err
	if got == nil {
		t.Fatalf("it renders; want the print to fail with %q", want)
	}
	if reason := rendersvc.Reason(got); reason != want {
		t.Errorf("the print fails with\n%s\nthe documentation says\n%s", reason, want)
	}
}

type rendered struct {
	data []byte
	err  error
}

func render(t *testing.T, srv *rendersvc.Server, doc string) rendered {
	t.Helper()
	resp, err := srv.Render(context.Background(), &renderv1.RenderRequest{
		Document: []byte(doc), Formats: []renderv1.Format{renderv1.Format_FORMAT_PDF},
	})
	if err != nil {
		return rendered{err: err}
	}
	if len(resp.Files) != 1 {
		t.Fatalf("%d files, want one PDF", len(resp.Files))
	}
	return rendered{data: resp.Files[0].Data}
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
			v, err := strconv.ParseFloat(f, 64)
			if err == nil {
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
