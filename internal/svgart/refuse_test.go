package svgart

import (
	"errors"
	"strings"
	"testing"
)

// doc wraps body in an SVG root.
func doc(body string) string {
	return `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100" viewBox="0 0 100 100">` + body + `</svg>`
}

// refusal parses svg and returns its *Error, failing unless Parse
// refused it with a message naming element and containing want.
func refusal(t *testing.T, svg, element, want string) *Error {
	t.Helper()
	_, err := Parse([]byte(svg))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Parse accepted or failed oddly (%v), want a refusal naming %s", err, element)
	}
	if !strings.Contains(e.Element, element) || !strings.Contains(err.Error(), element) {
		t.Errorf("refusal %q does not name %s", err, element)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("refusal %q does not say %q", err, want)
	}
	return e
}

// TestEveryRefusedElement refuses each element the table refuses, by
// name, with the table's reason.
func TestEveryRefusedElement(t *testing.T) {
	n := 0
	for _, f := range Features() {
		if f.Kind != Element || f.Decision != Refused {
			continue
		}
		n++
		t.Run(f.Name, func(t *testing.T) {
			e := refusal(t, doc(`<g><`+f.Name+` id="x"/></g>`), `<`+f.Name+` id="x">`, f.Note)
			if e.Line != 1 || e.Limit {
				t.Errorf("line %d, limit %v", e.Line, e.Limit)
			}
		})
	}
	if n < 30 {
		t.Errorf("only %d refused elements in the table", n)
	}
}

// TestEveryRefusedProperty refuses each refused attribute, and accepts
// its harmless values.
func TestEveryRefusedProperty(t *testing.T) {
	for _, f := range Features() {
		if f.Kind != Property || f.Decision != Refused {
			continue
		}
		name := strings.Replace(f.Name, "*", "click", 1) // on* → onclick
		t.Run(name, func(t *testing.T) {
			refusal(t, doc(`<rect width="10" height="10" `+name+`="url(#x) bogus"/>`), "<rect>", name)
			if name == strings.ToLower(name) { // a CSS property, not a conditional attribute
				refusal(t, doc(`<rect width="10" height="10" style="`+name+`: url(#x) bogus"/>`), "<rect>", name)
			}
			for _, ok := range f.Allowed {
				if _, err := Parse([]byte(doc(`<rect width="10" height="10" ` + name + `="` + ok + `"/>`))); err != nil {
					t.Errorf("%s=%q refused: %v", name, ok, err)
				}
			}
		})
	}
}

func TestFilterPrimitivesAndUnknownElements(t *testing.T) {
	refusal(t, doc(`<feGaussianBlur stdDeviation="3"/>`), "<feGaussianBlur>", "filter effects")
	refusal(t, doc(`<blink/>`), "<blink>", "not supported")
	refusal(t, doc(`<svg width="10" height="10"/>`), "<svg>", "nested <svg>")
}

// TestExternalReferences refuses every reference that leaves the file,
// wherever it is written.
func TestExternalReferences(t *testing.T) {
	cases := []struct{ name, svg, element, want string }{
		{"use href", doc(`<use href="other.svg#logo"/>`), "<use>", "external reference"},
		{"use xlink:href", doc(`<use xlink:href="http://example.com/a.svg#b"/>`), "<use>", "external reference"},
		{"fill url", doc(`<rect width="5" height="5" fill="url(https://example.com/p.svg#g)"/>`), "<rect>", "external reference"},
		{"css url", doc(`<style>rect { fill: url('http://example.com/x.svg#g') }</style>`), "<style>", "external reference"},
		{"gradient href", doc(`<linearGradient id="g" href="file:///etc/passwd"/>`), `<linearGradient id="g">`, "external reference"},
		{"data image", doc(`<use href="data:image/png;base64,iVBORw0KGgo="/>`), "<use>", "bitmaps inside an SVG"},
		{"embedded image", doc(`<image href="data:image/jpeg;base64,/9j/4AAQ" width="5" height="5"/>`), "<image>", "bitmaps inside an SVG"},
		{"@import", doc(`<style>@import url(brand.css);</style>`), "<style>", "@import"},
		{"xml-stylesheet", `<?xml-stylesheet href="brand.css"?>` + doc(""), "<?xml-stylesheet?>", "never loaded"},
		{"external entity", `<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>` + doc("&x;"), "<!DOCTYPE>", "plain text entities"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { refusal(t, c.svg, c.element, c.want) })
	}
}

// TestStylesAndPaintsRefused covers the refusals that depend on values.
func TestStylesAndPaintsRefused(t *testing.T) {
	grad := func(stops, attrs string) string {
		return `<linearGradient id="g" ` + attrs + `>` + stops + `</linearGradient>`
	}
	opaque := `<stop offset="0" stop-color="red"/><stop offset="1" stop-color="blue"/>`
	cases := []struct{ name, svg, element, want string }{
		{"@media", doc(`<style>@media print { rect { fill: red } }</style>`), "<style>", "@media"},
		{"@keyframes", doc(`<style>@keyframes spin { from { opacity: 0 } }</style>`), "<style>", "at-rules"},
		{"descendant selector", doc(`<style>g rect { fill: red }</style>`), "<style>", `"g rect"`},
		{"pseudo-class", doc(`<style>rect:hover { fill: red }</style>`), "<style>", "rect:hover"},
		{"css filter", doc(`<style>.a { filter: blur(2px) }</style>`), "<style>", "filter effects"},
		{"stop opacity", doc(`<defs>` + grad(`<stop offset="0" stop-color="red" stop-opacity="0.5"/><stop offset="1" stop-color="blue"/>`, "") + `</defs><rect width="9" height="9" fill="url(#g)"/>`), "<stop>", "transparency"},
		{"stop rgba", doc(`<defs>` + grad(`<stop offset="0" stop-color="rgba(0,0,0,.5)"/><stop offset="1" stop-color="blue"/>`, "") + `</defs><rect width="9" height="9" fill="url(#g)"/>`), "<stop>", "transparency"},
		{"gradient fill-opacity", doc(`<defs>` + grad(opaque, "") + `</defs><rect width="9" height="9" fill="url(#g)" fill-opacity="0.5"/>`), "<rect>", "gradient"},
		{"gradient in translucent group", doc(`<defs>` + grad(opaque, "") + `</defs><g opacity=".5"><rect width="9" height="9" fill="url(#g)"/></g>`), "<g>", "gradient"},
		{"spreadMethod", doc(`<defs>` + grad(opaque, `spreadMethod="reflect"`) + `</defs><rect width="9" height="9" fill="url(#g)"/>`), `<linearGradient id="g">`, "spreadMethod"},
		{"missing gradient", doc(`<rect width="9" height="9" fill="url(#nope)"/>`), "<rect>", "not in the file"},
		{"missing clip", doc(`<rect width="9" height="9" clip-path="url(#nope)"/>`), "<rect>", "not in the file"},
		{"basic-shape clip", doc(`<rect width="9" height="9" clip-path="circle(50%)"/>`), "<rect>", "only url(#clipPath)"},
		{"miter-clip", doc(`<path d="M0 0L9 9" stroke="red" stroke-linejoin="miter-clip"/>`), "<path>", "joins"},
		{"bad colour", doc(`<rect width="9" height="9" fill="reddish"/>`), "<rect>", "not a colour"},
		{"bad path", doc(`<path d="M0 0 L10"/>`), "<path>", "malformed"},
		{"use loop", doc(`<g id="a"><use href="#a"/></g>`), "<use>", "contains this <use>"},
		{"no size", `<svg xmlns="http://www.w3.org/2000/svg"><rect width="9" height="9"/></svg>`, "<svg>", "viewBox"},
		{"not svg", `<html/>`, "<html>", "not an SVG document"},
		{"translucent overlap", doc(`<g opacity=".5"><rect width="50" height="50" fill="red"/><rect x="25" y="25" width="50" height="50" fill="url(#nope) blue" fill-opacity=".5"/><rect x="10" y="10" width="5" height="5" fill="red"/></g>`), "", ""},
		{"unknown unit", doc(`<rect width="9vw" height="9"/>`), "<rect>", "unit"},
		{"nested entity", `<!DOCTYPE svg [<!ENTITY a "x"><!ENTITY b "&a;&a;">]>` + doc(""), "<!ENTITY b>", "another entity"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.element == "" {
				// Translucent flat colours over each other in a
				// translucent group are blended, not refused.
				if _, err := Parse([]byte(c.svg)); err != nil {
					t.Fatal(err)
				}
				return
			}
			refusal(t, c.svg, c.element, c.want)
		})
	}
}

// TestIgnoredFeatures are accepted and draw nothing of their own.
func TestIgnoredFeatures(t *testing.T) {
	svg := `<?xml version="1.0"?><!-- a comment -->` + doc(`<title>t</title><desc>d</desc><metadata><x xmlns="urn:x"/></metadata>`+
		`<view id="v"/><style>@charset "utf-8"; @font-face { font-family: X; src: local(X) }</style>`+
		`<rect width="9" height="9" shape-rendering="crispEdges" font-family="Arial" data-name="box" aria-label="box"/>`)
	art, err := Parse([]byte(svg))
	if err != nil {
		t.Fatal(err)
	}
	if len(art.ops) != 1 {
		t.Errorf("%d operations, want the rectangle's 1", len(art.ops))
	}
}
