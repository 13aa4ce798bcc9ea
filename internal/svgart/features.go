package svgart

import "sort"

// Decision is what svgart does with one SVG feature.
type Decision int

const (
	// Supported features are drawn as the SVG specification says.
	Supported Decision = iota
	// Ignored features change nothing on paper (metadata, editor data,
	// hints for screens) and are skipped without a word.
	Ignored
	// Refused features make Parse fail with a reason a shop can act on:
	// svgart cannot draw them faithfully, or they reach outside the file.
	Refused
)

func (d Decision) String() string {
	switch d {
	case Supported:
		return "supported"
	case Ignored:
		return "ignored"
	}
	return "refused"
}

// Kind says where a feature appears in a document.
type Kind int

const (
	// Element is an SVG element, named without brackets ("rect").
	Element Kind = iota
	// Property is an attribute or CSS property ("fill", "onclick"); a
	// presentation attribute and the CSS property of the same name are one
	// feature.
	Property
	// CSS is a part of a style sheet: an at-rule ("@import") or a selector
	// form.
	CSS
)

func (k Kind) String() string {
	switch k {
	case Element:
		return "element"
	case Property:
		return "property"
	}
	return "css"
}

// Feature is one row of the decision table.
type Feature struct {
	Kind     Kind
	Name     string
	Decision Decision
	// Allowed lists the values of a refused property that are harmless
	// (filter="none"): those are accepted and change nothing.
	Allowed []string
	// Note says how the feature is drawn, or, for a refused one, why and
	// what the shop can do instead: it is the reason Parse reports.
	Note string
}

// The notes shared by several rows.
const (
	noteText       = "text is not drawn: convert the text to outlines (paths) in your design program and upload the file again"
	noteAnimation  = "animation has no meaning on paper: remove the animation or export a static SVG"
	noteFilter     = "filter effects (blur, shadows, …) cannot be drawn as vectors: remove the effect, or expand it into plain shapes"
	noteFont       = "SVG fonts are not drawn: convert the text to outlines"
	noteScript     = "scripts are never run: remove the script"
	noteEvent      = "event handlers (on…) are scripts, which are never run: remove the attribute"
	noteConditions = "conditional processing (switch, systemLanguage, requiredFeatures) is not supported: keep only the branch you want printed"
	noteMarker     = "markers are not supported: expand the markers into paths (Inkscape: Path > Object to Path; Illustrator: Object > Expand)"
	noteMeta       = "metadata: not drawn"
	noteScreen     = "a hint for screens: no effect on paper"
	noteTextOnly   = "affects text only, and text is refused"
)

// features is the one table of decisions that Parse follows and the
// documentation cites (see Features). A feature that is not in the table
// is decided by its kind: an unknown SVG element is refused (svgart cannot
// know how to draw it), an unknown attribute or CSS property is ignored,
// as every SVG renderer ignores attributes it does not know, and every
// property that changes painting is listed here.
var features = []Feature{
	// Structure.
	{Element, "svg", Supported, nil, "the root: width, height, viewBox and preserveAspectRatio give its size and how it fits a box; a nested <svg> is refused (ungroup it)"},
	{Element, "g", Supported, nil, "a group: transform, opacity, clip-path and inherited styles apply to its children"},
	{Element, "defs", Supported, nil, "definitions: drawn only where referenced"},
	{Element, "symbol", Supported, nil, "drawn only through <use>, with its viewBox and preserveAspectRatio"},
	{Element, "use", Supported, nil, "draws a copy of a #fragment of the same file; each copy counts towards MaxExpandedElements"},
	{Element, "style", Supported, nil, "CSS with simple selectors (type, .class, #id, *, and compounds of these, in lists); other selectors and at-rules are refused"},
	// Shapes.
	{Element, "path", Supported, nil, "path data, through canvas.ParseSVGPath"},
	{Element, "rect", Supported, nil, "with rx/ry rounded corners"},
	{Element, "circle", Supported, nil, ""},
	{Element, "ellipse", Supported, nil, ""},
	{Element, "line", Supported, nil, ""},
	{Element, "polyline", Supported, nil, ""},
	{Element, "polygon", Supported, nil, ""},
	// Paint servers and clipping.
	{Element, "linearGradient", Supported, nil, "opaque stops only, spreadMethod pad, any gradientTransform"},
	{Element, "radialGradient", Supported, nil, "opaque stops only, spreadMethod pad, any gradientTransform, focal point fx/fy/fr"},
	{Element, "stop", Supported, nil, "offset, stop-color; stop-opacity below 1 is refused"},
	{Element, "clipPath", Supported, nil, "clipping is computed as geometry (path intersection), so the PDF needs no clipping support; clip-path on a clipPath or its children is refused"},
	// Ignorable.
	{Element, "title", Ignored, nil, noteMeta},
	{Element, "desc", Ignored, nil, noteMeta},
	{Element, "metadata", Ignored, nil, noteMeta},
	{Element, "view", Ignored, nil, noteScreen},
	{Element, "cursor", Ignored, nil, noteScreen},
	// Refused elements.
	{Element, "script", Refused, nil, noteScript},
	{Element, "foreignObject", Refused, nil, "foreign content (HTML inside SVG) cannot be drawn: remove it or convert it to paths"},
	{Element, "image", Refused, nil, "bitmaps inside an SVG are not drawn: an SVG logo must be all vectors. Upload the bitmap as an image layer instead, where its resolution is checked, or vectorise it"},
	{Element, "filter", Refused, nil, noteFilter},
	{Element, "mask", Refused, nil, "masks cannot be drawn faithfully: use a clipping path, or flatten the transparency in your design program"},
	{Element, "pattern", Refused, nil, "pattern fills are not supported: expand the pattern into shapes (Illustrator: Object > Expand)"},
	{Element, "marker", Refused, nil, noteMarker},
	{Element, "text", Refused, nil, noteText},
	{Element, "tspan", Refused, nil, noteText},
	{Element, "textPath", Refused, nil, noteText},
	{Element, "tref", Refused, nil, noteText},
	{Element, "altGlyph", Refused, nil, noteText},
	{Element, "font", Refused, nil, noteFont},
	{Element, "font-face", Refused, nil, noteFont},
	{Element, "glyph", Refused, nil, noteFont},
	{Element, "missing-glyph", Refused, nil, noteFont},
	{Element, "switch", Refused, nil, noteConditions},
	{Element, "a", Refused, nil, "links have no meaning on paper and point outside the file: ungroup the link's content"},
	{Element, "animate", Refused, nil, noteAnimation},
	{Element, "animateMotion", Refused, nil, noteAnimation},
	{Element, "animateTransform", Refused, nil, noteAnimation},
	{Element, "animateColor", Refused, nil, noteAnimation},
	{Element, "set", Refused, nil, noteAnimation},
	{Element, "mpath", Refused, nil, noteAnimation},
	{Element, "discard", Refused, nil, noteAnimation},
	{Element, "iframe", Refused, nil, "embedded documents cannot be drawn"},
	{Element, "video", Refused, nil, "video cannot be printed"},
	{Element, "audio", Refused, nil, "audio cannot be printed"},
	{Element, "canvas", Refused, nil, "a scripted bitmap cannot be printed"},
	{Element, "meshgradient", Refused, nil, "mesh gradients cannot be drawn: expand them (Illustrator: Object > Expand) or use linear/radial gradients"},
	{Element, "hatch", Refused, nil, "hatch paints are not supported: expand them into shapes"},
	{Element, "solidcolor", Refused, nil, "solidcolor paint servers are not supported: use a plain fill colour"},
	// Every fe… filter primitive is refused with the filter note (see lookup).

	// Properties that are drawn.
	{Property, "fill", Supported, nil, "colours in every CSS form, currentColor, none, url(#gradient) with an optional fallback colour"},
	{Property, "fill-opacity", Supported, nil, ""},
	{Property, "fill-rule", Supported, nil, "nonzero, evenodd"},
	{Property, "stroke", Supported, nil, "as fill"},
	{Property, "stroke-width", Supported, nil, ""},
	{Property, "stroke-opacity", Supported, nil, ""},
	{Property, "stroke-linecap", Supported, nil, "butt, round, square"},
	{Property, "stroke-linejoin", Supported, nil, "miter, round, bevel (miter-clip and arcs are refused)"},
	{Property, "stroke-miterlimit", Supported, nil, ""},
	{Property, "stroke-dasharray", Supported, nil, "dashes are cut by svgart (canvas Path.Dash) before stroking"},
	{Property, "stroke-dashoffset", Supported, nil, ""},
	{Property, "opacity", Supported, nil, "on one painted shape it is multiplied into its colour; on a group, overlapping opaque shapes are knocked out of each other (geometry) so the group fades as one; translucent shapes overlapping inside a translucent group, and translucent gradients, are refused"},
	{Property, "color", Supported, nil, "the currentColor value"},
	{Property, "display", Supported, nil, "none hides the element and its children"},
	{Property, "visibility", Supported, nil, "hidden and collapse hide a shape, inherited"},
	{Property, "clip-path", Supported, nil, "url(#clipPath) only; basic shapes (circle(), inset()) are refused"},
	{Property, "clip-rule", Supported, nil, "nonzero, evenodd"},
	{Property, "transform", Supported, nil, "matrix, translate, scale, rotate, skewX, skewY, in lists"},
	{Property, "style", Supported, nil, "inline CSS declarations"},
	{Property, "class", Supported, nil, "for <style> selectors"},
	{Property, "id", Supported, nil, "for #fragment references and selectors"},
	{Property, "href", Supported, nil, "#fragment only (xlink:href too); anything else is an external reference and refused"},
	{Property, "stop-color", Supported, nil, ""},
	{Property, "stop-opacity", Supported, nil, "1 only (below 1 is refused): canvas's PDF writer draws gradients without transparency"},
	{Property, "spreadMethod", Supported, nil, "pad only (reflect and repeat are refused)"},
	{Property, "overflow", Supported, nil, "hidden (the default) clips a <symbol> to its viewport; visible does not"},
	// Properties that change nothing on paper.
	{Property, "shape-rendering", Ignored, nil, noteScreen},
	{Property, "color-rendering", Ignored, nil, noteScreen},
	{Property, "image-rendering", Ignored, nil, noteScreen},
	{Property, "text-rendering", Ignored, nil, noteScreen},
	{Property, "color-interpolation", Ignored, nil, "gradients are interpolated in sRGB, the default"},
	{Property, "pointer-events", Ignored, nil, noteScreen},
	{Property, "cursor", Ignored, nil, noteScreen},
	{Property, "enable-background", Ignored, nil, "an obsolete hint for filters, which are refused"},
	{Property, "isolation", Ignored, nil, "blending is refused, so isolation changes nothing"},
	{Property, "font-family", Ignored, nil, noteTextOnly},
	{Property, "font-size", Ignored, nil, noteTextOnly},
	{Property, "font-weight", Ignored, nil, noteTextOnly},
	{Property, "font-style", Ignored, nil, noteTextOnly},
	{Property, "text-anchor", Ignored, nil, noteTextOnly},
	{Property, "letter-spacing", Ignored, nil, noteTextOnly},
	{Property, "word-spacing", Ignored, nil, noteTextOnly},
	{Property, "dominant-baseline", Ignored, nil, noteTextOnly},
	// Refused properties.
	{Property, "filter", Refused, []string{"none"}, noteFilter},
	{Property, "mask", Refused, []string{"none"}, "masks cannot be drawn faithfully: use a clipping path, or flatten the transparency in your design program"},
	{Property, "marker", Refused, []string{"none"}, noteMarker},
	{Property, "marker-start", Refused, []string{"none"}, noteMarker},
	{Property, "marker-mid", Refused, []string{"none"}, noteMarker},
	{Property, "marker-end", Refused, []string{"none"}, noteMarker},
	{Property, "mix-blend-mode", Refused, []string{"normal"}, "blend modes are not supported: flatten the transparency in your design program"},
	{Property, "vector-effect", Refused, []string{"none"}, "non-scaling strokes depend on the screen: expand the strokes (Object > Expand / Stroke to Path)"},
	{Property, "paint-order", Refused, []string{"normal", "fill", "fill stroke", "fill stroke markers"}, "painting the stroke under the fill is not supported: expand the stroke into a shape"},
	{Property, "requiredFeatures", Refused, nil, noteConditions},
	{Property, "requiredExtensions", Refused, nil, noteConditions},
	{Property, "systemLanguage", Refused, nil, noteConditions},
	{Property, "on*", Refused, nil, noteEvent},

	// Style sheets.
	{CSS, "@import", Refused, nil, "style sheets from outside the file are never loaded: put the rules in the file's own <style>"},
	{CSS, "@font-face", Ignored, nil, noteTextOnly},
	{CSS, "@charset", Ignored, nil, "the file is read as UTF-8"},
	{CSS, "@media", Refused, nil, "media queries are not supported: keep only the rules you want printed"},
	{CSS, "@*", Refused, nil, "at-rules other than @charset and @font-face are not supported"},
	{CSS, "selectors", Supported, nil, "type, .class, #id, * and compounds (path.logo), in comma lists, with CSS specificity; !important is read as a normal declaration"},
	{CSS, "complex selectors", Refused, nil, "descendant/child combinators, attribute selectors and pseudo-classes are not supported: use classes"},
	{CSS, "url()", Refused, nil, "only #fragment references are followed: anything else would load from outside the file"},
}

// Features returns a copy of the decision table, sorted by kind and name,
// for documentation and for callers that list what is supported.
func Features() []Feature {
	out := append([]Feature(nil), features...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// byKey indexes the table by kind and name.
var byKey = func() map[Kind]map[string]*Feature {
	m := map[Kind]map[string]*Feature{Element: {}, Property: {}, CSS: {}}
	for i := range features {
		f := &features[i]
		m[f.Kind][f.Name] = f
	}
	return m
}()

// unknownElement is the row an SVG element gets when it is not in the
// table: svgart cannot know how to draw it.
var unknownElement = Feature{Element, "", Refused, nil, "this element is not supported: convert it to plain shapes and paths"}

// elementFeature is the decision for an SVG element.
func elementFeature(name string) *Feature {
	if f, ok := byKey[Element][name]; ok {
		return f
	}
	if len(name) > 2 && name[:2] == "fe" { // feGaussianBlur, feOffset, …
		return byKey[Element]["filter"]
	}
	return &unknownElement
}

// propertyFeature is the decision for an attribute or CSS property; nil
// for one the table does not list (it is ignored).
func propertyFeature(name string) *Feature {
	if f, ok := byKey[Property][name]; ok {
		return f
	}
	if len(name) > 2 && name[:2] == "on" {
		return byKey[Property]["on*"]
	}
	return nil
}

// allows reports whether a refused property's value is one of the
// harmless ones.
func (f *Feature) allows(value string) bool {
	for _, v := range f.Allowed {
		if v == value {
			return true
		}
	}
	return false
}
