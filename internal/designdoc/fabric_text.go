package designdoc

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// fabricTextStyle is one character's style: the object's, with what its
// entry of styles sets.
type fabricTextStyle struct {
	family, weight, style string
	size                  float64 // canvas pixels
	fill                  *Color
	underline, through    bool
}

// styleKeys are what a character's style may set; those Platen cannot
// print are refused when set to anything but nothing.
var styleKeys = []string{"fill", "fontFamily", "fontWeight", "fontStyle", "fontSize", "underline", "linethrough",
	"overline", "stroke", "strokeWidth", "textBackgroundColor", "deltaY", "textDecorationThickness"}

// text reads text, i-text and textbox objects into one text layer set as
// fabric sets it (TextMembers.Fabric): line heights from the sizes,
// decorations at fabric's offsets; a textbox wraps at its width, the
// others only at "\n".
func (r *fabricReader) text(m members, kind string, o fabricObject) ([]Layer, error) {
	if err := refuseTextPaint(m); err != nil {
		return nil, err
	}
	if err := refuseDecorationStyle(m); err != nil {
		return nil, err
	}
	text, err := m.text("text", "")
	if err != nil {
		return nil, err
	}
	if len(text) > maxTextBytes {
		return nil, errorf(m.pathOf("text"), "must be at most %d bytes, got %d", maxTextBytes, len(text))
	}
	base, err := r.baseStyle(m)
	if err != nil {
		return nil, err
	}
	lineHeight, err := fabricNumber(m, "lineHeight", 1.16)
	if err != nil {
		return nil, err
	}
	if lineHeight <= 0 || lineHeight > maxLineHeight {
		return nil, errorf(m.pathOf("lineHeight"), "must be above 0 and at most %d, got %s", maxLineHeight, shortNumber(lineHeight))
	}
	charSpacing, err := fabricNumber(m, "charSpacing", 0)
	if err != nil {
		return nil, err
	}
	if charSpacing < minLetterSpacing || charSpacing > maxLetterSpacing {
		return nil, errorf(m.pathOf("charSpacing"), "must be from %d to %d (thousandths of an em), got %s", minLetterSpacing, maxLetterSpacing, shortNumber(charSpacing))
	}
	align, err := m.text("textAlign", "left")
	if err != nil {
		return nil, err
	}
	if !slices.Contains([]string{"left", "center", "right"}, align) {
		return nil, errorf(m.pathOf("textAlign"), "must be left, center or right, got %q: Platen does not justify text", align)
	}
	styles, err := fabricStyles(m, text)
	if err != nil {
		return nil, err
	}
	spans, lineSizes, err := r.textSpans(m, text, base, styles)
	if err != nil {
		return nil, err
	}
	if len(spans) > maxSpans {
		return nil, errorf(m.pathOf("styles"), "makes more than %d runs of one style", maxSpans)
	}
	// The height the canvas saved is fabric's own for the lines as the
	// customer's browser wrapped them; without one, the lines of the text.
	height := o.height
	if height <= 0 {
		height = fabricTextHeight(lineSizes, lineHeight)
	}
	l := Layer{Type: TextLayer, Path: m.path, X: -o.width / 2, Y: -height / 2, Width: o.width, Opacity: 1, Scale: 1}
	l.Text, l.Spans = text, spans
	l.Font, l.FontSize, l.Color = spans[0].Font, r.points(base.size), spans[0].Color
	l.Align, l.VAlign, l.LineHeight, l.LetterSpacing = align, "top", lineHeight, charSpacing
	l.Fabric, l.NoWrap = true, kind != "textbox"
	if err := r.textStroke(&l, m, o); err != nil {
		return nil, err
	}
	return []Layer{l}, nil
}

// points is a size in canvas pixels as the points a text layer's size is
// in: the pixel is a length of the document's unit in the canvas's plane.
func (r *fabricReader) points(px float64) float64 { return r.d.ToMM(px) * 72 / 25.4 }

// FabricSizeMult is fabric's _fontSizeMult: a line of text is this many
// times its largest size high, before its lineHeight.
const FabricSizeMult = 1.13

// fabricTextHeight is fabric's calcTextHeight: each line FabricSizeMult
// times its largest size times lineHeight high, the last without
// lineHeight.
func fabricTextHeight(sizes []float64, lineHeight float64) float64 {
	h := 0.0
	for i, s := range sizes {
		if i == len(sizes)-1 {
			h += s * FabricSizeMult
		} else {
			h += s * FabricSizeMult * lineHeight
		}
	}
	return h
}

// refuseTextPaint refuses what fabric paints on text that Platen does
// not: a gradient or pattern in the letters, text on a path.
func refuseTextPaint(m members) error {
	if raw, ok := m.get("path"); ok && !emptyFabricValue(raw) {
		return errorf(m.pathOf("path"), "sets the text along a path, which Platen does not print: convert the text to a path in the customiser")
	}
	if raw, ok := m.get("fill"); ok && raw[0] == '{' {
		return errorf(m.pathOf("fill"), "is a gradient or a pattern: Platen prints text in one colour")
	}
	return nil
}

// refuseDecorationStyle refuses an underline's or a line through's own
// thickness or colour, which fabric 7 draws and Platen does not: its
// decorations are the letters' colour, a fifteenth of the size thick.
func refuseDecorationStyle(m members) error {
	if t, err := fabricNumber(m, "textDecorationThickness", 66.667); err != nil {
		return err
	} else if math.Abs(t-66.667) > 1e-3 {
		return errorf(m.pathOf("textDecorationThickness"), "must be fabric's default, 66.667: Platen draws underlines and lines through a fifteenth of the size thick")
	}
	if c, err := fabricColorMember(m, "textDecorationColor"); err != nil {
		return err
	} else if c != nil {
		return errorf(m.pathOf("textDecorationColor"), "is not printed: Platen draws underlines and lines through in the letters' colour")
	}
	return nil
}

// textStroke reads the outline of the letters: the object's stroke, in
// fabric's order (paintFirst), but not in a plane of its own.
func (r *fabricReader) textStroke(l *Layer, m members, o fabricObject) error {
	p, err := r.paint(m, "text", o)
	if err != nil || p.stroke == nil || p.strokeWidth <= 0 {
		return err
	}
	if o.strokeUniform {
		return errorf(m.pathOf("strokeUniform"), "is not printed on outlined text: give the letters' stroke its width as drawn")
	}
	p.setStroke(l)
	l.StrokeFirst = p.strokeFirst
	return nil
}

// baseStyle is the object's own style, which its characters' styles
// override.
func (r *fabricReader) baseStyle(m members) (fabricTextStyle, error) {
	s := fabricTextStyle{}
	var err error
	if s.family, err = m.text("fontFamily", "Times New Roman"); err != nil {
		return s, err
	}
	if s.weight, err = fabricWeight(m); err != nil {
		return s, err
	}
	if s.style, err = m.choice("fontStyle", "normal", "italic", "oblique"); err != nil {
		return s, err
	}
	if s.size, err = fabricNumber(m, "fontSize", 40); err != nil {
		return s, err
	}
	if s.size <= 0 || r.points(s.size) > maxFontPoint {
		return s, errorf(m.pathOf("fontSize"), "must be above 0 and at most %s px, got %s", shortNumber(maxFontPoint/r.points(1)), shortNumber(s.size))
	}
	if s.fill, _, err = r.filler(m, "fill", fabricObject{}); err != nil {
		return s, err
	}
	if s.underline, err = m.boolean("underline"); err != nil {
		return s, err
	}
	s.through, err = m.boolean("linethrough")
	return s, err
}

// fabricWeight reads fontWeight: "normal", "bold" or a number (as a
// string or not); it is bold from 600, as a browser picks between a
// family's regular and bold faces.
func fabricWeight(m members) (string, error) {
	raw, ok := m.get("fontWeight")
	if !ok {
		return "normal", nil
	}
	s := strings.Trim(strings.TrimSpace(string(raw)), `"`)
	switch s {
	case "normal", "bold":
		return s, nil
	case "bolder", "lighter":
		return "", errorf(m.pathOf("fontWeight"), "must be normal, bold or a number from 1 to 1000, got %q: a relative weight has nothing to be relative to", s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 1 || v > 1000 {
		return "", errorf(m.pathOf("fontWeight"), "must be normal, bold or a number from 1 to 1000, got %s", abbreviate(raw))
	}
	if v >= 600 {
		return "bold", nil
	}
	return "normal", nil
}

// FabricFontName is the Platen font a fabric fontFamily, fontWeight and
// fontStyle print in: the family's own name for a regular face, with
// "-Bold", "-Italic" or "-BoldItalic" added for the others, a
// "-Regular" at the family's end replaced ("Go-Regular" bold is
// "Go-Bold").
func FabricFontName(family, weight, style string) string {
	suffix := ""
	if weight == "bold" {
		suffix = "Bold"
	}
	if style == "italic" || style == "oblique" {
		suffix += "Italic"
	}
	if suffix == "" {
		return family
	}
	return strings.TrimSuffix(family, "-Regular") + "-" + suffix
}

// fabricStyles reads styles, in fabric 5's form ({"0": {"3": {…}}}: by
// line, then character) or fabric 6's and 7's ([{"start", "end",
// "style"}]: by character of the whole text, its line breaks not
// counted), into one form: by line, by character (a code point, as
// fabric's graphemeSplit counts them).
func fabricStyles(m members, text string) (map[int]map[int]members, error) {
	raw, ok := m.get("styles")
	out := map[int]map[int]members{}
	if !ok || emptyFabricValue(raw) {
		return out, nil
	}
	path := m.pathOf("styles")
	if raw[0] == '[' {
		return stylesFromRanges(raw, path, text)
	}
	var lines map[string]map[string]json.RawMessage
	if json.Unmarshal(raw, &lines) != nil {
		return nil, errorf(path, "must be fabric's styles: by line and character ({\"0\": {\"2\": {\"fill\": \"red\"}}}), or ranges ([{\"start\": 0, \"end\": 3, \"style\": {…}}])")
	}
	for ls, chars := range lines {
		li, err := strconv.Atoi(ls)
		if err != nil || li < 0 {
			return nil, errorf(path+"."+ls, "must be a line's number")
		}
		for cs, rawStyle := range chars {
			ci, err := strconv.Atoi(cs)
			if err != nil || ci < 0 {
				return nil, errorf(path+"."+ls+"."+cs, "must be a character's number")
			}
			sm, err := object(rawStyle, path+"."+ls+"."+cs)
			if err != nil {
				return nil, err
			}
			if out[li] == nil {
				out[li] = map[int]members{}
			}
			out[li][ci] = sm
		}
	}
	return out, nil
}

// stylesFromRanges reads fabric 6's and 7's styles array, as its
// stylesFromArray does.
func stylesFromRanges(raw json.RawMessage, path, text string) (map[int]map[int]members, error) {
	list, err := array(raw, path)
	if err != nil {
		return nil, err
	}
	type rng struct {
		start, end int
		style      members
	}
	if len(list) > maxSpans {
		return nil, errorf(path, "must hold at most %d ranges, got %d", maxSpans, len(list))
	}
	ranges := make([]rng, len(list))
	for i, item := range list {
		p := fmt.Sprintf("%s[%d]", path, i)
		rm, err := object(item, p)
		if err != nil {
			return nil, err
		}
		start, err := rm.whole("start", 0, 0, maxTextBytes)
		if err != nil {
			return nil, err
		}
		end, err := rm.whole("end", 0, 0, maxTextBytes)
		if err != nil {
			return nil, err
		}
		sraw, ok := rm.get("style")
		if !ok {
			return nil, errorf(rm.pathOf("style"), "is required")
		}
		sm, err := object(sraw, rm.pathOf("style"))
		if err != nil {
			return nil, err
		}
		ranges[i] = rng{start, end, sm}
	}
	// The style of each character of the text (its line breaks not
	// counted), the first range that holds it winning.
	chars := utf8.RuneCountInString(text) - strings.Count(text, "\n")
	byIndex := make([]*members, chars)
	for i := range ranges {
		for c := ranges[i].start; c < min(ranges[i].end, chars); c++ {
			if byIndex[c] == nil {
				byIndex[c] = &ranges[i].style
			}
		}
	}
	out := map[int]map[int]members{}
	index := -1
	for li, line := range strings.Split(text, "\n") {
		ci := 0
		for range line {
			index++
			if s := byIndex[index]; s != nil {
				if out[li] == nil {
					out[li] = map[int]members{}
				}
				out[li][ci] = *s
			}
			ci++
		}
	}
	return out, nil
}

// textSpans cuts the text into spans of one style each, and gives each
// line's largest size (an empty line has the object's).
func (r *fabricReader) textSpans(m members, text string, base fabricTextStyle, styles map[int]map[int]members) ([]Span, []float64, error) {
	var spans []Span
	var sizes []float64
	add := func(s fabricTextStyle, part string) {
		span := Span{Text: part, Font: FabricFontName(s.family, s.weight, s.style), Size: r.points(s.size),
			Underline: s.underline, Linethrough: s.through}
		if s.fill != nil {
			span.Color = *s.fill
		}
		if n := len(spans); n > 0 && spans[n-1].sameStyle(span) {
			spans[n-1].Text += part
			return
		}
		spans = append(spans, span)
	}
	for li, line := range strings.Split(text, "\n") {
		if li > 0 { // a break joins the run before it, whatever its style
			if n := len(spans); n > 0 {
				spans[n-1].Text += "\n"
			} else {
				add(base, "\n")
			}
		}
		largest := 0.0
		ci := 0
		for _, ch := range line {
			s := base
			if sm, ok := styles[li][ci]; ok {
				var err error
				if s, err = r.charStyle(sm, base); err != nil {
					return nil, nil, err
				}
			}
			if s.fill == nil {
				s.fill = &Color{} // drawn in no colour: invisible, as fabric's
			}
			largest = math.Max(largest, s.size)
			add(s, string(ch))
			ci++
		}
		if ci == 0 {
			largest = base.size
		}
		sizes = append(sizes, largest)
	}
	if len(spans) == 0 {
		add(base, "")
	}
	return spans, sizes, nil
}

// sameStyle reports whether two spans print alike.
func (s Span) sameStyle(o Span) bool {
	return s.Font == o.Font && s.Size == o.Size && s.Color == o.Color && s.Underline == o.Underline && s.Linethrough == o.Linethrough
}

// charStyle is base with what a character's style sets.
func (r *fabricReader) charStyle(sm members, base fabricTextStyle) (fabricTextStyle, error) {
	for name := range sm.m {
		if !slices.Contains(styleKeys, name) {
			return base, errorf(sm.pathOf(name), "is not a character style Platen prints (it prints %s)", strings.Join(styleKeys[:7], ", "))
		}
	}
	if err := refuseUnprintable(sm); err != nil {
		return base, err
	}
	if err := refuseTextPaint(sm); err != nil {
		return base, err
	}
	if c, err := fabricStrokeColor(sm); err != nil {
		return base, err
	} else if c != nil {
		return base, errorf(sm.pathOf("stroke"), "outlines some letters only, which Platen does not print: give the whole text its stroke")
	}
	if err := refuseDecorationStyle(sm); err != nil {
		return base, err
	}
	s := base
	var err error
	if sm.has("fontFamily") {
		if s.family, err = sm.text("fontFamily", base.family); err != nil {
			return s, err
		}
	}
	if sm.has("fontWeight") {
		if s.weight, err = fabricWeight(sm); err != nil {
			return s, err
		}
	}
	if sm.has("fontStyle") {
		if s.style, err = sm.choice("fontStyle", "normal", "italic", "oblique"); err != nil {
			return s, err
		}
	}
	if sm.has("fontSize") {
		if s.size, err = fabricNumber(sm, "fontSize", base.size); err != nil {
			return s, err
		}
		if s.size <= 0 || r.points(s.size) > maxFontPoint {
			return s, errorf(sm.pathOf("fontSize"), "must be above 0, got %s", shortNumber(s.size))
		}
	}
	if sm.has("fill") {
		if s.fill, _, err = r.filler(sm, "fill", fabricObject{}); err != nil {
			return s, err
		}
	}
	if sm.has("underline") {
		if s.underline, err = sm.boolean("underline"); err != nil {
			return s, err
		}
	}
	if sm.has("linethrough") {
		if s.through, err = sm.boolean("linethrough"); err != nil {
			return s, err
		}
	}
	return s, nil
}
