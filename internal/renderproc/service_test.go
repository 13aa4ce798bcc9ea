package renderproc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/image/font/gofont/goregular"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/fetch"
	"github.com/platen-print/platen/internal/poppler"
)

// start serves a Server with opts on a free loopback port until the test
// ends, and returns its address.
func startService(t *testing.T, opts Options, serverOpts ...grpc.ServerOption) string {
	t.Helper()
	if opts.Fetcher == nil {
		opts.Fetcher = fetch.New(fetch.Config{Timeout: 2 * time.Second})
	}
	return startImpl(t, NewServer(opts), serverOpts...)
}

func startImpl(t *testing.T, srv renderv1.RenderServiceServer, serverOpts ...grpc.ServerOption) string {
	t.Helper()
	lis, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveListener(ctx, lis, srv, serverOpts...) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return lis.Addr().String()
}

func dial(t *testing.T, addrs ...string) renderv1.RenderServiceClient {
	t.Helper()
	client, closer, err := Dial(addrs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = closer.Close() })
	return client
}

// client is a network client of a fresh server with opts.
func client(t *testing.T, opts Options) renderv1.RenderServiceClient {
	t.Helper()
	return dial(t, startService(t, opts))
}

func call(t *testing.T, c renderv1.RenderServiceClient, req *renderv1.RenderRequest) *renderv1.RenderResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := c.Render(ctx, req)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	return resp
}

// pngDataURI is a 40×30 PNG as a data: URI.
func pngDataURI(t *testing.T) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	for y := range 30 {
		for x := range 40 {
			img.Set(x, y, color.RGBA{200, 40, 40, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}

// twoSurfaces is an A6 card with 3 mm bleed: a front with a photo, a
// rectangle and text, and a back with text. It declares no dpi.
func twoSurfaces(t *testing.T) []byte {
	t.Helper()
	return []byte(`{
	  "version": 1, "unit": "mm", "width": 105, "height": 148, "bleed": 3, "background": "#ffffff",
	  "surfaces": [
	    {"name": "front", "layers": [
	      {"type": "image", "src": "` + pngDataURI(t) + `", "x": 0, "y": 0, "width": 105, "height": 70, "fit": "cover"},
	      {"type": "rect", "x": 5, "y": 80, "width": 95, "height": 30, "fill": "#f2e8d5", "stroke": "#000000", "stroke_width": 0.3, "radius": 2},
	      {"type": "text", "text": "Happy birthday, Ada", "font": "Go-Bold", "size": 14, "color": "#1a1a1a", "x": 10, "y": 85, "width": 85, "align": "center"}
	    ]},
	    {"name": "back", "layers": [
	      {"type": "text", "text": "Made with Platen", "size": 9, "x": 10, "y": 130, "width": 85}
	    ]}
	  ]
	}`)
}

// withImage is a one-surface document showing the image at src.
func withImage(src string) []byte {
	return []byte(`{"width": 100, "height": 100, "layers": [
	  {"type": "image", "src": "` + src + `", "width": 100, "height": 100}
	]}`)
}

func pdfRequest(doc []byte) *renderv1.RenderRequest {
	return &renderv1.RenderRequest{Document: doc, Formats: []renderv1.Format{renderv1.Format_FORMAT_PDF}}
}

// pdfBoxes runs `pdfinfo -box` on data and returns its fields: "Pages", and
// "Page 1 MediaBox" and so on as numbers.
func pdfBoxes(t *testing.T, data []byte) map[string][]float64 {
	t.Helper()
	poppler.Need(t, "pdfinfo")
	path := filepath.Join(t.TempDir(), "out.pdf")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdfinfo", "-box", "-f", "1", "-l", "2", path).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfinfo: %v\n%s", err, out)
	}
	fields := map[string][]float64{}
	for _, line := range strings.Split(string(out), "\n") {
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		var nums []float64
		for _, f := range strings.Fields(value) {
			n, err := strconv.ParseFloat(f, 64)
			if err != nil {
				nums = nil
				break
			}
			nums = append(nums, n)
		}
		if nums != nil {
			fields[strings.Join(strings.Fields(key), " ")] = nums
		}
	}
	return fields
}

func near(got, want []float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range want {
		if d := got[i] - want[i]; d > 0.02 || d < -0.02 {
			return false
		}
	}
	return true
}

// A6 with 3 mm bleed is 111 × 154 mm: in points, and the trim box 3 mm in.
var (
	a6Media = []float64{0, 0, 314.65, 436.54}
	a6Trim  = []float64{8.50, 8.50, 306.14, 428.03}
)

func checkPages(t *testing.T, data []byte, pages int) {
	t.Helper()
	boxes := pdfBoxes(t, data)
	if got := boxes["Pages"]; !near(got, []float64{float64(pages)}) {
		t.Errorf("Pages: %v, want %d", got, pages)
	}
	for page := 1; page <= pages; page++ {
		for name, want := range map[string][]float64{"MediaBox": a6Media, "TrimBox": a6Trim, "BleedBox": a6Media} {
			key := fmt.Sprintf("Page %d %s", page, name)
			if got := boxes[key]; !near(got, want) {
				t.Errorf("%s: %v, want %v", key, got, want)
			}
		}
	}
}

func TestRenderPDF(t *testing.T) {
	c := client(t, Options{})
	doc := twoSurfaces(t)

	t.Run("one PDF with both surfaces", func(t *testing.T) {
		resp := call(t, c, pdfRequest(doc))
		if len(resp.Files) != 1 {
			t.Fatalf("%d files, want 1", len(resp.Files))
		}
		f := resp.Files[0]
		// No dpi anywhere: 300. 111 mm at 300 DPI is 1311 px, 154 mm 1819 px.
		want := &renderv1.RenderedFile{
			SurfaceIndex: 0, SurfaceName: "front", Format: renderv1.Format_FORMAT_PDF, ContentType: "application/pdf",
			WidthPx: 1311, HeightPx: 1819, Dpi: 300, PageCount: 2,
		}
		checkFile(t, f, want)
		checkPages(t, f.Data, 2)
	})

	t.Run("one PDF per surface", func(t *testing.T) {
		req := pdfRequest(doc)
		req.PdfPerSurface = true
		resp := call(t, c, req)
		if len(resp.Files) != 2 {
			t.Fatalf("%d files, want 2", len(resp.Files))
		}
		for i, name := range []string{"front", "back"} {
			f := resp.Files[i]
			checkFile(t, f, &renderv1.RenderedFile{
				SurfaceIndex: int32(i), SurfaceName: name, Format: renderv1.Format_FORMAT_PDF, ContentType: "application/pdf",
				WidthPx: 1311, HeightPx: 1819, Dpi: 300, PageCount: 1,
			})
			checkPages(t, f.Data, 1)
		}
	})

	t.Run("selected surfaces, in the order asked", func(t *testing.T) {
		req := pdfRequest(doc)
		req.SurfaceIndexes = []int32{1}
		resp := call(t, c, req)
		if len(resp.Files) != 1 {
			t.Fatalf("%d files, want 1", len(resp.Files))
		}
		checkFile(t, resp.Files[0], &renderv1.RenderedFile{
			SurfaceIndex: 1, SurfaceName: "back", Format: renderv1.Format_FORMAT_PDF, ContentType: "application/pdf",
			WidthPx: 1311, HeightPx: 1819, Dpi: 300, PageCount: 1,
		})
		checkPages(t, resp.Files[0].Data, 1)
	})
}

// checkFile compares every field but the data, which must be there.
func checkFile(t *testing.T, got, want *renderv1.RenderedFile) {
	t.Helper()
	if len(got.Data) == 0 {
		t.Errorf("surface %d %s: no data", got.SurfaceIndex, got.Format)
	}
	meta := proto.Clone(got).(*renderv1.RenderedFile)
	meta.Data = nil
	if !proto.Equal(meta, want) {
		t.Errorf("file\n got %v\nwant %v", meta, want)
	}
}

func decodePNG(t *testing.T, data []byte) image.Config {
	t.Helper()
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	return cfg
}

func TestRenderPNG(t *testing.T) {
	c := client(t, Options{})
	req := &renderv1.RenderRequest{
		Document: twoSurfaces(t),
		Settings: &renderv1.PrintSettings{Dpi: 150, VariantId: 7},
		Formats:  []renderv1.Format{renderv1.Format_FORMAT_PNG, renderv1.Format_FORMAT_PDF, renderv1.Format_FORMAT_PNG},
	}
	resp := call(t, c, req)
	// PNG asked twice is rendered once: one per surface, then the PDF.
	if len(resp.Files) != 3 {
		t.Fatalf("%d files, want 3", len(resp.Files))
	}
	for i, name := range []string{"front", "back"} {
		f := resp.Files[i]
		// 111 × 154 mm at 150 DPI.
		checkFile(t, f, &renderv1.RenderedFile{
			SurfaceIndex: int32(i), SurfaceName: name, Format: renderv1.Format_FORMAT_PNG, ContentType: "image/png",
			WidthPx: 656, HeightPx: 909, Dpi: 150, PageCount: 1,
		})
		if cfg := decodePNG(t, f.Data); cfg.Width != int(f.WidthPx) || cfg.Height != int(f.HeightPx) {
			t.Errorf("%s: the PNG is %d×%d, the file says %d×%d", name, cfg.Width, cfg.Height, f.WidthPx, f.HeightPx)
		}
	}
	if f := resp.Files[2]; f.Format != renderv1.Format_FORMAT_PDF || f.PageCount != 2 || f.Dpi != 150 {
		t.Errorf("third file: %s, %d pages at %d DPI; want the 2-page PDF at 150", f.Format, f.PageCount, f.Dpi)
	}
}

func TestDPI(t *testing.T) {
	c := client(t, Options{})
	const doc = `{"width": 50.8, "height": 25.4, %s "layers": [{"type": "rect", "width": 10, "height": 10, "fill": "#000"}]}`
	for _, tc := range []struct {
		name     string
		dpi      string // the document's member, or ""
		settings uint32
		preview  uint32
		want     uint32
	}{
		{"the document's own dpi wins over the settings", `"dpi": 100,`, 600, 0, 100},
		{"the settings without a document dpi", "", 200, 0, 200},
		{"300 when neither", "", 0, 0, 300},
		{"a preview's over the document's", `"dpi": 600,`, 600, 36, 36},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := call(t, c, &renderv1.RenderRequest{
				Document:   fmt.Appendf(nil, doc, tc.dpi),
				Settings:   &renderv1.PrintSettings{Dpi: tc.settings},
				PreviewDpi: tc.preview,
				Formats:    []renderv1.Format{renderv1.Format_FORMAT_PNG},
			})
			f := resp.Files[0]
			cfg := decodePNG(t, f.Data)
			// 2 × 1 inches.
			if f.Dpi != tc.want || f.WidthPx != 2*tc.want || f.HeightPx != tc.want || cfg.Width != int(2*tc.want) || cfg.Height != int(tc.want) {
				t.Errorf("dpi %d, %d×%d px, PNG %d×%d; want %d DPI, %d×%d", f.Dpi, f.WidthPx, f.HeightPx, cfg.Width, cfg.Height, tc.want, 2*tc.want, tc.want)
			}
		})
	}
}

// renderErr renders req and returns its status; the call must fail.
func renderErr(t *testing.T, c renderv1.RenderServiceClient, req *renderv1.RenderRequest) *status.Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.Render(ctx, req)
	if err == nil {
		t.Fatal("Render succeeded; want an error")
	}
	st, ok := status.FromError(err)
	if !ok {
		t.Fatalf("not a status: %v", err)
	}
	return st
}

func expect(t *testing.T, c renderv1.RenderServiceClient, req *renderv1.RenderRequest, code codes.Code, msg string) *status.Status {
	t.Helper()
	st := renderErr(t, c, req)
	if st.Code() != code || !strings.Contains(st.Message(), msg) {
		t.Errorf("%s %q; want %s containing %q", st.Code(), st.Message(), code, msg)
	}
	if got, want := Permanent(st.Err()), code == codes.InvalidArgument; got != want {
		t.Errorf("Permanent: %v, want %v", got, want)
	}
	if Reason(st.Err()) != st.Message() {
		t.Errorf("Reason %q, want the message %q", Reason(st.Err()), st.Message())
	}
	return st
}

func TestInvalidDocuments(t *testing.T) {
	c := client(t, Options{})
	t.Run("unknown layer type", func(t *testing.T) {
		doc := `{"width": 100, "height": 100, "surfaces": [{"layers": [
		  {"type": "rect", "width": 1, "height": 1, "fill": "#000"},
		  {"type": "text", "text": "hi", "size": 10},
		  {"type": "star", "width": 1, "height": 1}
		]}]}`
		st := expect(t, c, pdfRequest([]byte(doc)), codes.InvalidArgument, "")
		if want := `surfaces[0].layers[2].type: must be a layer type (rect, ellipse, line, path, text, image, group, cut), got "star"`; st.Message() != want {
			t.Errorf("message %q, want %q", st.Message(), want)
		}
	})
	t.Run("unknown font", func(t *testing.T) {
		doc := `{"width": 100, "height": 100, "layers": [{"type": "text", "text": "hi", "font": "Comic-Sans", "size": 10}]}`
		st := expect(t, c, pdfRequest([]byte(doc)), codes.InvalidArgument, `layers[0]: unknown font "Comic-Sans" (known: `)
		if !strings.HasPrefix(st.Message(), "layers[0]: ") {
			t.Errorf("message %q does not start with the layer", st.Message())
		}
	})
	t.Run("not JSON", func(t *testing.T) {
		expect(t, c, pdfRequest([]byte("{")), codes.InvalidArgument, "must be a JSON object")
	})
	t.Run("an image that is not one", func(t *testing.T) {
		doc := withImage("data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("hello")))
		expect(t, c, pdfRequest(doc), codes.InvalidArgument, "layers[0]: image data:image/png;base64,aGVsbG8=: is not a PNG, JPEG, WebP or SVG image")
	})
}

func TestInvalidRequests(t *testing.T) {
	c := client(t, Options{})
	doc := twoSurfaces(t)
	for _, tc := range []struct {
		name string
		req  *renderv1.RenderRequest
		msg  string
	}{
		{"no format", &renderv1.RenderRequest{Document: doc}, "formats: at least one is required"},
		{"unspecified format", &renderv1.RenderRequest{Document: doc, Formats: []renderv1.Format{renderv1.Format_FORMAT_PDF, renderv1.Format_FORMAT_UNSPECIFIED}},
			"formats[1]: FORMAT_UNSPECIFIED is not a format"},
		{"unknown format", &renderv1.RenderRequest{Document: doc, Formats: []renderv1.Format{9}}, "formats[0]: 9 is not a format"},
		{"surface out of range", &renderv1.RenderRequest{Document: doc, Formats: []renderv1.Format{renderv1.Format_FORMAT_PDF}, SurfaceIndexes: []int32{0, 2}},
			"surface_indexes[1]: the document has no surface 2 (it has 2, from 0)"},
		{"negative surface", &renderv1.RenderRequest{Document: doc, Formats: []renderv1.Format{renderv1.Format_FORMAT_PNG}, SurfaceIndexes: []int32{-1}},
			"surface_indexes[0]: the document has no surface -1"},
		{"dpi over the limit", &renderv1.RenderRequest{Document: doc, Formats: []renderv1.Format{renderv1.Format_FORMAT_PNG}, Settings: &renderv1.PrintSettings{Dpi: 20_000}},
			"settings.dpi: must be at most 10000, got 20000"},
		{"page over the pixel limit", &renderv1.RenderRequest{Document: []byte(`{"width":1000,"height":1000,"layers":[]}`),
			Formats: []renderv1.Format{renderv1.Format_FORMAT_PNG}, Settings: &renderv1.PrintSettings{Dpi: 1200}},
			"megapixel limit for PNG"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expect(t, c, tc.req, codes.InvalidArgument, tc.msg)
		})
	}
}

// imageServer serves a PNG at /ok.png and 503 everywhere else, on loopback.
func imageServer(t *testing.T) *httptest.Server {
	t.Helper()
	uri := pngDataURI(t)
	data, err := base64.StdEncoding.DecodeString(uri[strings.Index(uri, ",")+1:])
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ok.png" {
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write(data)
			return
		}
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestImages(t *testing.T) {
	images := imageServer(t)
	ok := images.URL + "/ok.png"

	t.Run("a loopback address is refused", func(t *testing.T) {
		c := client(t, Options{})
		expect(t, c, pdfRequest(withImage(ok)), codes.InvalidArgument,
			"layers[0]: image "+ok+": refused: 127.0.0.1 is a loopback address (start with --allow-private-network to allow it)")
	})
	private := Options{Fetcher: fetch.New(fetch.Config{AllowPrivateNetwork: true, Timeout: 2 * time.Second})}
	c := client(t, private)
	t.Run("and allowed with AllowPrivateNetwork", func(t *testing.T) {
		resp := call(t, c, pdfRequest(withImage(ok)))
		if len(resp.Files) != 1 || resp.Files[0].PageCount != 1 {
			t.Errorf("files: %v", resp.Files)
		}
	})
	t.Run("503 is temporary", func(t *testing.T) {
		down := images.URL + "/down.png"
		expect(t, c, pdfRequest(withImage(down)), codes.Unavailable, "layers[0]: image "+down+": answered 503 Service Unavailable")
	})
	t.Run("404 is not", func(t *testing.T) {
		missing := httptest.NewServer(http.NotFoundHandler())
		defer missing.Close()
		expect(t, c, pdfRequest(withImage(missing.URL+"/x.png")), codes.InvalidArgument, "answered 404 Not Found")
	})
	t.Run("a port out of range is the document's fault, not retried", func(t *testing.T) {
		for _, src := range []string{"http://93.184.215.14:65536/x.png", "https://example.com:0/x.png"} {
			port := src[strings.LastIndex(src, ":")+1 : strings.LastIndex(src, "/")]
			expect(t, c, pdfRequest(withImage(src)), codes.InvalidArgument,
				"layers[0]: image "+src+": is not a valid URL: port "+port+" is not between 1 and 65535")
		}
	})
	t.Run("an IPv6 address carrying a loopback one is refused", func(t *testing.T) {
		src := "http://[::ffff:0:7f00:1]:" + images.URL[strings.LastIndex(images.URL, ":")+1:] + "/ok.png"
		expect(t, client(t, Options{}), pdfRequest(withImage(src)), codes.InvalidArgument,
			"layers[0]: image "+src+": refused: ::ffff:0:7f00:1 is an IPv4-translated address for 127.0.0.1, a loopback address")
	})
	t.Run("a timeout is temporary", func(t *testing.T) {
		release := make(chan struct{})
		slow := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
		defer slow.Close()
		defer close(release)
		short := Options{Fetcher: fetch.New(fetch.Config{AllowPrivateNetwork: true, Timeout: 200 * time.Millisecond})}
		expect(t, client(t, short), pdfRequest(withImage(slow.URL+"/slow.png")), codes.Unavailable, "timed out after 200ms")
	})
}

func TestCallerGivesUp(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	defer slow.Close()
	defer close(release)
	srv := NewServer(Options{Fetcher: fetch.New(fetch.Config{AllowPrivateNetwork: true})})
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		code codes.Code
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 200*time.Millisecond)
		}, codes.DeadlineExceeded},
		{"cancelled", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(200*time.Millisecond, cancel)
			return ctx, cancel
		}, codes.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := tc.ctx()
			defer cancel()
			_, err := Local(srv).Render(ctx, pdfRequest(withImage(slow.URL+"/slow.png")))
			if status.Code(err) != tc.code || Permanent(err) {
				t.Errorf("%v; want %s, not permanent", err, tc.code)
			}
		})
	}
}

func TestDialRoundRobin(t *testing.T) {
	var counts [2]atomic.Int32
	var addrs []string
	for i := range counts {
		count := func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			counts[i].Add(1)
			return handler(ctx, req)
		}
		addrs = append(addrs, startService(t, Options{}, grpc.UnaryInterceptor(count)))
	}
	c := dial(t, addrs...)
	req := pdfRequest([]byte(`{"width": 10, "height": 10, "layers": [{"type": "rect", "width": 1, "height": 1, "fill": "#000"}]}`))
	// The client connects lazily: until both connections are up, the
	// first one takes every call.
	for tries := 0; counts[0].Load() == 0 || counts[1].Load() == 0; tries++ {
		if tries == 50 {
			t.Fatalf("calls reached %d and %d: not spread over both", counts[0].Load(), counts[1].Load())
		}
		call(t, c, req)
	}
	before := [2]int32{counts[0].Load(), counts[1].Load()}
	for range 10 {
		call(t, c, req)
	}
	for i := range counts {
		if got := counts[i].Load() - before[i]; got != 5 {
			t.Errorf("server %d took %d of 10 calls, want 5", i, got)
		}
	}
}

func TestLocalMatchesNetwork(t *testing.T) {
	opts := Options{Fetcher: fetch.New(fetch.Config{})}
	srv := NewServer(opts)
	network := dial(t, startImpl(t, srv))
	req := &renderv1.RenderRequest{
		Document:      twoSurfaces(t),
		Settings:      &renderv1.PrintSettings{Dpi: 72},
		Formats:       []renderv1.Format{renderv1.Format_FORMAT_PDF, renderv1.Format_FORMAT_PNG},
		PdfPerSurface: true,
	}
	local, remote := call(t, Local(srv), req), call(t, network, req)
	if len(local.Files) != 4 || len(remote.Files) != 4 {
		t.Fatalf("%d and %d files, want 2 PDFs and 2 PNGs", len(local.Files), len(remote.Files))
	}
	for i := range local.Files {
		l, r := local.Files[i], remote.Files[i]
		if l.Format == renderv1.Format_FORMAT_PDF {
			// A PDF records the second it was made, in its info and in
			// its fonts' head tables: compare its pages, not its bytes.
			if lb, rb := pdfBoxes(t, l.Data), pdfBoxes(t, r.Data); !reflect.DeepEqual(lb, rb) {
				t.Errorf("file %d: pages %v and %v", i, lb, rb)
			}
			l, r = proto.Clone(l).(*renderv1.RenderedFile), proto.Clone(r).(*renderv1.RenderedFile)
			l.Data, r.Data = nil, nil
		}
		if !proto.Equal(l, r) {
			t.Errorf("file %d differs: local %v, network %v", i, l.Format, r.Format)
		}
	}
	// Errors too: the same code and message.
	bad := pdfRequest([]byte(`{"width": 1, "height": 1, "layers": [{"type": "star"}]}`))
	_, localErr := Local(srv).Render(context.Background(), bad)
	_, remoteErr := network.Render(context.Background(), bad)
	if status.Code(localErr) != status.Code(remoteErr) || Reason(localErr) != Reason(remoteErr) || !Permanent(localErr) {
		t.Errorf("local %v, network %v", localErr, remoteErr)
	}
}

func TestHealthAndSizes(t *testing.T) {
	addr := startService(t, Options{})
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, service := range []string{"", "platen.render.v1.RenderService"} {
		resp, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{Service: service})
		if err != nil || resp.Status != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health of %q: %v %v", service, resp, err)
		}
	}
	// A request over gRPC's default 4 MiB passes both ways: a JPEG of
	// noise in a data: URI, and the same bytes out in the PDF.
	noise := image.NewGray(image.Rect(0, 0, 1700, 1700))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noise.Pix {
		noise.Pix[i] = byte(rng.Uint32())
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, noise, &jpeg.Options{Quality: 100}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() < 4<<20 {
		t.Fatalf("the image is only %d bytes: not over the default limit", buf.Len())
	}
	src := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
	resp := call(t, dial(t, addr), pdfRequest(withImage(src)))
	if n := len(resp.Files[0].Data); n < 4<<20 {
		t.Errorf("the response is only %d bytes", n)
	}
}

func TestLoadFonts(t *testing.T) {
	t.Run("none", func(t *testing.T) {
		fonts, err := LoadFonts("", nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fonts.Font("Go-Bold"); err != nil {
			t.Error(err)
		}
	})
	write := func(t *testing.T, dir, name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("added fonts render", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, "House-Sans.TTF", goregular.TTF)
		write(t, dir, "README.txt", []byte("not a font"))
		if err := os.Mkdir(filepath.Join(dir, "Sub.ttf"), 0o700); err != nil {
			t.Fatal(err)
		}
		fonts, err := LoadFonts(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := client(t, Options{Fonts: fonts})
		doc := `{"width": 100, "height": 100, "layers": [{"type": "text", "text": "hi", "font": "House-Sans", "size": 10}]}`
		call(t, c, pdfRequest([]byte(doc)))
		doc = strings.Replace(doc, "House-Sans", "README", 1)
		expect(t, c, pdfRequest([]byte(doc)), codes.InvalidArgument, `unknown font "README"`)
	})
	for _, tc := range []struct {
		name  string
		files map[string][]byte
		msg   string
	}{
		{"a broken font", map[string][]byte{"Broken.otf": []byte("nope")}, `Broken.otf: font "Broken" cannot be read`},
		{"two files of one name", map[string][]byte{"A.otf": goregular.TTF, "A.ttf": goregular.TTF}, `A.otf and A.ttf both name the font "A"`},
		{"a built-in name", map[string][]byte{"Go-Regular.ttf": goregular.TTF}, `"Go-Regular" is a built-in font`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, data := range tc.files {
				write(t, dir, name, data)
			}
			if _, err := LoadFonts(dir, nil); err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %v, want one containing %q", err, tc.msg)
			}
		})
	}
	t.Run("a missing directory", func(t *testing.T) {
		if _, err := LoadFonts(filepath.Join(t.TempDir(), "none"), nil); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("error %v, want not exist", err)
		}
	})
}

func TestPermanentAndReason(t *testing.T) {
	invalid := status.Error(codes.InvalidArgument, "layers[0]: bad")
	for _, tc := range []struct {
		name      string
		err       error
		permanent bool
		reason    string
	}{
		{"invalid argument", invalid, true, "layers[0]: bad"},
		{"wrapped", fmt.Errorf("render item: %w", invalid), true, "layers[0]: bad"},
		{"unavailable", status.Error(codes.Unavailable, "image x: answered 503"), false, "image x: answered 503"},
		{"not a status", errors.New("disk full"), false, "disk full"},
		{"nil", nil, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Permanent(tc.err); got != tc.permanent {
				t.Errorf("Permanent %v, want %v", got, tc.permanent)
			}
			if got := Reason(tc.err); got != tc.reason {
				t.Errorf("Reason %q, want %q", got, tc.reason)
			}
		})
	}
}

// TestConcurrent renders text and images on many goroutines at once: under
// -race it shows that renders share no parsed font or image state (each
// render borrows its own font copies, see render.Fonts), and every
// concurrent answer draws what a render alone draws: the same files, the
// PNGs byte for byte and the PDF's pages pixel for pixel (a PDF's bytes
// differ between two renders even alone: its creation time, and the order
// in which its font subset is written).
func TestConcurrent(t *testing.T) {
	c := client(t, Options{})
	doc := `{"width": 105, "height": 148, "bleed": 3, "surfaces": [
	  {"name": "front", "layers": [
	    {"type": "image", "src": "` + pngDataURI(t) + `", "width": 105, "height": 70},
	    {"type": "rect", "x": 5, "y": 80, "width": 95, "height": 30, "fill": "#f2e8d5", "radius": 2},
	    {"type": "text", "text": "Happy birthday, Ada", "font": "Go-Bold", "size": 18, "x": 5, "y": 120, "width": 95}
	  ]},
	  {"name": "back", "layers": [{"type": "text", "text": "With love", "size": 12, "x": 5, "y": 5, "width": 95}]}
	]}`
	req := &renderv1.RenderRequest{Document: []byte(doc), Settings: &renderv1.PrintSettings{Dpi: 50},
		Formats: []renderv1.Format{renderv1.Format_FORMAT_PDF, renderv1.Format_FORMAT_PNG}}
	// The answer of a render alone: one PDF of both surfaces, a PNG each.
	alone := call(t, c, req)
	if len(alone.Files) != 3 {
		t.Fatalf("alone: %d files, want 3 (a PDF, two PNGs)", len(alone.Files))
	}
	want := drawn(t, alone)
	const renders = 8
	got := make([]*renderv1.RenderResponse, renders)
	var wg sync.WaitGroup
	for i := range renders {
		wg.Go(func() {
			resp, err := c.Render(context.Background(), req)
			if err != nil {
				t.Errorf("render %d: %v", i, err)
				return
			}
			got[i] = resp
		})
	}
	wg.Wait()
	for i, resp := range got {
		if resp == nil {
			continue // reported above
		}
		if d := drawn(t, resp); !slices.Equal(d, want) {
			t.Errorf("render %d drew otherwise than a render alone:\n got %q\nwant %q", i, d, want)
		}
	}
}

// drawn describes each file of r by what it draws: its surface, format and
// size, and a digest of its pixels (a PNG's bytes; a PDF's pages as
// pdftoppm rasterizes them).
func drawn(t *testing.T, r *renderv1.RenderResponse) []string {
	t.Helper()
	var out []string
	for _, f := range r.Files {
		pixels := f.Data
		if f.Format == renderv1.Format_FORMAT_PDF {
			pixels = pdfPixels(t, f.Data)
		}
		out = append(out, fmt.Sprintf("%d %q %v %s %dx%d sha256 %x", f.SurfaceIndex, f.SurfaceName, f.Format, f.ContentType, f.WidthPx, f.HeightPx, sha256.Sum256(pixels)))
	}
	return out
}

// pdfPixels rasterizes every page of a PDF with pdftoppm (PPM, 50 DPI) and
// returns the pages' bytes one after the other.
func pdfPixels(t *testing.T, data []byte) []byte {
	t.Helper()
	poppler.Need(t, "pdftoppm")
	dir := t.TempDir()
	path := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("pdftoppm", "-r", "50", path, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, out)
	}
	pages, err := filepath.Glob(filepath.Join(dir, "page-*.ppm"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("pdftoppm wrote no pages (%v)", err)
	}
	slices.Sort(pages)
	var all []byte
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// TestMaxConcurrent: with one slot, a second call waits while the first
// renders (and gives up at its deadline); it renders once the slot frees.
func TestMaxConcurrent(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	img := decodeDataURI(t, pngDataURI(t))
	asked := make(chan struct{}, 1)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case asked <- struct{}{}:
		default:
		}
		<-release
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(img)
	}))
	defer slow.Close()
	defer free() // before Close, which waits for the handler
	c := client(t, Options{Fetcher: fetch.New(fetch.Config{AllowPrivateNetwork: true}), MaxConcurrent: 1})

	first := make(chan error, 1)
	go func() {
		_, err := c.Render(context.Background(), pdfRequest(withImage(slow.URL+"/a.png")))
		first <- err
	}()
	// A render fetches its images inside its slot: the first call holds
	// the slot once its image is asked for.
	select {
	case <-asked:
	case err := <-first:
		t.Fatalf("the first call ended before asking for its image: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the first call never asked for its image")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := c.Render(ctx, pdfRequest([]byte(`{"width":10,"height":10,"layers":[]}`)))
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("a call while the slot is taken: %v, want DeadlineExceeded", err)
	}
	free()
	if err := <-first; err != nil {
		t.Fatalf("first call: %v", err)
	}
	call(t, c, pdfRequest([]byte(`{"width":10,"height":10,"layers":[]}`)))
}

func decodeDataURI(t *testing.T, uri string) []byte {
	t.Helper()
	data, err := base64.StdEncoding.DecodeString(uri[strings.Index(uri, ",")+1:])
	if err != nil {
		t.Fatal(err)
	}
	return data
}
