package sfntcheck

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Composite glyph component flags (OpenType glyf table).
const (
	argsAreWords   = 0x0001
	haveScale      = 0x0008
	moreComponents = 0x0020
	haveXYScale    = 0x0040
	haveTwoByTwo   = 0x0080
)

// glyphState is what the walk knows of one glyph.
type glyphState uint8

const (
	unseen glyphState = iota
	visiting
	done
)

// expanded is a glyph's size once its components are expanded, and the
// walk's state for it: 8 bytes a glyph, since a font may have 65,535.
// Sizes are refused before they could overflow: points past 65,535 and
// components past 4,096 are refused, so a sum of two fits.
type expanded struct {
	points     uint32
	components uint16
	depth      uint8
	state      glyphState
}

// glyfWalk measures every glyph of a glyf table once, each composite from
// its components' measures.
type glyfWalk struct {
	glyf  []byte
	loca  func(id int) (start, end uint32)
	count int // the glyphs loca describes
	size  []expanded
}

// checkGlyf walks every glyph the loca table describes: the font library
// outlines any of them a cmap names, numGlyphs or not.
func checkGlyf(tables map[string][]byte) error {
	w, err := newGlyfWalk(tables)
	if err != nil {
		return err
	}
	for id := range w.count {
		_, err := w.measure(id, 0)
		if errors.Is(err, errTooDeep) {
			return fmt.Errorf("glyph %d nests composite glyphs more than %d deep; at most %d are allowed", id, MaxComponentDepth, MaxComponentDepth)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// errTooDeep stops a walk that has gone deeper than any glyph may nest,
// whatever the glyphs below: so that a chain of thousands of composites,
// none measured yet, does not recurse thousands deep.
var errTooDeep = errors.New("too deep")

func newGlyfWalk(tables map[string][]byte) (*glyfWalk, error) {
	head, maxp, loca := tables["head"], tables["maxp"], tables["loca"]
	switch {
	case len(head) < 54:
		return nil, unreadable("its head table is missing or too short")
	case len(maxp) < 6:
		return nil, unreadable("its maxp table is missing or too short")
	}
	numGlyphs := int(binary.BigEndian.Uint16(maxp[4:]))
	w := &glyfWalk{glyf: tables["glyf"]}
	switch format := int16(binary.BigEndian.Uint16(head[50:])); format {
	case 0:
		w.count = len(loca)/2 - 1
		w.loca = func(id int) (uint32, uint32) {
			return 2 * uint32(binary.BigEndian.Uint16(loca[2*id:])), 2 * uint32(binary.BigEndian.Uint16(loca[2*id+2:]))
		}
	case 1:
		w.count = len(loca)/4 - 1
		w.loca = func(id int) (uint32, uint32) {
			return binary.BigEndian.Uint32(loca[4*id:]), binary.BigEndian.Uint32(loca[4*id+4:])
		}
	default:
		return nil, unreadable("its head table gives the loca format %d, which is neither 0 nor 1", format)
	}
	if w.count < numGlyphs {
		return nil, unreadable("its loca table locates %d glyphs, fewer than the %d maxp counts", max(w.count, 0), numGlyphs)
	}
	w.size = make([]expanded, w.count)
	return w, nil
}

// measure is glyph id's expanded size, refusing it past the bounds;
// level is how many composites above it the walk is.
func (w *glyfWalk) measure(id, level int) (expanded, error) {
	if level > MaxComponentDepth {
		return expanded{}, errTooDeep
	}
	if id >= w.count {
		return expanded{}, unreadable("a composite glyph refers to glyph %d, which the font does not have", id)
	}
	switch w.size[id].state {
	case done:
		return w.size[id], nil
	case visiting:
		return expanded{}, fmt.Errorf("glyph %d contains itself through its composite components", id)
	}
	w.size[id].state = visiting
	size, err := w.expand(id, level)
	if err != nil {
		return expanded{}, err
	}
	if err := size.within(id); err != nil {
		return expanded{}, err
	}
	size.state = done
	w.size[id] = size
	return size, nil
}

// within refuses a glyph of size past the bounds.
func (s expanded) within(id int) error {
	switch {
	case int(s.depth) > MaxComponentDepth:
		return fmt.Errorf("glyph %d nests composite glyphs %d deep; at most %d are allowed", id, s.depth, MaxComponentDepth)
	case s.points > MaxGlyphPoints:
		return fmt.Errorf("glyph %d expands to %d outline points through its composite components; at most %d are allowed", id, s.points, MaxGlyphPoints)
	case s.components > MaxGlyphComponents:
		return fmt.Errorf("glyph %d expands to %d composite component references; at most %d are allowed", id, s.components, MaxGlyphComponents)
	}
	return nil
}

// expand reads glyph id: its points, or its components' sizes summed.
func (w *glyfWalk) expand(id, level int) (expanded, error) {
	start, end := w.loca(id)
	if start > end || int(end) > len(w.glyf) {
		return expanded{}, unreadable("glyph %d lies outside the glyf table (loca gives %d to %d of %d bytes)", id, start, end, len(w.glyf))
	}
	g := w.glyf[start:end]
	if len(g) == 0 {
		return expanded{}, nil
	}
	if len(g) < 10 {
		return expanded{}, unreadable("glyph %d is %d bytes, too short for its header", id, len(g))
	}
	contours := int16(binary.BigEndian.Uint16(g))
	if contours >= 0 {
		return simplePoints(id, g, int(contours))
	}
	return w.composite(id, level, g[10:])
}

// simplePoints is a glyph with contours: its last contour's last point
// numbers its points.
func simplePoints(id int, g []byte, contours int) (expanded, error) {
	if contours == 0 {
		return expanded{}, nil
	}
	if len(g) < 10+2*contours {
		return expanded{}, unreadable("glyph %d is too short for its %d contours", id, contours)
	}
	last := binary.BigEndian.Uint16(g[10+2*(contours-1):])
	return expanded{points: uint32(last) + 1}, nil
}

// composite sums the sizes of the components listed in c.
func (w *glyfWalk) composite(id, level int, c []byte) (expanded, error) {
	var size expanded
	for {
		if len(c) < 4 {
			return expanded{}, unreadable("glyph %d ends inside a composite component", id)
		}
		flags, sub := binary.BigEndian.Uint16(c), int(binary.BigEndian.Uint16(c[2:]))
		n := componentLength(flags)
		if len(c) < n {
			return expanded{}, unreadable("glyph %d ends inside a composite component", id)
		}
		part, err := w.measure(sub, level+1)
		if err != nil {
			return expanded{}, err
		}
		size.points += part.points
		size.components += 1 + part.components
		size.depth = max(size.depth, part.depth+1)
		// Checked as it grows, so that a glyph listing thousands of
		// components stops at the first that goes past.
		if err := size.within(id); err != nil {
			return expanded{}, err
		}
		if flags&moreComponents == 0 {
			return size, nil
		}
		c = c[n:]
	}
}

// componentLength is a component record's bytes: flags, glyph index,
// arguments and transform.
func componentLength(flags uint16) int {
	n := 4 + 2
	if flags&argsAreWords != 0 {
		n += 2
	}
	switch {
	case flags&haveScale != 0:
		n += 2
	case flags&haveXYScale != 0:
		n += 4
	case flags&haveTwoByTwo != 0:
		n += 8
	}
	return n
}
