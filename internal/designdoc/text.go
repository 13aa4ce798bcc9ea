package designdoc

import "encoding/json"

// TextMembers are a text layer's: its words in spans of one font, size
// and colour each, and how they are set in their box (X, Y, Width,
// Height).
type TextMembers struct {
	// Text is the whole text, the spans' texts joined.
	Text string
	// Spans are the runs of the text: one for a layer that gives text,
	// each of spans otherwise; each has its font, size and colour, the
	// layer's where the span gives none.
	Spans []Span
	// Font, FontSize (points) and Color are the layer's, which spans
	// inherit.
	Font     string
	FontSize float64
	Color    Color
	// Align is left, center or right in the box's width; VAlign is top,
	// middle or bottom in its height.
	Align, VAlign string
	// LineHeight is the distance from a line's baseline to the next one,
	// a multiple of the largest size on the line; 0 is the font's own.
	LineHeight float64
	// LetterSpacing is added after every character, in thousandths of an
	// em of its size.
	LetterSpacing float64
	// Shrink sets the text at the largest size, at most its own, at which
	// it fits the box's width and height and MaxLines lines (0: any).
	Shrink   bool
	MaxLines int
	// Underline and Linethrough are the layer's, which spans inherit.
	Underline, Linethrough bool
	// Fabric sets the lines as fabric.js does (a fabric canvas's text):
	// each line 1.13 × its largest size × LineHeight below the one before,
	// its baseline 0.778 of 1.13 × that size below its top, whatever the
	// font's metrics; underlines and lines through at fabric's offsets
	// and thickness (a fifteenth of the layer's size).
	Fabric bool
	// NoWrap breaks lines only at "\n", whatever the width, which then
	// only aligns them (fabric's text and i-text).
	NoWrap bool
}

// Span is a run of one text layer's text in one style.
type Span struct {
	Text                   string
	Font                   string
	Size                   float64 // points
	Color                  Color
	Underline, Linethrough bool
}

var (
	textMembers = []string{"text", "spans", "font", "size", "color", "width", "height", "align", "valign",
		"line_height", "letter_spacing", "fit", "max_lines", "underline", "linethrough", "overprint"}
	spanMembers = []string{"text", "font", "size", "color", "underline", "linethrough"}
)

// DefaultFont is the font of text that names none.
const DefaultFont = "Go-Regular"

func (d *Document) text(l *Layer, m members) error {
	if err := d.textStyle(l, m); err != nil {
		return err
	}
	if err := d.textBox(l, m); err != nil {
		return err
	}
	return d.textRuns(l, m)
}

// textStyle reads the style spans inherit.
func (d *Document) textStyle(l *Layer, m members) error {
	var err error
	if l.Font, err = m.text("font", DefaultFont); err != nil {
		return err
	}
	if l.FontSize, err = d.requiredRanged(m, "size", fontSizeSpan); err != nil {
		return err
	}
	l.Color = Color{A: 255}
	if c, err := m.optionalColor("color"); err != nil {
		return err
	} else if c != nil {
		l.Color = *c
	}
	if l.Underline, err = m.boolean("underline"); err != nil {
		return err
	}
	if l.Linethrough, err = m.boolean("linethrough"); err != nil {
		return err
	}
	l.Overprint, err = m.boolean("overprint")
	return err
}

// textBox reads how the text is set in its box.
func (d *Document) textBox(l *Layer, m members) error {
	var err error
	if l.Width, err = d.ranged(m, "width", 0, reachSpan); err != nil {
		return err
	}
	if l.Height, err = d.ranged(m, "height", 0, extentSpan); err != nil {
		return err
	}
	if l.Align, err = m.choice("align", "left", "center", "right"); err != nil {
		return err
	}
	if l.VAlign, err = m.choice("valign", "top", "middle", "bottom"); err != nil {
		return err
	}
	if l.VAlign != "top" && l.Height == 0 {
		return errorf(m.pathOf("valign"), "needs height: the box the text is placed in")
	}
	if l.LineHeight, err = d.ranged(m, "line_height", 0, lineHeightSpan); err != nil {
		return err
	}
	if l.LetterSpacing, err = d.ranged(m, "letter_spacing", 0, letterSpan); err != nil {
		return err
	}
	return d.textFit(l, m)
}

// textFit reads fit and max_lines.
func (d *Document) textFit(l *Layer, m members) error {
	fit, err := m.choice("fit", "none", "shrink")
	if err != nil {
		return err
	}
	if l.MaxLines, err = m.whole("max_lines", 0, 1, maxLines); err != nil {
		return err
	}
	l.Shrink = fit == "shrink"
	switch {
	case l.MaxLines > 0 && !l.Shrink:
		return errorf(m.pathOf("max_lines"), `applies with fit "shrink": the size shrinks until the text fits so many lines`)
	case l.Shrink && l.Width == 0:
		return errorf(m.pathOf("fit"), "needs width: the box the text shrinks to fit")
	case l.Shrink && l.Height == 0 && l.MaxLines == 0:
		return errorf(m.pathOf("fit"), "needs height or max_lines: how much of the box the text may fill")
	}
	return nil
}

// textRuns reads text, or spans, into l.Spans.
func (d *Document) textRuns(l *Layer, m members) error {
	raw, hasSpans := m.get("spans")
	if !hasSpans {
		var err error
		if l.TextMembers.Text, err = m.text("text", ""); err != nil {
			return err
		}
		l.Spans = []Span{l.inherited(l.TextMembers.Text)}
		return checkTextSize(m.pathOf("text"), len(l.TextMembers.Text))
	}
	if m.has("text") {
		return errorf(m.pathOf("text"), "cannot be given with spans: the spans are the text")
	}
	list, err := array(raw, m.pathOf("spans"))
	if err != nil {
		return err
	}
	if len(list) == 0 || len(list) > maxSpans {
		return errorf(m.pathOf("spans"), "must hold 1 to %d spans, got %d", maxSpans, len(list))
	}
	for i, item := range list {
		s, err := d.span(l, item, m.pathOf("spans")+"["+itoa(i)+"]")
		if err != nil {
			return err
		}
		l.Spans = append(l.Spans, s)
		l.TextMembers.Text += s.Text
	}
	return checkTextSize(m.pathOf("spans"), len(l.TextMembers.Text))
}

func checkTextSize(path string, n int) error {
	if n > maxTextBytes {
		return errorf(path, "must be at most %d bytes of text, got %d", maxTextBytes, n)
	}
	return nil
}

// inherited is a span of text in the layer's own style.
func (l *Layer) inherited(text string) Span {
	return Span{Text: text, Font: l.Font, Size: l.FontSize, Color: l.Color, Underline: l.Underline, Linethrough: l.Linethrough}
}

func (d *Document) span(l *Layer, raw json.RawMessage, path string) (Span, error) {
	m, err := object(raw, path)
	if err != nil {
		return Span{}, err
	}
	if err := m.only("a span", spanMembers); err != nil {
		return Span{}, err
	}
	s := l.inherited("")
	if !m.has("text") {
		return s, errorf(m.pathOf("text"), "is required")
	}
	if s.Text, err = m.text("text", ""); err != nil {
		return s, err
	}
	if s.Font, err = m.text("font", l.Font); err != nil {
		return s, err
	}
	if s.Size, err = d.ranged(m, "size", l.FontSize, fontSizeSpan); err != nil {
		return s, err
	}
	if c, err := m.optionalColor("color"); err != nil {
		return s, err
	} else if c != nil {
		s.Color = *c
	}
	if m.has("underline") {
		if s.Underline, err = m.boolean("underline"); err != nil {
			return s, err
		}
	}
	if m.has("linethrough") {
		s.Linethrough, err = m.boolean("linethrough")
	}
	return s, err
}
