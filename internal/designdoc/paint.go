package designdoc

import (
	"encoding/json"
	"math"
)

// Gradient is a fill that runs from colour to colour across the layer's
// box: along a line at Angle, or out from a centre.
type Gradient struct {
	Radial bool
	// Angle (linear) is in degrees: 0 runs from the box's left edge to its
	// right, 90 from its top to its bottom; the first and last stops fall
	// on the box's corners, as in CSS.
	Angle float64
	// CX, CY (radial) are the centre, as fractions of the box's width and
	// height; R is the radius at which the last stop falls, a fraction of
	// the box's longer side.
	CX, CY, R float64
	// Points, when set, place the gradient in the coordinates of the
	// layer's path, in the document's unit: a linear one from x1, y1 to
	// x2, y2, a radial one from the circle x1, y1, r1 to x2, y2, r2 (as
	// canvas's createRadialGradient). Only a fabric canvas sets them.
	Points *[6]float64
	Stops  []Stop
}

// Stop is a gradient's colour at Offset, from 0 to 1 along it.
type Stop struct {
	Offset float64
	Color  Color
}

var (
	linearMembers = []string{"angle", "stops"}
	radialMembers = []string{"cx", "cy", "r", "stops"}
)

// fill reads a fill: a colour, or {"linear": …} or {"radial": …}.
func (d *Document) fill(m members, name string) (*Color, *Gradient, error) {
	raw, ok := m.get(name)
	if !ok {
		return nil, nil, nil
	}
	if raw[0] == '"' {
		c, err := m.optionalColor(name)
		return c, nil, err
	}
	outer, err := object(raw, m.pathOf(name))
	if err != nil || len(outer.m) != 1 || !(outer.has("linear") || outer.has("radial")) {
		return nil, nil, errorf(m.pathOf(name), `must be a colour, or a gradient: {"linear": {"angle": 0, "stops": [[0, "#ffffff"], [1, "#000000"]]}} or {"radial": {"stops": […]}}`)
	}
	g := &Gradient{CX: 0.5, CY: 0.5, R: 0.5}
	kind := "linear"
	if outer.has("radial") {
		kind, g.Radial = "radial", true
	}
	inner, err := object(outer.m[kind], outer.pathOf(kind))
	if err != nil {
		return nil, nil, err
	}
	if err := d.gradient(g, inner); err != nil {
		return nil, nil, err
	}
	return nil, g, nil
}

func (d *Document) gradient(g *Gradient, m members) error {
	known, what := linearMembers, "a linear gradient"
	if g.Radial {
		known, what = radialMembers, "a radial gradient"
	}
	if err := m.only(what, known); err != nil {
		return err
	}
	var err error
	if g.Radial {
		if g.CX, err = d.ranged(m, "cx", 0.5, unitSpan); err != nil {
			return err
		}
		if g.CY, err = d.ranged(m, "cy", 0.5, unitSpan); err != nil {
			return err
		}
		if g.R, err = d.ranged(m, "r", 0.5, span{max: 10, above: true}); err != nil {
			return err
		}
	} else if g.Angle, err = m.number("angle", 0); err != nil {
		return err
	}
	g.Angle = normalDegrees(g.Angle)
	raw, ok := m.get("stops")
	if !ok {
		return errorf(m.pathOf("stops"), "is required: [[0, \"#ffffff\"], [1, \"#000000\"]]")
	}
	g.Stops, err = stops(raw, m.pathOf("stops"))
	return err
}

// stops reads [[offset, colour], …]: 2 to maxStops, offsets from 0 to 1
// in order, colours opaque, and inks a PDF shading can hold together.
func stops(raw json.RawMessage, path string) ([]Stop, error) {
	list, err := array(raw, path)
	if err != nil {
		return nil, err
	}
	if len(list) < 2 || len(list) > maxStops {
		return nil, errorf(path, "must hold 2 to %d stops, got %d", maxStops, len(list))
	}
	out := make([]Stop, len(list))
	for i, item := range list {
		if out[i], err = stop(item, path+"["+itoa(i)+"]"); err != nil {
			return nil, err
		}
		if i > 0 && out[i].Offset < out[i-1].Offset {
			return nil, errorf(path+"["+itoa(i)+"]", "comes before the stop above it: offsets must not decrease")
		}
	}
	return out, checkStopInks(out, path)
}

func stop(raw json.RawMessage, path string) (Stop, error) {
	pair, err := array(raw, path)
	const want = `must be [offset, colour], the offset from 0 to 1: [0.5, "#ff0000"]`
	if err != nil || len(pair) != 2 {
		return Stop{}, errorf(path, want)
	}
	var offset float64
	var colour string
	if json.Unmarshal(pair[0], &offset) != nil || json.Unmarshal(pair[1], &colour) != nil || math.IsNaN(offset) || offset < 0 || offset > 1 {
		return Stop{}, errorf(path, "%s, got %s", want, abbreviate(raw))
	}
	c, msg := parseColour(colour)
	if msg != "" {
		return Stop{}, errorf(path, "%s", msg)
	}
	if c.A != 255 {
		return Stop{}, errorf(path, "must be opaque, got %q: give the layer an opacity instead", colour)
	}
	return Stop{Offset: offset, Color: c}, nil
}

// checkStopInks refuses stops a shading cannot mix: a spot colour with
// anything but tints of itself.
func checkStopInks(list []Stop, path string) error {
	spot := ""
	for _, s := range list {
		if s.Color.Ink != nil && s.Color.Ink.Spot != "" {
			spot = s.Color.Ink.Spot
		}
	}
	if spot == "" {
		return nil
	}
	for _, s := range list {
		if s.Color.Ink == nil || s.Color.Ink.Spot != spot {
			return errorf(path, "mixes the spot colour %q with other colours: a gradient of a spot colour runs between tints of it alone", spot)
		}
	}
	return nil
}

// CMYK reports whether the gradient is printed in process inks: when any
// stop is a cmyk() colour (its sRGB stops then convert as cmykOf says).
func (g *Gradient) CMYK() bool {
	for _, s := range g.Stops {
		if s.Color.Ink != nil && s.Color.Ink.Spot == "" {
			return true
		}
	}
	return false
}

// Spot is the spot colour the gradient is a tint ramp of, "" for none.
func (g *Gradient) Spot() string {
	if ink := g.Stops[0].Color.Ink; ink != nil {
		return ink.Spot
	}
	return ""
}

// ProcessInks is a stop's colour in process inks: its cmyk() amounts, or
// an sRGB colour by the simple conversion (black is 100 % K, white no
// ink at all).
func (s Stop) ProcessInks() [4]float64 {
	if s.Color.Ink != nil && s.Color.Ink.Spot == "" {
		return s.Color.Ink.CMYK
	}
	r, g, b := float64(s.Color.R)/255, float64(s.Color.G)/255, float64(s.Color.B)/255
	k := 1 - math.Max(r, math.Max(g, b))
	if k >= 1 {
		return [4]float64{0, 0, 0, 1}
	}
	return [4]float64{(1 - r - k) / (1 - k), (1 - g - k) / (1 - k), (1 - b - k) / (1 - k), k}
}
