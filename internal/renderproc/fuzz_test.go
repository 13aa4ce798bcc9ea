package renderproc

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/designdoc"
)

// fuzzLimits cap each input's render so that the fuzzer keeps moving: a
// render past them fails as any render would (RESOURCE_EXHAUSTED), which
// is the service working; what the fuzzer looks for is a crash.
var fuzzLimits = Limits{Time: 3 * time.Second, CPU: 3 * time.Second, MemoryBytes: 256 << 20}

// FuzzRender parses each input as a design document and renders what
// parses, as PDF and PNG, in a supervised render process: no document the
// parser accepts may crash the renderer, and what the renderer refuses it
// refuses as the document's fault or as over a limit. Run it with
// `go test -fuzz=FuzzRender ./internal/rendersup`; testdata/fuzz holds the
// corpus.
func FuzzRender(f *testing.F) {
	for _, seed := range fuzzSeeds {
		f.Add([]byte(seed))
	}
	s, err := Start(Config{Processes: 1, Limits: fuzzLimits})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	f.Fuzz(func(t *testing.T, doc []byte) {
		if _, err := designdoc.Parse(doc); err != nil {
			return
		}
		if strings.Contains(strings.ToLower(string(doc)), "http") {
			t.Skip("images come from data: URIs only: a fuzzer must not reach the network")
		}
		req := &renderv1.RenderRequest{
			Document: doc,
			Settings: &renderv1.PrintSettings{Dpi: 36},
			Formats:  []renderv1.Format{renderv1.Format_FORMAT_PDF, renderv1.Format_FORMAT_PNG},
		}
		_, err := s.Render(context.Background(), req)
		switch code := status.Code(err); {
		case err == nil, code == codes.InvalidArgument, code == codes.ResourceExhausted:
		case Crashed(err):
			t.Fatalf("a parsed document crashed the renderer: %v\n%s", err, doc)
		default:
			t.Fatalf("render: %v\n%s", err, doc)
		}
	})
}

// fuzzSeeds are documents at the edges of what the parser takes.
var fuzzSeeds = []string{
	`{"format":"fabric","width":100,"height":70,"bleed":2,"canvas":{"width":800,"height":560},"fabric":{"version":"7.4.0","background":"#f2e8d5","clipPath":{"type":"Rect","width":700,"height":500,"rx":20,"ry":20,"left":400,"top":280},"objects":[{"type":"Rect","left":100,"top":100,"width":200,"height":100,"rx":10,"ry":10,"fill":{"type":"radial","gradientUnits":"percentage","coords":{"x1":0.5,"y1":0.5,"r1":0,"x2":0.5,"y2":0.5,"r2":0.5},"colorStops":[{"offset":0,"color":"#fff"},{"offset":1,"color":"red"}]},"stroke":"#000","strokeWidth":4,"strokeUniform":true,"scaleX":2,"skewX":20,"angle":30,"flipY":true,"paintFirst":"stroke","strokeDashArray":[5,3]},{"type":"Group","left":500,"top":300,"angle":-10,"opacity":0.5,"clipPath":{"type":"Circle","radius":50,"absolutePositioned":true,"left":500,"top":300},"objects":[{"type":"Circle","radius":40,"startAngle":0,"endAngle":270,"counterClockwise":true,"fill":"blue"},{"type":"Path","path":[["M",0,0],["Q",50,-40,100,0],["L",100,50],["Z"]],"fill":"green","fillRule":"evenodd"},{"type":"Polyline","points":[{"x":0,"y":0},{"x":30,"y":40},{"x":60,"y":0}],"stroke":"red","strokeWidth":3,"fill":""}]},{"type":"Textbox","left":50,"top":400,"originX":"left","originY":"top","width":300,"text":"Hello, Ada\nand Bo","fontFamily":"Go-Regular","fontWeight":"bold","fontSize":40,"lineHeight":1.3,"charSpacing":50,"textAlign":"center","underline":true,"stroke":"#fff","strokeWidth":1,"styles":[{"start":7,"end":10,"style":{"fill":"red","fontStyle":"italic","fontSize":60}}]},{"type":"Image","src":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==","left":700,"top":100,"width":1,"height":1,"scaleX":50,"scaleY":50,"filters":[{"type":"Grayscale","mode":"lightness"}],"backgroundColor":"yellow"},{"type":"Line","x1":0,"y1":0,"x2":100,"y2":30,"left":600,"top":500,"stroke":"#333","strokeWidth":2,"strokeLineCap":"round"},{"type":"Triangle","left":300,"top":300,"width":50,"height":40,"fill":"hsl(200, 50%, 50%)"},{"type":"Ellipse","rx":30,"ry":10,"left":200,"top":500,"fill":"rgba(0,0,0,0.5)"}]}}`,
	`{"format":"fabric","width":85,"height":55,"surfaces":[{"name":"front","canvas":{"width":850,"height":550},"fabric":{"version":"5.3.0","objects":[{"type":"i-text","left":10,"top":10,"text":"Ada\nLovelace","fontFamily":"Go-Mono","fontSize":30,"styles":{"1":{"0":{"fill":"red","underline":true}}}}]}},{"name":"back","canvas":{"width":850,"height":550},"fabric":{"version":"6.4.0","objects":[{"type":"Group","objects":[{"type":"Rect","width":10,"height":10,"scaleY":0},{"type":"Text","text":"x","clipPath":{"type":"Rect","width":5,"height":5,"visible":false}}]}]}}]}`,
	`{"width":100,"height":70,"missing_glyphs":"warn","layers":[{"type":"group","x":10,"y":10,"rotation":30,"scale":0.5,"opacity":0.5,"clip":{"shape":"ellipse","width":40,"height":40},"layers":[{"type":"rect","width":40,"height":40,"radius":3,"fill":{"linear":{"angle":45,"stops":[[0,"#ff0000"],[0.5,"cmyk(0,0,0,100)"],[1,"#0000ff"]]}}},{"type":"ellipse","width":5,"height":5,"fill":{"radial":{"cx":0,"cy":1,"r":10,"stops":[[0,"spot(White,#ffffff)"],[1,"spot(White,#ffffff,0)"]]}}}]},{"type":"line","x1":0,"y1":0,"x2":100,"y2":70,"stroke":"#000","stroke_width":1e-9,"dash":[1e-9,0],"line_cap":"round"},{"type":"path","d":"M0 0 C 10 10 20 -10 30 0 Z","view_box":[0,-1e5,1e-3,2e5],"width":1e4,"height":1e-3,"fill":"#000","fill_rule":"evenodd","stroke":"#f00","stroke_width":1,"line_join":"round"},{"type":"text","spans":[{"text":"A\nd\u00e0 \u5c71 \ud83c\udf89"},{"text":"","size":1e4},{"text":"\u200d\ufe0f \ue000","font":"Go-Bold","underline":true}],"size":1e-3,"width":1e-6,"height":1e-6,"fit":"shrink","max_lines":1,"letter_spacing":-500,"line_height":1e-9,"valign":"bottom","linethrough":true,"align":"right"}]}`,
	`{"width":210,"height":297,"bleed":3,"dpi":300,"background":"#ffffff","surfaces":[{"name":"front","layers":[{"type":"text","text":"Happy birthday, Ada","font":"Go-Bold","size":24,"color":"#1a1a1a","x":15,"y":170,"width":180,"align":"center","rotation":0},{"type":"rect","x":10,"y":160,"width":190,"height":40,"fill":"#f2e8d5","stroke":"#000000","stroke_width":0.3,"radius":2}]}]}`,
	`{"width":5000,"height":5000,"bleed":5000,"layers":[{"type":"rect","x":-10000,"y":10000,"width":10000,"height":10000,"fill":"#000","stroke":"#f00","stroke_width":1000,"radius":10000,"rotation":359.999}]}`,
	`{"width":0.001,"height":0.001,"layers":[{"type":"rect","x":0,"y":0,"width":1e-300,"height":1e-300,"stroke":"#000","stroke_width":1e-300,"radius":1e-300,"fill":"#000","rotation":1e308}]}`,
	`{"unit":"px","dpi":1,"width":196,"height":196,"layers":[{"type":"text","text":"W","size":10000,"x":-393,"y":393,"width":393,"rotation":-1e300}]}`,
	`{"unit":"in","width":196,"height":1,"layers":[{"type":"text","text":"a\nb\n\n\tc ﷽ 𝕏","size":0.0001,"x":0,"y":0,"width":0,"align":"right","opacity":0}]}`,
	`{"width":100,"height":100,"layers":[{"type":"image","src":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==","x":0,"y":0,"width":10000,"height":0.0001,"fit":"cover","rotation":45}]}`,
	`{"width":10,"height":10,"surfaces":[{"layers":[]},{"layers":[{"type":"rect","width":10,"height":10,"fill":"#0000"}]}]}`,
	`{"width":100,"height":100,"background":"cmyk(0,0,0,5)","layers":[{"type":"rect","width":50,"height":50,"fill":"spot('PANTONE 185 C', cmyk(0, 91, 76, 0), 50)","stroke":"cmyk(100,0,0,0)","stroke_width":1,"overprint":true},{"type":"text","text":"Ink","size":12,"color":"spot(Gold, #d4af37)"},{"type":"image","src":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==","x":0,"y":0,"width":0.0001,"height":10000,"fit":"fill","cut_offset":50,"underbase":"spot(White,#fff)"},{"type":"cut","path":"M 0 0 C 10 -10 20 30 40 0 Z","rotation":30},{"type":"cut","shape":"ellipse","width":1e-6,"height":10000}]}`,
}
