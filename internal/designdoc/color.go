package designdoc

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Color is a colour as the document gives it. R, G, B and A are sRGB with
// alpha: the colour itself for #rrggbb, and how a cmyk() or spot() colour
// looks on screen, which the PNG output draws. Ink is the ink a press
// prints for cmyk() and spot(), nil for an sRGB colour.
type Color struct {
	R, G, B, A uint8
	Ink        *Ink
}

// Ink is a colour printed as such, never converted: process CMYK amounts,
// or a named spot colour (a white underbase, a varnish, a Pantone).
type Ink struct {
	// Spot names the spot colour; empty for process CMYK.
	Spot string
	// CMYK are the process amounts from 0 to 1: the colour of a cmyk(), or
	// a spot's look (its alternate) when its fallback is a cmyk().
	CMYK [4]float64
	// RGBFallback is true for a spot whose fallback is an sRGB colour (R,
	// G, B of the Color) rather than CMYK.
	RGBFallback bool
	// Tint is how much of the spot colour is printed, from 0 to 1.
	Tint float64
}

// colourHint is what every colour error shows as examples.
const colourHint = `must be a colour such as #1a1a1a, #1a1a1a80, cmyk(0, 100, 100, 0) or spot(White, #ffffff)`

// maxSpotName is the longest spot colour name, in bytes; PDF names are
// limited to 127 once encoded.
const maxSpotName = 40

func (m members) optionalColor(name string) (*Color, error) {
	s, err := m.text(name, "")
	if err != nil || s == "" {
		return nil, err
	}
	c, msg := parseColour(s)
	if msg != "" {
		return nil, errorf(m.pathOf(name), "%s", msg)
	}
	return &c, nil
}

// ParseColor reads #rgb, #rrggbb or #rrggbbaa.
func ParseColor(s string) (Color, bool) {
	hex := strings.TrimPrefix(s, "#")
	if len(hex) == len(s) {
		return Color{}, false
	}
	if len(hex) == 3 {
		hex = string([]byte{hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]})
	}
	if len(hex) == 6 {
		hex += "ff"
	}
	if len(hex) != 8 {
		return Color{}, false
	}
	var v [4]uint8
	for i := range v {
		hi, ok1 := hexDigit(hex[2*i])
		lo, ok2 := hexDigit(hex[2*i+1])
		if !ok1 || !ok2 {
			return Color{}, false
		}
		v[i] = hi<<4 | lo
	}
	return Color{R: v[0], G: v[1], B: v[2], A: v[3]}, true
}

// parseColour reads any colour a document may give, or says what is wrong
// with it.
func parseColour(s string) (Color, string) {
	s = strings.TrimSpace(s)
	bad := colourHint + ", got " + strconv.Quote(s)
	name, args, isCall := call(s)
	switch {
	case !isCall:
		if c, ok := ParseColor(s); ok {
			return c, ""
		}
		return Color{}, bad
	case name == "cmyk":
		return parseCMYK(args, s)
	case name == "spot":
		return parseSpot(args, s)
	}
	return Color{}, bad
}

// call splits "name(a, b)" into its lower-case name and its arguments
// (split at the commas outside parentheses and quotes).
func call(s string) (string, []string, bool) {
	open := strings.IndexByte(s, '(')
	if open <= 0 || !strings.HasSuffix(s, ")") {
		return "", nil, false
	}
	name := strings.ToLower(strings.TrimSpace(s[:open]))
	inner := s[open+1 : len(s)-1]
	var args []string
	depth, quote, start := 0, byte(0), 0
	for i := 0; i < len(inner); i++ {
		switch c := inner[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			args = append(args, strings.TrimSpace(inner[start:i]))
			start = i + 1
		}
	}
	return name, append(args, strings.TrimSpace(inner[start:])), true
}

// parseCMYK reads cmyk(c, m, y, k): four amounts from 0 to 100 (%).
func parseCMYK(args []string, s string) (Color, string) {
	if len(args) != 4 {
		return Color{}, "cmyk() takes four ink amounts, cyan, magenta, yellow and black, from 0 to 100 %, got " + strconv.Quote(s)
	}
	var ink Ink
	for i, a := range args {
		v, ok := percent(a)
		if !ok {
			return Color{}, "cmyk() takes ink amounts from 0 to 100 %, got " + strconv.Quote(a) + " in " + strconv.Quote(s)
		}
		ink.CMYK[i] = v
	}
	c := cmykLook(ink.CMYK)
	c.Ink = &ink
	return c, ""
}

// parseSpot reads spot(name, fallback[, tint]).
func parseSpot(args []string, s string) (Color, string) {
	if len(args) < 2 || len(args) > 3 {
		return Color{}, `spot() takes a name, a fallback colour (#rrggbb or cmyk()) and, optionally, a tint from 0 to 100 %, got ` + strconv.Quote(s)
	}
	name := unquote(args[0])
	if msg := CheckSpotName(name); msg != "" {
		return Color{}, msg + ", in " + strconv.Quote(s)
	}
	fallback, msg := parseColour(args[1])
	switch {
	case msg != "" || fallback.Ink != nil && fallback.Ink.Spot != "":
		return Color{}, "the fallback of spot() must be #rrggbb or cmyk(), got " + strconv.Quote(args[1]) + " in " + strconv.Quote(s)
	case fallback.Ink == nil && fallback.A != 255:
		return Color{}, "the fallback of spot() must be opaque: a tint, not an alpha, makes it lighter, got " + strconv.Quote(args[1])
	}
	ink := Ink{Spot: name, Tint: 1, RGBFallback: fallback.Ink == nil}
	if fallback.Ink != nil {
		ink.CMYK = fallback.Ink.CMYK
	}
	if len(args) == 3 {
		t, ok := percent(args[2])
		if !ok {
			return Color{}, "the tint of spot() must be from 0 to 100 %, got " + strconv.Quote(args[2]) + " in " + strconv.Quote(s)
		}
		ink.Tint = t
	}
	c := tinted(fallback, ink.Tint)
	c.Ink = &ink
	return c, ""
}

// CheckSpotName says what is wrong with a spot colour's name, if
// anything: the name of a spot() colour, and of the spot colour a product
// strokes cut lines in.
func CheckSpotName(name string) string {
	switch {
	case name == "":
		return "a spot colour needs a name"
	case len(name) > maxSpotName:
		return "a spot colour's name must be at most " + strconv.Itoa(maxSpotName) + " bytes"
	case name == "All" || name == "None":
		return `"All" and "None" are not spot colours: PDF gives them other meanings`
	case strings.TrimSpace(name) != name:
		return "a spot colour's name must not begin or end with spaces"
	case !utf8.ValidString(name):
		return "a spot colour's name must be UTF-8"
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || r == '"' || r == '\'' || r == '(' || r == ')' || r == ',' {
			return "a spot colour's name must not hold quotes, parentheses, commas or control characters: " + strconv.Quote(name)
		}
	}
	return ""
}

// unquote takes the quotes off a quoted spot name.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

// percent reads an amount from 0 to 100, with or without a % sign, as a
// fraction.
func percent(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
	if err != nil || math.IsNaN(v) || v < 0 || v > 100 {
		return 0, false
	}
	return v / 100, true
}

// cmykLook is a CMYK colour's look on screen: the simple subtractive
// conversion, good enough for a preview.
func cmykLook(cmyk [4]float64) Color {
	ch := func(v float64) uint8 { return uint8(math.Round(255 * (1 - v) * (1 - cmyk[3]))) }
	return Color{R: ch(cmyk[0]), G: ch(cmyk[1]), B: ch(cmyk[2]), A: 255}
}

// tinted is c printed at tint: mixed with the paper's white.
func tinted(c Color, tint float64) Color {
	ch := func(v uint8) uint8 { return uint8(math.Round(255 - tint*float64(255-v))) }
	return Color{R: ch(c.R), G: ch(c.G), B: ch(c.B), A: 255}
}

func hexDigit(c byte) (uint8, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
