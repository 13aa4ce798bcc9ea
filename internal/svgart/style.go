package svgart

import (
	"fmt"
	"math"
	"strings"

	"github.com/tdewolff/canvas"
)

// paintKind is what a fill or stroke property names.
type paintKind int

const (
	paintNone paintKind = iota
	paintColor
	paintCurrent // currentColor, resolved at the painted element
	paintRef     // url(#id), a gradient
)

// paint is a parsed fill or stroke value.
type paint struct {
	kind     paintKind
	color    rgba
	ref      string
	fallback *paint // for url(#id) fallback
}

// style is the inherited part of an element's computed style: every
// property SVG inherits that svgart draws.
type style struct {
	fill, stroke  paint
	fillOpacity   float64
	strokeOpacity float64
	fillRule      canvas.FillRule
	clipRule      canvas.FillRule
	strokeWidth   float64
	capper        canvas.Capper
	join          string
	miterLimit    float64
	dashes        []float64
	dashOffset    float64
	color         rgba
	hidden        bool
}

// initialStyle is SVG's initial values.
var initialStyle = style{
	fill:          paint{kind: paintColor, color: black},
	fillOpacity:   1,
	strokeOpacity: 1,
	fillRule:      canvas.NonZero,
	clipRule:      canvas.NonZero,
	strokeWidth:   1,
	capper:        canvas.ButtCap,
	join:          "miter",
	miterLimit:    4,
	color:         black,
}

// inherited lists the properties computeStyle reads, in the order it
// reads them (so that errors come in a stable order).
var inherited = []string{
	"color", "fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity",
	"stroke-linecap", "stroke-linejoin", "stroke-miterlimit", "stroke-dasharray", "stroke-dashoffset",
	"visibility", "clip-rule",
}

// computeStyle is n's style given its parent's: each property n
// specifies replaces the inherited value; "inherit" keeps it.
func (b *builder) computeStyle(n *node, parent style) (style, error) {
	s := parent
	s.dashes = parent.dashes // shared, never modified
	for _, name := range inherited {
		v, ok := n.props[name]
		if !ok || v == "inherit" {
			continue
		}
		if err := b.setProperty(&s, name, v); err != nil {
			return s, refuse(n, "%s=%q: %v", name, truncate(v), err)
		}
	}
	return s, nil
}

// setProperty parses one inherited property into s.
func (b *builder) setProperty(s *style, name, v string) error {
	var err error
	switch name {
	case "color":
		var c rgba
		c, err = parseColor(v)
		if err == errCurrentColor {
			return nil // color: currentColor is the inherited colour
		}
		s.color = c
	case "fill":
		s.fill, err = parsePaint(v)
	case "stroke":
		s.stroke, err = parsePaint(v)
	case "fill-opacity":
		s.fillOpacity, err = parseFraction(v)
	case "stroke-opacity":
		s.strokeOpacity, err = parseFraction(v)
	case "fill-rule":
		s.fillRule, err = parseRule(v)
	case "clip-rule":
		s.clipRule, err = parseRule(v)
	case "stroke-width":
		s.strokeWidth, err = parseLength(v, b.diag)
		if s.strokeWidth < 0 {
			err = fmt.Errorf("a stroke width may not be negative")
		}
	case "stroke-linecap":
		s.capper, err = parseCap(v)
	case "stroke-linejoin":
		if v != "miter" && v != "round" && v != "bevel" {
			return fmt.Errorf("only miter, round and bevel joins are supported")
		}
		s.join = v
	case "stroke-miterlimit":
		s.miterLimit, err = parseNumber(v)
		if err == nil && s.miterLimit < 1 {
			err = fmt.Errorf("a miter limit must be at least 1")
		}
	case "stroke-dasharray":
		s.dashes, err = b.parseDashes(v)
	case "stroke-dashoffset":
		s.dashOffset, err = parseLength(v, b.diag)
	case "visibility":
		s.hidden = v == "hidden" || v == "collapse"
	}
	return err
}

// parsePaint reads none, a colour, currentColor, or url(#id) with an
// optional fallback.
func parsePaint(v string) (paint, error) {
	v = strings.TrimSpace(v)
	if v == "none" {
		return paint{}, nil
	}
	if strings.HasPrefix(v, "url(") {
		end := strings.IndexByte(v, ')')
		if end < 0 {
			return paint{}, fmt.Errorf("url( is not closed")
		}
		p := paint{kind: paintRef, ref: strings.TrimPrefix(strings.Trim(strings.TrimSpace(v[4:end]), `"'`), "#")}
		if rest := strings.TrimSpace(v[end+1:]); rest != "" {
			fb, err := parsePaint(rest)
			if err != nil || fb.kind == paintRef {
				return paint{}, fmt.Errorf("the fallback %q is not a colour", truncate(rest))
			}
			p.fallback = &fb
		}
		return p, nil
	}
	if strings.HasPrefix(v, "context-") {
		return paint{}, fmt.Errorf("context paints belong to markers, which are not supported")
	}
	c, err := parseColor(v)
	if err == errCurrentColor {
		return paint{kind: paintCurrent}, nil
	}
	return paint{kind: paintColor, color: c}, err
}

func parseRule(v string) (canvas.FillRule, error) {
	switch v {
	case "nonzero":
		return canvas.NonZero, nil
	case "evenodd":
		return canvas.EvenOdd, nil
	}
	return canvas.NonZero, fmt.Errorf("a fill rule is nonzero or evenodd")
}

func parseCap(v string) (canvas.Capper, error) {
	switch v {
	case "butt":
		return canvas.ButtCap, nil
	case "round":
		return canvas.RoundCap, nil
	case "square":
		return canvas.SquareCap, nil
	}
	return canvas.ButtCap, fmt.Errorf("a line cap is butt, round or square")
}

// parseDashes reads a dash array; an odd list is repeated, as SVG says,
// and an array of zeros draws a solid line.
func (b *builder) parseDashes(v string) ([]float64, error) {
	if v == "none" {
		return nil, nil
	}
	var out []float64
	sum := 0.0
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		x, err := parseLength(f, b.diag)
		if err != nil {
			return nil, err
		}
		if x < 0 {
			return nil, fmt.Errorf("dash lengths may not be negative")
		}
		out = append(out, x)
		sum += x
	}
	if sum == 0 || math.IsInf(sum, 0) {
		return nil, nil
	}
	if len(out)%2 == 1 {
		out = append(out, out...)
	}
	return out, nil
}

// joiner is s's line join as canvas draws it; SVG's miter falls back to
// a bevel past the limit, which is canvas's MiterJoiner with a
// BevelJoiner gap.
func (s style) joiner() canvas.Joiner {
	switch s.join {
	case "round":
		return canvas.RoundJoin
	case "bevel":
		return canvas.BevelJoin
	}
	return canvas.MiterJoiner{GapJoiner: canvas.BevelJoin, Limit: s.miterLimit}
}
