package render

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tdewolff/canvas"
	"github.com/tdewolff/canvas/text"

	"github.com/platen-print/platen/internal/designdoc"
)

// Text is set by Platen's own layout rather than canvas's text box, which
// has no letter spacing, no line height of a design's choosing, and no way
// to shrink text into its box: canvas shapes each piece of text (kerning,
// ligatures), and the layout places the pieces. The renderer and preflight
// share the layout, so a warning measures what prints.

// minShrinkPt is the smallest size fit "shrink" sets text at.
const minShrinkPt = 1.0

// piece is a run of one style's text between break opportunities: a
// word (or the part of one in that span and font), a run of spaces, or a
// line break.
type piece struct {
	style int
	text  string
	runes int
	kind  pieceKind
	// width is the piece's advance at the layer's own sizes, its letter
	// spacing included, in mm.
	width float64
}

type pieceKind int

const (
	wordPiece pieceKind = iota
	spacePiece
	breakPiece
)

// textStyle is a span's text in one font (its own, or the fallback font
// that has the characters its own lacks) and what it measures at the
// layer's sizes.
type textStyle struct {
	span    designdoc.Span
	font    *canvas.Font
	face    *canvas.FontFace // at the span's own size
	spacing float64          // letter spacing, mm a character
}

// textLine is one laid-out line: its pieces and where it sits.
type textLine struct {
	pieces []piece
	width  float64 // without its last character's letter spacing
	// top is the line box's top, baseline its baseline, both from the
	// layer's y, in mm.
	top, baseline float64
	height        float64
}

// textLayout is a text layer set in lines at scale times its sizes.
type textLayout struct {
	styles []textStyle
	lines  []textLine
	// runs are the runs as measured, shaped at the layer's own sizes,
	// which a line holding a whole run draws as they are.
	runs map[runKey]*canvas.Text
	// missing are the characters no font of the chain has, which are
	// left out.
	missing []rune
	scale   float64
	width   float64 // the widest line
	height  float64 // the lines' boxes, top to bottom
	fits    bool    // every line within the box's width (and height, lines)
}

// layoutText sets l's text: at its own sizes, or, with fit "shrink", at
// the largest scale of them at which it fits its box.
func layoutText(p page, l designdoc.Layer) (*textLayout, error) {
	styles, pieces, runs, missing, err := splitText(p, l)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 && !p.allowMissing {
		return nil, missingError(p, l, missing)
	}
	boxW, boxH := p.doc.ToMM(l.Width), p.doc.ToMM(l.Height)
	t := setLines(styles, pieces, l, boxW, boxH, 1)
	t.missing, t.runs = missing, runs
	if !l.Shrink || t.fits {
		return t, nil
	}
	lo, hi := minShrinkScale(l), 1.0
	best := setLines(styles, pieces, l, boxW, boxH, lo)
	best.missing = missing
	if !best.fits {
		return best, nil
	}
	// The largest scale that fits, to a millionth of itself: a long line
	// set a thousandth too small ends visibly short of its box.
	for hi-lo > 1e-6*hi {
		mid := (lo + hi) / 2
		if t := setLines(styles, pieces, l, boxW, boxH, mid); t.fits {
			t.missing = missing
			lo, best = mid, t
		} else {
			hi = mid
		}
	}
	return best, nil
}

// minShrinkScale is the scale that sets the layer's largest span at
// minShrinkPt.
func minShrinkScale(l designdoc.Layer) float64 {
	largest := 0.0
	for _, s := range l.Spans {
		largest = math.Max(largest, s.Size)
	}
	return math.Min(1, minShrinkPt/largest)
}

// splitText cuts the layer's spans into pieces (words, spaces, line
// breaks) of one font each, measured: each character in the span's font,
// or, where that font lacks it, in the first font of the fallback chain
// that has it. Characters no font has are left out and returned.
func splitText(p page, l designdoc.Layer) ([]textStyle, []piece, map[runKey]*canvas.Text, []rune, error) {
	s := &splitter{p: p, l: l, index: map[styleKey]int{}, runs: map[runKey]*canvas.Text{}}
	for i, span := range l.Spans {
		if err := s.span(i, span); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	return s.styles, s.pieces, s.runs, s.missing, nil
}

// runKey names a run: its style and text.
type runKey struct {
	style int
	text  string
}

// splitter is splitText's state.
type splitter struct {
	p       page
	l       designdoc.Layer
	styles  []textStyle
	index   map[styleKey]int
	pieces  []piece
	runs    map[runKey]*canvas.Text
	missing []rune
}

type styleKey struct {
	span int
	font *canvas.Font
}

func (s *splitter) span(i int, span designdoc.Span) error {
	own, err := s.p.fonts.font(span.Font)
	if err != nil {
		return err
	}
	// The span's own style exists even when it has no text: an empty line
	// takes its height from it.
	s.style(i, span, own)
	var run strings.Builder
	runFont := own
	flush := func() {
		if run.Len() > 0 {
			s.addRun(s.style(i, span, runFont), run.String())
			run.Reset()
		}
	}
	prev := own
	for _, r := range span.Text {
		kind := kindOf(r)
		font := own
		switch {
		case kind == breakPiece:
			flush()
			s.pieces = append(s.pieces, piece{style: s.style(i, span, own), text: "\n", kind: breakPiece})
			continue
		case kind == spacePiece:
		case invisible(r):
			font = prev // a variation selector or joiner goes with the character before it
		case own.GlyphIndex(r) == 0:
			if font, err = s.fallbackFor(r); err != nil {
				return err
			}
		}
		if font == nil {
			s.noteMissing(r)
			continue
		}
		if font != runFont {
			flush()
			runFont = font
		}
		run.WriteRune(r)
		prev = font
	}
	flush()
	return nil
}

// fallbackFor is the first font of the chain that has r, nil when none.
func (s *splitter) fallbackFor(r rune) (*canvas.Font, error) {
	chain, err := s.p.fonts.chain()
	if err != nil {
		return nil, err
	}
	for _, f := range chain {
		if f.font.GlyphIndex(r) != 0 {
			return f.font, nil
		}
	}
	return nil, nil
}

func (s *splitter) noteMissing(r rune) {
	for _, m := range s.missing {
		if m == r {
			return
		}
	}
	s.missing = append(s.missing, r)
}

// style is the index of the style of span i in font, made when first
// needed.
func (s *splitter) style(i int, span designdoc.Span, font *canvas.Font) int {
	key := styleKey{span: i, font: font}
	n, ok := s.index[key]
	if !ok {
		n = len(s.styles)
		s.index[key] = n
		face := font.Face(span.Size, blackLinePaint(span.Color, s.l.Opacity, s.l.Overprint))
		em := span.Size
		if s.l.Fabric {
			em = s.l.FontSize // fabric spaces letters by the object's size, whatever the character's
		}
		s.styles = append(s.styles, textStyle{span: span, font: font, face: face,
			spacing: s.l.LetterSpacing / 1000 * em / ptPerMM})
	}
	return n
}

// addRun cuts text, a run of one style without line breaks, into words
// and spaces, measured from one shaping of the whole run, which is kept
// for drawing: shaping is most of text's cost, and a word's advance is
// the sum of its glyphs'.
func (s *splitter) addRun(style int, text string) {
	st := s.styles[style]
	shaped := canvas.NewTextLine(st.face, text, canvas.Left)
	s.runs[runKey{style, text}] = shaped
	glyphs := runGlyphs(shaped)
	g := 0
	for start := 0; start < len(text); {
		kind := kindOf(rune(text[start]))
		end := start
		for end < len(text) {
			r, n := utf8.DecodeRuneInString(text[end:])
			if kindOf(r) != kind {
				break
			}
			end += n
		}
		var advance int32
		for ; g < len(glyphs) && int(glyphs[g].Cluster) < end; g++ {
			advance += glyphs[g].XAdvance
		}
		pc := piece{style: style, text: text[start:end], runes: utf8.RuneCountInString(text[start:end]), kind: kind}
		pc.width = st.face.MmPerEm*float64(advance) + st.spacing*float64(pc.runes)
		s.pieces = append(s.pieces, pc)
		start = end
	}
}

// runGlyphs are a shaped line's glyphs in the order of its text, their
// clusters counted from its start (canvas shapes each script's part of a
// line on its own).
func runGlyphs(line *canvas.Text) []text.Glyph {
	var out []text.Glyph
	offset := 0
	line.WalkSpans(func(_, _ float64, span canvas.TextSpan) {
		for _, g := range span.Glyphs {
			g.Cluster += uint32(offset)
			out = append(out, g)
		}
		offset += len(span.Text)
	})
	return out
}

// kindOf says what kind of piece r belongs in.
func kindOf(r rune) pieceKind {
	switch r {
	case '\n':
		return breakPiece
	case ' ':
		return spacePiece
	}
	return wordPiece
}

// invisible reports whether r draws nothing of its own: a variation
// selector (the U+FE0F after an emoji) or a joiner.
func invisible(r rune) bool {
	return unicode.Is(unicode.Variation_Selector, r) || unicode.Is(unicode.Join_Control, r)
}

// missingError is the reason a text fails when no font has some of its
// characters.
func missingError(p page, l designdoc.Layer, missing []rune) error {
	var codes []string
	for _, r := range missing {
		codes = append(codes, fmt.Sprintf("U+%04X", r))
	}
	tried := []string{}
	for _, s := range l.Spans {
		if !slices.Contains(tried, s.Font) {
			tried = append(tried, s.Font)
		}
	}
	chain, _ := p.fonts.chain()
	for _, f := range chain {
		tried = append(tried, f.name)
	}
	return fmt.Errorf("no font has the characters %q (%s); fonts tried: %s",
		string(missing), strings.Join(codes, " "), strings.Join(tried, ", "))
}

// setLines breaks pieces into lines no wider than boxW (0: no box) at
// scale, and places them.
func setLines(styles []textStyle, pieces []piece, l designdoc.Layer, boxW, boxH, scale float64) *textLayout {
	t := &textLayout{styles: styles, scale: scale, fits: true}
	var line textLine
	for i := 0; i < len(pieces); {
		if pieces[i].kind == breakPiece {
			t.addLine(line)
			line, i = textLine{}, i+1
			continue
		}
		// A word, with the spaces before it, and every piece of it.
		j, w := i, 0.0
		for j < len(pieces) && pieces[j].kind == spacePiece {
			w += pieces[j].width * scale
			j++
		}
		k, word := j, 0.0
		for k < len(pieces) && pieces[k].kind == wordPiece {
			word += pieces[k].width * scale
			k++
		}
		if boxW > 0 && !l.NoWrap && len(line.pieces) > 0 && k > j && line.width+w+word > boxW+1e-9 {
			t.addLine(line)
			line, i = textLine{}, j // the spaces at the break are dropped
			continue
		}
		line.pieces = append(line.pieces, pieces[i:k]...)
		line.width += w + word
		i = k
	}
	t.addLine(line)
	t.place(l, boxW, boxH)
	return t
}

func (t *textLayout) addLine(line textLine) {
	// Spaces at a line's end print nothing and take no width.
	for len(line.pieces) > 0 && line.pieces[len(line.pieces)-1].kind == spacePiece {
		line.width -= line.pieces[len(line.pieces)-1].width * t.scale
		line.pieces = line.pieces[:len(line.pieces)-1]
	}
	if n := len(line.pieces); n > 0 {
		line.width -= t.styles[line.pieces[n-1].style].spacing * t.scale
	}
	t.lines = append(t.lines, line)
}

// place sets each line's box below the one before it, as line_height
// says, then moves them all as valign says; and notes whether they fit.
func (t *textLayout) place(l designdoc.Layer, boxW, boxH float64) {
	if l.Fabric {
		t.placeAsFabric(l)
		return
	}
	y := 0.0
	for i := range t.lines {
		line := &t.lines[i]
		ascent, descent, gap, size := t.lineMetrics(*line)
		line.top, line.height = y, ascent+descent+gap
		line.baseline = y + ascent
		if l.LineHeight > 0 {
			// As CSS: the line box is line_height times the size, the
			// glyphs' height centred in it.
			line.height = l.LineHeight * size
			line.baseline = y + (line.height-(ascent+descent))/2 + ascent
		}
		y += line.height
		t.width = math.Max(t.width, line.width)
		if boxW > 0 && line.width > boxW+1e-6 {
			t.fits = false
		}
	}
	t.height = y
	if boxH > 0 && t.height > boxH+1e-6 || l.MaxLines > 0 && len(t.lines) > l.MaxLines {
		t.fits = false
	}
	shift := 0.0
	switch l.VAlign {
	case "middle":
		shift = (boxH - t.height) / 2
	case "bottom":
		shift = boxH - t.height
	}
	for i := range t.lines {
		t.lines[i].top += shift
		t.lines[i].baseline += shift
	}
}

// Fabric's text constants: a line is designdoc.FabricSizeMult times its
// largest size high (before lineHeight), its baseline fabricSizeFraction
// of that above its bottom; decorations are a fifteenth of the object's size
// thick, an underline's top fabricUnderline of the character's size below
// the baseline, a line through's middle fabricLinethrough above it.
const (
	fabricSizeFraction = 0.222
	fabricThickness    = 66.667 / 1000
	fabricUnderline    = 0.1
	fabricLinethrough  = 0.28167
)

// placeAsFabric sets the lines as fabric.js's Text does
// (_renderTextCommon): from sizes alone, whatever the fonts' metrics.
func (t *textLayout) placeAsFabric(l designdoc.Layer) {
	y := 0.0
	for i := range t.lines {
		line := &t.lines[i]
		size := l.FontSize / ptPerMM * t.scale
		if len(line.pieces) > 0 {
			_, _, _, size = t.lineMetrics(*line)
		}
		h := size * designdoc.FabricSizeMult
		line.top, line.baseline = y, y+h*(1-fabricSizeFraction)
		line.height = h * l.LineHeight
		if i == len(t.lines)-1 {
			line.height = h
		}
		y += line.height
		t.width = math.Max(t.width, line.width)
	}
	t.height = y
}

// lineMetrics are a line's largest ascent, descent and line gap, and its
// largest size in mm, at the layout's scale; an empty line has the
// metrics of the span it is in.
func (t *textLayout) lineMetrics(line textLine) (ascent, descent, gap, size float64) {
	spans := []int{}
	for _, pc := range line.pieces {
		spans = append(spans, pc.style)
	}
	if len(spans) == 0 {
		spans = append(spans, t.emptyLineSpan(line))
	}
	for _, i := range spans {
		m := t.styles[i].face.Metrics()
		ascent = math.Max(ascent, m.Ascent*t.scale)
		descent = math.Max(descent, m.Descent*t.scale)
		gap = math.Max(gap, m.LineGap*t.scale)
		size = math.Max(size, t.styles[i].span.Size/ptPerMM*t.scale)
	}
	return ascent, descent, gap, size
}

// emptyLineSpan is the style an empty line takes its height from: the
// last one that has text on a line before it, or the first span's own.
func (t *textLayout) emptyLineSpan(textLine) int {
	for i := len(t.lines) - 1; i >= 0; i-- {
		if n := len(t.lines[i].pieces); n > 0 {
			return t.lines[i].pieces[n-1].style
		}
	}
	return 0
}

// lineX is where a line starts, from the layer's x: align places it in
// the box's width, or about x when there is no box.
func lineX(align string, boxW, lineW float64) float64 {
	switch {
	case align == "center" && boxW > 0:
		return (boxW - lineW) / 2
	case align == "center":
		return -lineW / 2
	case align == "right" && boxW > 0:
		return boxW - lineW
	case align == "right":
		return -lineW
	}
	return 0
}

// bounds is the set text's extent from the layer's x, y (before its
// rotation), in mm.
func (t *textLayout) bounds(l designdoc.Layer, boxW float64) box {
	x0, x1 := math.Inf(1), math.Inf(-1)
	for _, line := range t.lines {
		x := lineX(l.Align, boxW, line.width)
		x0, x1 = math.Min(x0, x), math.Max(x1, x+line.width)
	}
	if len(t.lines) == 0 || x1 < x0 {
		return box{}
	}
	top := t.lines[0].top
	return box{x: x0, y: top, w: x1 - x0, h: t.height}
}

// textRun is a line's consecutive pieces of one style: their text, its
// style and face (at the layout's scale), where it starts and its width.
type textRun struct {
	style       int
	s           textStyle
	face        *canvas.FontFace
	text        string
	x, baseline float64
	width       float64
}

// eachRun calls f for each run of the set text, its top-left corner at
// x, y.
func (t *textLayout) eachRun(l designdoc.Layer, x, y, boxW float64, f func(textRun)) {
	for _, line := range t.lines {
		cursor := x + lineX(l.Align, boxW, line.width)
		for i := 0; i < len(line.pieces); {
			j, width := i, 0.0
			var text strings.Builder
			for ; j < len(line.pieces) && line.pieces[j].style == line.pieces[i].style; j++ {
				text.WriteString(line.pieces[j].text)
				width += line.pieces[j].width * t.scale
			}
			s := t.styles[line.pieces[i].style]
			face := s.face
			if t.scale != 1 {
				face = s.font.Face(s.span.Size*t.scale, blackLinePaint(s.span.Color, l.Opacity, l.Overprint))
			}
			f(textRun{style: line.pieces[i].style, s: s, face: face, text: text.String(), x: cursor, baseline: y + line.baseline, width: width})
			cursor += width
			i = j
		}
	}
}

// draw paints the set text with its top-left corner at x, y: each run
// shaped once.
func (t *textLayout) draw(c *canvas.Context, l designdoc.Layer, x, y, boxW float64) {
	t.eachRun(l, x, y, boxW, func(r textRun) {
		if shaped, ok := t.runs[runKey{r.style, r.text}]; ok && t.scale == 1 && r.s.spacing == 0 {
			c.DrawText(r.x, r.baseline, shaped)
		} else {
			t.drawRun(c, r.face, r.s.spacing*t.scale, r.text, r.x, r.baseline)
		}
		t.decorate(c, l, r.s, r.face, r.x, r.baseline, r.width)
	})
}

// outline strokes the letters of the set text with l's stroke (a fabric
// canvas's outlined text): each run's glyphs as one path, where draw puts
// them.
func (t *textLayout) outline(c *canvas.Context, p page, l designdoc.Layer, x, y, boxW float64) {
	c.Push()
	defer c.Pop()
	c.ResetStyle()
	c.SetFillColor(canvas.Transparent)
	p.setStroke(c, l)
	t.eachRun(l, x, y, boxW, func(r textRun) {
		if strings.TrimSpace(r.text) != "" {
			c.DrawPath(r.x, r.baseline, runOutline(r.face, r.s.spacing*t.scale, r.text))
		}
	})
}

// runOutline is the outline of text's glyphs from its baseline's start,
// y down: whole, or, when letters are spaced, a cluster at a time where
// drawRun puts it.
func runOutline(face *canvas.FontFace, spacing float64, text string) *canvas.Path {
	if spacing == 0 {
		path, _ := face.ToPath(text)
		return path.Scale(1, -1)
	}
	out := &canvas.Path{}
	var advance int32
	drawn := -1
	for _, g := range face.Glyphs(text) {
		at := face.MmPerEm*float64(advance) + spacing*float64(utf8.RuneCountInString(text[:g.Cluster]))
		if int(g.Cluster) != drawn && strings.TrimSpace(g.Text) != "" {
			path, _ := face.ToPath(g.Text)
			out = out.Append(path.Scale(1, -1).Translate(at, 0))
			drawn = int(g.Cluster)
		}
		advance += g.XAdvance
	}
	return out
}

// drawRun draws text with its baseline at y: whole, where canvas keeps
// its kerning and ligatures, or, when letters are spaced, a cluster at a
// time, each where the run's shaping puts it plus the spacing of the
// characters before it.
func (t *textLayout) drawRun(c *canvas.Context, face *canvas.FontFace, spacing float64, text string, x, y float64) {
	if strings.TrimLeft(text, " ") == "" {
		return
	}
	if spacing == 0 {
		c.DrawText(x, y, canvas.NewTextLine(face, text, canvas.Left))
		return
	}
	var advance int32
	drawn := -1 // the cluster drawn last: a cluster of several glyphs is drawn once
	for _, g := range face.Glyphs(text) {
		at := x + face.MmPerEm*float64(advance) + spacing*float64(utf8.RuneCountInString(text[:g.Cluster]))
		if int(g.Cluster) != drawn && strings.TrimSpace(g.Text) != "" {
			c.DrawText(at, y, canvas.NewTextLine(face, g.Text, canvas.Left))
			drawn = int(g.Cluster)
		}
		advance += g.XAdvance
	}
}

// decorate draws a piece's underline and line through, as wide as its
// advance, from the font's own positions and thicknesses.
func (t *textLayout) decorate(c *canvas.Context, l designdoc.Layer, s textStyle, face *canvas.FontFace, x, baseline, width float64) {
	if !s.span.Underline && !s.span.Linethrough {
		return
	}
	fill := blackLinePaint(s.span.Color, l.Opacity, l.Overprint)
	bar := func(above, thickness float64) {
		c.Push()
		c.ResetStyle()
		c.SetFill(fill)
		c.SetStroke(canvas.Paint{})
		c.DrawPath(x, baseline-above, canvas.Rectangle(width, thickness))
		c.Pop()
	}
	if l.Fabric {
		size := s.span.Size / ptPerMM * t.scale
		thickness := l.FontSize / ptPerMM * t.scale * fabricThickness
		if s.span.Underline {
			bar(-fabricUnderline*size, thickness)
		}
		if s.span.Linethrough {
			bar(fabricLinethrough*size+thickness/2, thickness)
		}
		return
	}
	em, f := face.MmPerEm, s.font
	if s.span.Underline {
		thickness := em * float64(max(f.Post.UnderlineThickness, 1))
		bar(em*float64(f.Post.UnderlinePosition), thickness)
	}
	if s.span.Linethrough {
		thickness := em * float64(max(f.OS2.YStrikeoutSize, 1))
		bar(em*float64(f.OS2.YStrikeoutPosition), thickness)
	}
}
