package svgart

import (
	"fmt"
	"strings"
)

// The limits Parse enforces, so that a hostile or broken file is refused
// in bounded time and memory before anything is drawn. Each is far above
// what a logo needs: a detailed logo has hundreds of elements and tens of
// thousands of path commands.
const (
	// MaxInputBytes is the largest document Parse reads: 10 MiB.
	MaxInputBytes = 10 << 20
	// MaxElements is the most elements a document may hold, counted as
	// they are read.
	MaxElements = 50_000
	// MaxDepth is the deepest element nesting.
	MaxDepth = 64
	// MaxExpandedElements is the most elements drawn once every <use> is
	// expanded: each copy counts again, so a "billion laughs" of nested
	// <use> stops here.
	MaxExpandedElements = 100_000
	// MaxPathCommands is the most path commands (segments) in the drawing,
	// copies included; polyline and polygon points count as commands.
	MaxPathCommands = 1_000_000
	// MaxGeometryCommands is the most line segments (curves flattened)
	// that may go through path intersection (clipping, and group
	// opacity's knock-outs) in all, which costs far more per segment than
	// drawing; MaxCrossingPairs bounds each intersection's crossings.
	MaxGeometryCommands = 100_000
	// MaxKnockoutShapes is the most painted shapes under one translucent
	// group: each pair is compared.
	MaxKnockoutShapes = 256
	// MaxStyleWork is the most declarations the style sheet may apply over
	// all elements (rules × matching elements × declarations).
	MaxStyleWork = 1_000_000
	// MaxReferenceDepth bounds chains of references (a gradient's href to
	// another gradient, <use> within <use>).
	MaxReferenceDepth = 32
)

// Error is why Parse refused a document: the element (and line) at fault
// and a reason a shop can act on.
type Error struct {
	// Line is the document line of the element, 0 when unknown.
	Line int
	// Element names the element as written ("<filter id=\"glow\">"), or
	// the part of the document when there is no one element.
	Element string
	// Reason says what is wrong and, for refused features, what to do.
	Reason string
	// Limit is true when a limit was exceeded rather than a feature
	// refused.
	Limit bool
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Element != "" {
		b.WriteString(e.Element)
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// refuse is the error for node n.
func refuse(n *node, format string, args ...any) *Error {
	e := &Error{Reason: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Element = n.line, n.label()
	}
	return e
}

// overLimit is the error for a limit exceeded at n (nil: the document).
func overLimit(n *node, format string, args ...any) *Error {
	e := refuse(n, format, args...)
	e.Limit = true
	return e
}
