package design

import (
	"strings"
	"testing"
)

// hostileLayers are the layers that stalled or crashed the drawing library,
// and their neighbours: each is refused by CheckBounds and by Parse, naming
// the member.
var hostileLayers = []struct{ layer, path, msg, parseMsg string }{
	{`{"type":"rect","width":10,"height":10,"fill":"#000","stroke":"#000","stroke_width":1e308,"rotation":1e308}`, "layers[0].stroke_width", "must be from 0 to 1000 mm, got 1e+308", ""},
	{`{"type":"rect","x":-1e308,"y":1e308,"width":1e308,"height":1e308,"stroke_width":1e308,"radius":1e308,"rotation":1e308,"fill":"#000"}`, "layers[0].x", "must be from -10000 to 10000 mm, got -1e+308", ""},
	{`{"type":"rect","y":10001,"width":1,"height":1,"fill":"#000"}`, "layers[0].y", "must be from -10000 to 10000 mm, got 10001", ""},
	{`{"type":"rect","width":10000.5,"height":1,"fill":"#000"}`, "layers[0].width", "must be from 0 to 10000 mm, got 10000.5", ""},
	{`{"type":"rect","width":1,"height":1,"radius":1e20,"fill":"#000"}`, "layers[0].radius", "must be from 0 to 10000 mm, got 1e+20", ""},
	{`{"type":"text","text":"a","size":1e9}`, "layers[0].size", "must be from 0 to 10000 pt, got 1e+09", ""},
	{`{"type":"image","src":"data:,","width":1,"height":-1e300}`, "layers[0].height", "must be from 0 to 10000 mm, got -1e+300", "must be positive, got -1e+300"},
	{`{"type":"rect","width":1,"height":1,"fill":"#000","rotation":1e999}`, "layers[0].rotation", "must be a finite number, got 1e999", ""},
	{`{"type":"rect","width":1,"height":1,"fill":"#000","opacity":2}`, "layers[0].opacity", "must be from 0 to 1, got 2", ""},
}

func TestCheckBoundsRefusesHostileNumbers(t *testing.T) {
	for _, tc := range hostileLayers {
		doc := []byte(`{"width":100,"height":100,"layers":[` + tc.layer + `]}`)
		for name, check := range map[string]func([]byte) error{
			"CheckBounds": CheckBounds,
			"Parse":       func(b []byte) error { _, err := Parse(b); return err },
		} {
			err := check(doc)
			want := tc.msg
			if name == "Parse" && tc.parseMsg != "" {
				want = tc.parseMsg
			}
			e, ok := err.(*Error)
			if !ok || e.Path != tc.path || e.Msg != want {
				t.Errorf("%s(%s) = %v; want %s: %s", name, tc.layer, err, tc.path, want)
			}
		}
	}
}

func TestCheckBoundsScalesWithTheUnit(t *testing.T) {
	// 400 in is 10,160 mm: over; 390 in is under.
	err := CheckBounds([]byte(`{"unit":"in","width":10,"height":10,"surfaces":[{"layers":[{"type":"rect","x":400}]}]}`))
	if err == nil || err.Error() != "surfaces[0].layers[0].x: must be from -393.701 to 393.701 in, got 400" {
		t.Errorf("400 in: %v", err)
	}
	if err := CheckBounds([]byte(`{"unit":"in","width":10,"height":10,"layers":[{"type":"rect","x":390}]}`)); err != nil {
		t.Errorf("390 in: %v", err)
	}
	err = CheckBounds([]byte(`{"unit":"px","dpi":100,"width":10,"height":10,"layers":[{"type":"rect","stroke_width":4000}]}`))
	if err == nil || !strings.HasSuffix(err.Error(), "stroke_width: must be from 0 to 3937.01 px, got 4000") {
		t.Errorf("4000 px at 100 dpi: %v", err)
	}
}

func TestCheckBoundsHeader(t *testing.T) {
	for doc, want := range map[string]string{
		`{"width":1e308,"height":1}`:             "width: must be from 0 to 5000 mm, got 1e+308",
		`{"width":1,"height":1,"bleed":-1}`:      "bleed: must be from 0 to 5000 mm, got -1",
		`{"width":1,"height":1,"dpi":1e6}`:       "dpi: must be from 1 to 10000, got 1e+06",
		`{"width":1,"height":1,"version":1e500}`: "version: must be a finite number, got 1e500",
	} {
		if err := CheckBounds([]byte(doc)); err == nil || err.Error() != want {
			t.Errorf("CheckBounds(%s) = %v; want %s", doc, err, want)
		}
	}
}

// TestCheckBoundsLeavesTheRestToTheRenderer: what may yet render, or is the
// renderer's to report on the print, passes.
func TestCheckBoundsLeavesTheRestToTheRenderer(t *testing.T) {
	for _, doc := range []string{
		reference,
		`{"version":1,"dpi":300}`,
		`{"width":"wide","layers":[{"type":"hologram","x":"left"},{"type":"rect","x":-9999,"rotation":-7200.5}]}`,
		`{"surfaces":[null,{"layers":[1,"a",{"type":"text","size":10000}]}]}`,
	} {
		if err := CheckBounds([]byte(doc)); err != nil {
			t.Errorf("CheckBounds(%s) = %v", doc, err)
		}
	}
}

func TestParseTakesRotationModulo360(t *testing.T) {
	d, err := Parse([]byte(`{"width":10,"height":10,"layers":[{"type":"rect","width":1,"height":1,"fill":"#000","rotation":1e308},{"type":"rect","width":1,"height":1,"fill":"#000","rotation":-725}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{normalDegrees(1e308), -5} {
		if got := d.Surfaces[0].Layers[i].Rotation; got != want || got <= -360 || got >= 360 {
			t.Errorf("layer %d rotation %v; want %v", i, got, want)
		}
	}
}
