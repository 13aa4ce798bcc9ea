// Package svgart reads a shop's SVG logo and draws it into a print PDF as
// vector art: filled and stroked paths on a *canvas.Context, never a
// raster. What it cannot draw faithfully it refuses, with an *Error that
// names the element (and line) and says what the shop can do instead.
//
// # Using it
//
//	art, err := svgart.Parse(data)      // refuse early, at upload
//	size := art.Size()                   // intrinsic size in mm, and Aspect()
//	art.Draw(c, x, y, w, h)              // the box is the SVG's viewport
//	art.DrawStretched(c, x, y, w, h)     // viewBox stretched to the box ("fill")
//
// Draw places the viewBox in the box as the SVG's own preserveAspectRatio
// says (centred and fitted by default), which is how a browser shows an
// SVG image sized to a box, and so what the designer saw. A layer that
// covers or contains computes its box from Size and draws into it.
//
// # What is drawn, ignored and refused
//
// One table, Features (features.go), holds every decision; Parse follows
// it and this documentation cites it. In short: shapes, paths, groups,
// use/defs/symbol, transforms, CSS colours, fills and strokes (caps,
// joins, miter limits, dashes), opacity, linear and radial gradients and
// clip paths are drawn; title, desc, metadata and editor data (Inkscape,
// Illustrator namespaces) are ignored; scripts and event handlers,
// foreignObject, embedded bitmaps, filters, masks, patterns, markers,
// animation, switch, links, text and SVG fonts, external references,
// @import and complex CSS selectors are refused.
//
// Decisions worth knowing:
//
//   - Text is refused ("convert the text to outlines"). A logo names its
//     own fonts; Platen has the Go fonts only, and a substitute would
//     change the logo. Shops and print designers outline logo text as a
//     matter of course.
//   - An embedded bitmap (<image>, data: PNG/JPEG) is refused: an SVG
//     logo must be all vectors, and a bitmap belongs in an image layer,
//     where Platen checks its resolution and decodes it under its own
//     limits. Any other reference that leaves the file is refused.
//   - Clipping and group opacity are computed as geometry (canvas's path
//     intersection), so the result is plain paths that every canvas
//     renderer prints alike: canvas's Renderer interface has no clip or
//     transparency group. Group opacity flattens the group into disjoint
//     pieces (a translucent flat colour over another becomes their
//     blend). Every intersection is bounded first (MaxCrossingPairs) and
//     guarded against canvas panicking, which it did on hostile input.
//   - Gradients must be opaque (stops, fill-opacity, group opacity):
//     third_party/canvaspdf writes shadings without alpha (a gradient takes
//     only the opacity of its whole layer).
//   - Dashes are cut by svgart before stroking (canvas's renderers
//     disagree on dash units).
//
// # Why not canvas.ParseSVG
//
// canvas has ParseSVG (svg.go). On this package's fixtures
// (testdata/logos) it drew 14–49% of the pixels of most logos
// differently from rsvg-convert (no clipPath, use/symbol, group opacity,
// preserveAspectRatio, elliptical rx/ry, objectBoundingBox gradients),
// refused "rgb(240 200 0)", and panics when a font-family is not
// installed. svgart parses with encoding/xml and builds paths with
// canvas.ParseSVGPath and canvas's shapes instead; svgart draws the same
// fixtures within 0.5% of rsvg-convert's pixels (fidelity_test.go).
//
// # Limits
//
// Parse refuses past MaxInputBytes (10 MiB), MaxElements, MaxDepth,
// MaxExpandedElements (<use> copies counted), MaxPathCommands,
// MaxGeometryCommands, MaxCrossingPairs, MaxKnockoutShapes, MaxStyleWork
// and MaxReferenceDepth; limits_test.go logs how fast each refusal is.
package svgart
