package sfntcheck

import (
	"encoding/binary"
	"errors"
)

// Type 2 charstring operators (Adobe Technical Note 5177), by how the
// walk treats them.
const (
	csHstem     = 1
	csVstem     = 3
	csVmoveto   = 4
	csCallsubr  = 10
	csReturn    = 11
	csEscape    = 12
	csEndchar   = 14
	csHstemhm   = 18
	csHintmask  = 19
	csCntrmask  = 20
	csRmoveto   = 21
	csHmoveto   = 22
	csVstemhm   = 23
	csShortint  = 28
	csCallgsubr = 29
)

// cost is what a charstring expands to, its calls included, and what it
// leaves for whatever runs after it: 12 bytes, one per subroutine and
// state the walk meets.
type cost struct {
	ops, points uint32
	// depth is the operands left on the stack: all of them with
	// fClears, else those added to the caller's.
	depth uint8
	// hints is the stem hint count after it, with fHints.
	hints uint8
	// nest is how many subroutine levels it calls below itself.
	nest  uint8
	flags uint8
}

const (
	fClears     = 1 << iota // depth is the whole stack, not what it adds
	fMoved                  // it ran a moveto: stems may no longer follow
	fEnded                  // the glyph ends in it (endchar, or where the library stops)
	fHints                  // hints is the glyph's stem hint count after it
	fNeedsState             // memo only: read it again in each caller's state
)

// entry is the state a charstring is read in when it reads stem hints:
// the operands on the stack, the stem hints so far, and whether the
// glyph's first moveto is still to come.
type entry struct {
	depth, hints int
	before       bool
}

// run reads charstring cs, called level subroutines below its glyph's
// charstring, for a glyph of font DICT fd. With in, it is read in that
// state; without, apart from its caller (it then stops with
// errNeedsState at the first stem hint or hint mask).
func (c *cffCheck) run(cs []byte, level, fd int, in *entry) (cost, error) {
	var s cost
	// lits are the values of the stack's top nlit operands, pushed here:
	// the only ones a call may take as its subroutine number.
	var lits [maxOperands]int32
	nlit, depth := 0, 0
	hints, before := 0, true
	if in != nil {
		depth, hints, before = in.depth, in.hints, in.before
		s.flags |= fClears | fHints
	}
	clear := func() { depth, nlit, s.flags = 0, 0, s.flags|fClears }
	for i := 0; i < len(cs); {
		if c.budget -= 1; c.budget < 0 {
			return s, errBudget
		}
		if b0 := cs[i]; b0 >= 32 || b0 == csShortint {
			v, next, ok := csNumber(cs, i)
			if !ok || depth >= maxOperands {
				return s.end(), nil // where the library stops the glyph
			}
			lits[nlit], nlit, depth, i = v, nlit+1, depth+1, next
			if s.points++; s.points > MaxCharstringPoints {
				return s, refuse("expands to more than %d points through its subroutines; at most %d are allowed", MaxCharstringPoints, MaxCharstringPoints)
			}
			continue
		}
		op := int(cs[i])
		i++
		if op == csEscape {
			if i == len(cs) {
				return s.end(), nil
			}
			op, i = 256+int(cs[i]), i+1
		}
		if s.ops++; s.ops > MaxCharstringOperators {
			return s, refuse("expands to more than %d operators through its subroutines; at most %d are allowed", MaxCharstringOperators, MaxCharstringOperators)
		}
		switch {
		case op == csCallsubr || op == csCallgsubr:
			if in != nil && depth == 0 {
				return s.end(), nil // the library: a call without its number
			}
			if nlit == 0 {
				return s, refuse("calls a subroutine whose number it does not push itself (a computed or inherited number), which Platen does not read")
			}
			nlit, depth, s.points = nlit-1, depth-1, s.points-1
			var st *entry
			if in != nil {
				st = &entry{depth: depth, hints: hints, before: before}
			}
			sub, err := c.call(op == csCallgsubr, int(lits[nlit]), level+1, fd, st)
			if err != nil {
				return s, err
			}
			if err := s.add(sub); err != nil {
				return s, err
			}
			switch {
			case sub.flags&fClears != 0:
				depth, nlit, s.flags = int(sub.depth), 0, s.flags|fClears
			case sub.depth > 0:
				depth, nlit = depth+int(sub.depth), 0
			}
			if sub.flags&fHints != 0 {
				hints = int(sub.hints)
			}
			if sub.flags&fMoved != 0 {
				before, s.flags = false, s.flags|fMoved
			}
			if sub.flags&fEnded != 0 || depth > maxOperands {
				return s.end(), nil
			}
		case op == csReturn:
			if level == 0 {
				return s.end(), nil // the library: a return outside a subroutine
			}
			return s.leave(depth, hints, before, in != nil), nil
		case op == csEndchar:
			return s.end(), nil
		case isHintOp(op):
			if in == nil {
				return s, errNeedsState
			}
			skip, ok := stemHints(op, &depth, &hints, before)
			if !ok {
				return s.end(), nil
			}
			i += skip
			clear()
		case isPathOp(op):
			if in != nil && before && op != csRmoveto && op != csHmoveto && op != csVmoveto {
				return s.end(), nil // the library: a path before the first moveto
			}
			if op == csRmoveto || op == csHmoveto || op == csVmoveto {
				before, s.flags = false, s.flags|fMoved
			}
			clear()
		default:
			// Arithmetic, storage and reserved operators: the library
			// draws none of them and stops the glyph there.
			return s.end(), nil
		}
	}
	// The library stops a glyph whose charstring or subroutine runs out
	// without endchar or return.
	return s.end(), nil
}

// end is s for a glyph that ends in it.
func (s cost) end() cost {
	s.flags |= fEnded
	return s
}

// leave is s for a subroutine that returns with depth operands on the
// stack and hints stem hints.
func (s cost) leave(depth, hints int, before, stateful bool) cost {
	s.depth = uint8(depth) //nolint:gosec // at most maxOperands
	if stateful {
		s.hints = uint8(hints) //nolint:gosec // at most maxStemHints
		if !before {
			s.flags |= fMoved
		}
	}
	return s
}

// add counts a call's cost in its caller's, refusing the caller past the
// bounds as soon as it goes past them.
func (s *cost) add(sub cost) error {
	s.ops += sub.ops
	s.points += sub.points
	s.nest = max(s.nest, sub.nest+1)
	switch {
	case s.points > MaxCharstringPoints:
		return refuse("expands to more than %d points through its subroutines; at most %d are allowed", MaxCharstringPoints, MaxCharstringPoints)
	case s.ops > MaxCharstringOperators:
		return refuse("expands to more than %d operators through its subroutines; at most %d are allowed", MaxCharstringOperators, MaxCharstringOperators)
	}
	return nil
}

// stemHints counts a stem hint operator's stems as the library does, and
// is the bytes a hint mask after it takes; false where the library
// stops the glyph.
func stemHints(op int, depth, hints *int, before bool) (int, bool) {
	if before && *depth%2 == 1 {
		*depth-- // the glyph's advance width, before its first stems
	}
	switch op {
	case csHintmask, csCntrmask:
		// A hintmask's operands are vstems before it.
		if op == csHintmask && *depth > 0 {
			*hints += *depth / 2
		}
		return (*hints + 7) / 8, *hints <= maxStemHints
	}
	if !before || *depth < 2 {
		return 0, false // stems after the first moveto, or none
	}
	*hints += *depth / 2
	return 0, *hints <= maxStemHints
}

func isHintOp(op int) bool {
	switch op {
	case csHstem, csVstem, csHstemhm, csVstemhm, csHintmask, csCntrmask:
		return true
	}
	return false
}

// isPathOp: the operators that draw (rlineto … flex1), moveto among them.
func isPathOp(op int) bool {
	switch op {
	case csVmoveto, 5, 6, 7, 8, csRmoveto, csHmoveto, 24, 25, 26, 27, 30, 31, 256 + 34, 256 + 35, 256 + 36, 256 + 37:
		return true
	}
	return false
}

// csNumber reads the charstring operand at cs[i]: its integer part, and
// where the next token starts.
func csNumber(cs []byte, i int) (int32, int, bool) {
	b0 := int32(cs[i])
	switch {
	case b0 == csShortint && i+3 <= len(cs):
		return int32(int16(binary.BigEndian.Uint16(cs[i+1:]))), i + 3, true
	case b0 >= 32 && b0 <= 246:
		return b0 - 139, i + 1, true
	case b0 >= 247 && b0 <= 250 && i+2 <= len(cs):
		return (b0-247)*256 + int32(cs[i+1]) + 108, i + 2, true
	case b0 >= 251 && b0 <= 254 && i+2 <= len(cs):
		return -(b0-251)*256 - int32(cs[i+1]) - 108, i + 2, true
	case b0 == 255 && i+5 <= len(cs):
		return int32(binary.BigEndian.Uint32(cs[i+1:])) >> 16, i + 5, true // 16.16 fixed
	}
	return 0, 0, false
}

// call is the cost of calling subroutine number n (unbiased) of the
// global subroutines or fd's local ones, level deep; st is the caller's
// state when it is read in one.
func (c *cffCheck) call(global bool, n, level, fd int, st *entry) (cost, error) {
	subrs, kind := c.fds[fd].subrs, "local"
	if global {
		subrs, kind = c.gsubrs, "global"
	}
	id := n + subrs.bias()
	cs, ok := subrs.get(id)
	if !ok {
		return cost{}, damaged("calls %s subroutine %d, which the font does not have", kind, id)
	}
	if level > MaxSubrNesting {
		return cost{}, refuse("nests subroutine calls more than %d deep; at most %d are allowed", MaxSubrNesting, MaxSubrNesting)
	}
	key := uint64(id)<<16 | uint64(fd)<<32 //nolint:gosec // id < 65536, fd <= 256
	if global {
		key |= 1 << 48
	}
	for _, outer := range c.chain[1:level] {
		if outer == key {
			return cost{}, refuse("calls %s subroutine %d from within itself", kind, id)
		}
	}
	c.chain[level] = key
	sub, err := c.memoised(cs, key, level, fd, st)
	if err == nil && level+int(sub.nest) > MaxSubrNesting {
		err = refuse("nests subroutine calls more than %d deep; at most %d are allowed", MaxSubrNesting, MaxSubrNesting)
	}
	return sub, err
}

// memoised is subroutine cs's cost (key names it), read once apart from
// its callers if it can be, else once per caller state it meets.
func (c *cffCheck) memoised(cs []byte, key uint64, level, fd int, st *entry) (cost, error) {
	sub, seen := c.memo[key]
	if !seen {
		var err error
		sub, err = c.run(cs, level, fd, nil)
		switch {
		case errors.Is(err, errNeedsState):
			sub = cost{flags: fNeedsState}
		case err != nil:
			return cost{}, err
		}
		c.memo[key] = sub
	}
	if sub.flags&fNeedsState == 0 {
		return sub, nil
	}
	if st == nil {
		return cost{}, errNeedsState
	}
	key |= 1<<15 | uint64(st.depth)<<8 | uint64(st.hints)<<1 //nolint:gosec // depth <= 48, hints <= 96
	if st.before {
		key |= 1
	}
	if sub, seen := c.memo[key]; seen {
		return sub, nil
	}
	sub, err := c.run(cs, level, fd, st)
	if err != nil {
		return cost{}, err
	}
	c.memo[key] = sub
	return sub, nil
}
