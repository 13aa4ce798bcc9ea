package svgart

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tdewolff/canvas"
)

// TestLengthsInEveryUnit: SVG's absolute units at 96 px per inch
// (1in = 2.54cm = 25.4mm = 101.6Q = 72pt = 6pc), percentages of the
// reference, em and ex at the initial font size, and a unit SVG has but
// Platen does not (vw) named in the error.
func TestLengthsInEveryUnit(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
	}{
		{"12", 12}, {" 12px ", 12}, {"12PX", 12}, {"50%", 100},
		{"25.4mm", 96}, {"2.54cm", 96}, {"101.6q", 96}, {"1in", 96},
		{"72pt", 96}, {"6pc", 96}, {"2em", 32}, {"2ex", 16},
	} {
		got, err := parseLength(c.in, 200)
		if err != nil || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("parseLength(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for in, want := range map[string]string{"3vw": `the unit "vw" is not supported`, "wide": `"wide" is not a length`} {
		if _, err := parseLength(in, 200); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseLength(%q): %v, want %q", in, err, want)
		}
	}
}

// TestColoursInEveryNotation: the CSS colour notations an SVG editor
// writes, with the values CSS Color 3 gives them, and what is refused.
func TestColoursInEveryNotation(t *testing.T) {
	for _, c := range []struct {
		in   string
		want rgba
	}{
		{"#0f08", rgba{0, 255, 0, 136.0 / 255}},
		{"#FF000080", rgba{255, 0, 0, 128.0 / 255}},
		{"#123456", rgba{0x12, 0x34, 0x56, 1}},
		{"rgb(100%, 0%, 50%)", rgba{255, 0, 128, 1}},
		{"rgba(10 20 30 / 50%)", rgba{10, 20, 30, 0.5}},
		{"rgb(300, -5, 7)", rgba{255, 0, 7, 1}},
		{"hsl(120deg, 100%, 25%)", rgba{0, 128, 0, 1}},
		{"hsla(0, 100%, 50%, 0.5)", rgba{255, 0, 0, 0.5}},
		{"hsl(240 100% 75%)", rgba{128, 128, 255, 1}},
		{"CornflowerBlue", rgba{100, 149, 237, 1}},
		{"transparent", rgba{}},
	} {
		got, err := parseColor(c.in)
		if err != nil || got.r != c.want.r || got.g != c.want.g || got.b != c.want.b || math.Abs(got.a-c.want.a) > 1e-9 {
			t.Errorf("parseColor(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	if _, err := parseColor("currentColor"); !errors.Is(err, errCurrentColor) {
		t.Errorf("currentColor: %v, want errCurrentColor for the caller to resolve", err)
	}
	for _, in := range []string{"#12345", "#ggg", "rgb(1,2)", "rgb(1,2,3", "rgb(a,b,c)", "rgba(1,2,3,x)", "blurple"} {
		if _, err := parseColor(in); err == nil {
			t.Errorf("parseColor(%q) was accepted", in)
		}
	}
}

// TestTransformsInEveryForm: each SVG transform function, checked by
// where it takes a point, CSS units on its arguments, and malformed lists.
func TestTransformsInEveryForm(t *testing.T) {
	for _, c := range []struct {
		in       string
		from, to canvas.Point
	}{
		{"translate(10)", canvas.Point{X: 1, Y: 1}, canvas.Point{X: 11, Y: 1}},
		{"translate(10px, 5px)", canvas.Point{}, canvas.Point{X: 10, Y: 5}},
		{"scale(2)", canvas.Point{X: 1, Y: 3}, canvas.Point{X: 2, Y: 6}},
		{"scale(2 -1)", canvas.Point{X: 1, Y: 3}, canvas.Point{X: 2, Y: -3}},
		{"rotate(90deg 10 10)", canvas.Point{X: 20, Y: 10}, canvas.Point{X: 10, Y: 20}},
		{"skewX(45)", canvas.Point{X: 0, Y: 10}, canvas.Point{X: 10, Y: 10}},
		{"skewY(45)", canvas.Point{X: 10, Y: 0}, canvas.Point{X: 10, Y: 10}},
		{"matrix(1 0 0 1 3 4) , translate(1,1)", canvas.Point{}, canvas.Point{X: 4, Y: 5}},
	} {
		m, err := parseTransform(c.in)
		got := m.Dot(c.from)
		if err != nil || math.Abs(got.X-c.to.X) > 1e-9 || math.Abs(got.Y-c.to.Y) > 1e-9 {
			t.Errorf("parseTransform(%q) takes %v to %v (%v), want %v", c.in, c.from, got, err, c.to)
		}
	}
	for in, want := range map[string]string{
		"matrix(1 2 3)":      "matrix() with 3 arguments is malformed",
		"rotate(1 2)":        "rotate() with 2 arguments is malformed",
		"translate(1,2,3)":   "translate() with 3 arguments is malformed",
		"scale()":            "scale() with 0 arguments is malformed",
		"skewX(1 2)":         "skewX() with 2 arguments is malformed",
		"perspective(3)":     "the transform perspective() is not an SVG transform",
		"translate 10":       "is malformed",
		"translate(1, zero)": "is not a list of numbers",
	} {
		if _, err := parseTransform(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseTransform(%q): %v, want %q", in, err, want)
		}
	}
}

// TestNumberLists: a list longer than its bound is refused before it is
// held, and a number alone must be all of its text and in range.
func TestNumberLists(t *testing.T) {
	if _, err := parseNumbersMax("1 2 3", 2); !errors.Is(err, errTooMany) {
		t.Errorf("three numbers with a bound of two: %v", err)
	}
	if got, err := parseNumbersMax("1,2 -3e1", 3); err != nil || len(got) != 3 || got[2] != -30 {
		t.Errorf("1,2 -3e1: %v %v", got, err)
	}
	for _, in := range []string{"1 x", "1 2 -"} {
		if _, err := parseNumbersMax(in, 5); err == nil {
			t.Errorf("parseNumbersMax(%q) was accepted", in)
		}
	}
	for in, want := range map[string]string{"1 2": "is not a number", "1e999": "out of range", "": "is not a number"} {
		if _, err := parseNumber(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseNumber(%q): %v, want %q", in, err, want)
		}
	}
}
