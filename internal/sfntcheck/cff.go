package sfntcheck

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The bounds a CFF glyph's charstring must keep once its subroutine calls
// are expanded. The font library bounds one charstring's length (65,535
// bytes), its operands (48) and stem hints (96), and stops nesting calls
// past 11, but not how often a subroutine calls the next: 9 levels of
// subroutines each calling the next 50 times draw 50^8 lines.
const (
	// MaxSubrNesting bounds how deep subroutine calls nest below a
	// glyph's charstring: the Type 2 charstring format's own limit.
	MaxSubrNesting = 10
	// MaxCharstringPoints bounds the operands a glyph's charstring and
	// its subroutines push, less the subroutine numbers its calls take:
	// every path operator draws at most one point per operand it takes,
	// so this bounds the glyph's points, like MaxGlyphPoints for
	// TrueType glyphs. Real glyphs, CJK ones included, push a few hundred.
	MaxCharstringPoints = MaxGlyphPoints
	// MaxCharstringOperators bounds the operators a glyph's charstring
	// runs, its subroutines' included: a charstring of 65,535 bytes has
	// at most as many, and subroutines only make real fonts smaller.
	MaxCharstringOperators = 65535
	// maxOperands is the Type 2 operand stack's depth; the library
	// stops a glyph that pushes more.
	maxOperands = 48
	// maxStemHints is where the library stops a glyph's stem hints.
	maxStemHints = 96
	// noFD stands for the font DICT of a glyph FDSelect gives none: it
	// has no local subroutines.
	noFD = 256
)

// checkCFF checks every glyph of a CFF (version 1) table without drawing
// it: each charstring is read once, and each subroutine once per font
// DICT (and, when it reads stem hints, once per hint state it is called
// in), its expanded size kept for the next call.
func checkCFF(data []byte) error {
	c, err := newCFFCheck(data)
	if err != nil {
		return err
	}
	for gid := range c.charStrings.count {
		if err := c.checkGlyph(gid); err != nil {
			return err
		}
	}
	return nil
}

// index is a CFF INDEX: count objects, located by offSize-byte offsets,
// read in place.
type index struct {
	count, offSize int
	offsets, data  []byte
}

// readIndex reads the INDEX at cff[at:] and where the next structure
// starts.
func readIndex(cff []byte, at int, what string) (index, int, error) {
	if at < 0 || at+2 > len(cff) {
		return index{}, 0, unreadable("its CFF %s INDEX lies past the end of the table", what)
	}
	x := index{count: int(binary.BigEndian.Uint16(cff[at:]))}
	if x.count == 0 {
		return x, at + 2, nil
	}
	if at+3 > len(cff) {
		return index{}, 0, unreadable("its CFF %s INDEX lies past the end of the table", what)
	}
	x.offSize = int(cff[at+2])
	if x.offSize < 1 || x.offSize > 4 {
		return index{}, 0, unreadable("its CFF %s INDEX has offsets of %d bytes", what, x.offSize)
	}
	start := at + 3 + (x.count+1)*x.offSize
	if start > len(cff) {
		return index{}, 0, unreadable("its CFF %s INDEX lies past the end of the table", what)
	}
	x.offsets = cff[at+3 : start]
	last := x.offset(x.count)
	if last < 1 || last-1 > len(cff)-start {
		return index{}, 0, unreadable("its CFF %s INDEX lies past the end of the table", what)
	}
	x.data = cff[start : start+last-1]
	return x, start + last - 1, nil
}

func (x index) offset(i int) int {
	b := x.offsets[i*x.offSize : (i+1)*x.offSize]
	v := 0
	for _, c := range b {
		v = v<<8 | int(c)
	}
	return v
}

// get is object i, or false when its offsets are out of order or range.
func (x index) get(i int) ([]byte, bool) {
	if i < 0 || i >= x.count {
		return nil, false
	}
	start, end := x.offset(i)-1, x.offset(i+1)-1
	if start < 0 || start > end || end > len(x.data) {
		return nil, false
	}
	return x.data[start:end], true
}

// bias is what a charstring adds to a subroutine number, by how many
// subroutines the INDEX holds (Type 2 charstring format, 4.7).
func (x index) bias() int {
	switch {
	case x.count < 1240:
		return 107
	case x.count < 33900:
		return 1131
	}
	return 32768
}

// DICT operators read here (CFF specification, Top and Private DICTs).
const (
	opCharStrings    = 17
	opPrivate        = 18
	opSubrs          = 19
	opCharstringType = 256 + 6
	opROS            = 256 + 30
	opFDArray        = 256 + 36
	opFDSelect       = 256 + 37
)

// dict calls fn with each operator of d and its integer operands (reals
// rounded toward zero: offsets and sizes are integers).
func dict(d []byte, fn func(op int, args []int)) error {
	var stack [maxOperands]int
	n := 0
	for i := 0; i < len(d); {
		b0 := d[i]
		switch {
		case b0 <= 21:
			op := int(b0)
			i++
			if b0 == 12 {
				if i == len(d) {
					return errors.New("ends inside an operator")
				}
				op = 256 + int(d[i])
				i++
			}
			fn(op, stack[:n])
			n = 0
			continue
		case b0 >= 22 && b0 <= 27 || b0 == 31 || b0 == 255:
			i++ // reserved, skipped as the library does
			continue
		}
		v, next, ok := dictNumber(d, i)
		if !ok {
			return errors.New("ends inside a number")
		}
		if n == maxOperands {
			return errors.New("has too many operands for an operator")
		}
		stack[n], n, i = v, n+1, next
	}
	return nil
}

// dictNumber reads the DICT operand at d[i] and where the next starts.
func dictNumber(d []byte, i int) (int, int, bool) {
	b0 := int(d[i])
	switch {
	case b0 == 28 && i+3 <= len(d):
		return int(int16(binary.BigEndian.Uint16(d[i+1:]))), i + 3, true
	case b0 == 29 && i+5 <= len(d):
		return int(int32(binary.BigEndian.Uint32(d[i+1:]))), i + 5, true
	case b0 == 30:
		for j := i + 1; j < len(d); j++ {
			if d[j]&0x0f == 0x0f || d[j]>>4 == 0x0f {
				return 0, j + 1, true // a real: no offset or size is one
			}
		}
	case b0 >= 32 && b0 <= 246:
		return b0 - 139, i + 1, true
	case b0 >= 247 && b0 <= 250 && i+2 <= len(d):
		return (b0-247)*256 + int(d[i+1]) + 108, i + 2, true
	case b0 >= 251 && b0 <= 254 && i+2 <= len(d):
		return -(b0-251)*256 - int(d[i+1]) - 108, i + 2, true
	}
	return 0, 0, false
}

// cffCheck is one CFF table's structure and what the walk has learnt.
type cffCheck struct {
	cff         []byte
	charStrings index
	gsubrs      index
	// fds are the local subroutines of each font DICT a glyph uses,
	// read when first needed; a font that is not CID-keyed has one.
	fds      [noFD + 1]fdSubrs
	fdSelect func(gid int) (int, bool)
	memo     map[uint64]cost
	// chain is the subroutines the walk is inside, outermost first.
	chain [MaxSubrNesting + 1]uint64
	// budget bounds the bytes the whole check interprets, so that a font
	// calling a subroutine in many hint states cannot make it slow.
	budget int
}

type fdSubrs struct {
	read  bool
	subrs index
}

func newCFFCheck(cff []byte) (*cffCheck, error) {
	if len(cff) < 4 || cff[0] != 1 {
		return nil, unreadable("its CFF table is not CFF version 1")
	}
	_, at, err := readIndex(cff, int(cff[2]), "Name")
	if err != nil {
		return nil, err
	}
	tops, at, err := readIndex(cff, at, "Top DICT")
	if err != nil {
		return nil, err
	}
	_, at, err = readIndex(cff, at, "String")
	if err != nil {
		return nil, err
	}
	c := &cffCheck{cff: cff, memo: map[uint64]cost{}, budget: 16*len(cff) + 1<<20}
	c.fds[noFD].read = true
	if c.gsubrs, _, err = readIndex(cff, at, "Global Subrs"); err != nil {
		return nil, err
	}
	top, ok := tops.get(0)
	if !ok {
		return nil, unreadable("its CFF table has no Top DICT")
	}
	return c, c.readTop(top)
}

// readTop reads the Top DICT's charstrings and subroutines.
func (c *cffCheck) readTop(top []byte) error {
	charStrings, fdArray, fdSelect, private := -1, -1, -1, [2]int{-1, -1}
	cid := false
	csType := 2
	err := dict(top, func(op int, args []int) {
		switch {
		case len(args) == 0:
		case op == opCharStrings:
			charStrings = args[len(args)-1]
		case op == opPrivate && len(args) >= 2:
			private = [2]int{args[len(args)-2], args[len(args)-1]}
		case op == opROS:
			cid = true
		case op == opFDArray:
			fdArray = args[len(args)-1]
		case op == opFDSelect:
			fdSelect = args[len(args)-1]
		case op == opCharstringType:
			csType = args[len(args)-1]
		}
	})
	switch {
	case err != nil:
		return unreadable("its CFF Top DICT %v", err)
	case csType != 2:
		return unreadable("its CFF charstrings are of Type %d; only Type 2 is supported", csType)
	}
	if c.charStrings, _, err = readIndex(c.cff, charStrings, "CharStrings"); err != nil {
		return err
	}
	if !cid {
		c.fds[0].read = true
		c.fds[0].subrs, err = c.localSubrs(private[0], private[1])
		c.fdSelect = func(int) (int, bool) { return 0, true }
		return err
	}
	return c.readCID(fdArray, fdSelect)
}

// localSubrs reads the Private DICT of size bytes at offset and the
// local subroutines it points to, if any.
func (c *cffCheck) localSubrs(size, offset int) (index, error) {
	if size < 0 || offset < 0 || offset > len(c.cff) || size > len(c.cff)-offset {
		return index{}, unreadable("its CFF Private DICT lies outside the table")
	}
	subrs := -1
	err := dict(c.cff[offset:offset+size], func(op int, args []int) {
		if op == opSubrs && len(args) > 0 {
			subrs = args[len(args)-1]
		}
	})
	if err != nil {
		return index{}, unreadable("its CFF Private DICT %v", err)
	}
	if subrs <= 0 {
		return index{}, nil
	}
	x, _, err := readIndex(c.cff, offset+subrs, "local Subrs")
	return x, err
}

// readCID reads a CID-keyed font's FDArray and FDSelect; each font
// DICT's Private DICT is read when a glyph first uses it.
func (c *cffCheck) readCID(fdArray, fdSelect int) error {
	fonts, _, err := readIndex(c.cff, fdArray, "FDArray")
	if err != nil {
		return err
	}
	if fdSelect < 0 || fdSelect >= len(c.cff) {
		return unreadable("its CFF FDSelect lies past the end of the table")
	}
	sel, n := c.cff[fdSelect+1:], c.charStrings.count
	switch c.cff[fdSelect] {
	case 0:
		if len(sel) < n {
			return unreadable("its CFF FDSelect lies past the end of the table")
		}
		c.fdSelect = func(gid int) (int, bool) { return int(sel[gid]), true }
	case 3:
		if len(sel) < 2 || len(sel) < 2+3*int(binary.BigEndian.Uint16(sel))+2 {
			return unreadable("its CFF FDSelect lies past the end of the table")
		}
		ranges := sel[2 : 2+3*int(binary.BigEndian.Uint16(sel))+2]
		c.fdSelect = func(gid int) (int, bool) { return rangeFD(ranges, gid) }
	default:
		return unreadable("its CFF FDSelect is of format %d, neither 0 nor 3", c.cff[fdSelect])
	}
	// Font DICTs are read up front: there are at most 256 of them.
	for fd := range min(fonts.count, noFD) {
		fdict, _ := fonts.get(fd)
		private := [2]int{-1, -1}
		err := dict(fdict, func(op int, args []int) {
			if op == opPrivate && len(args) >= 2 {
				private = [2]int{args[len(args)-2], args[len(args)-1]}
			}
		})
		if err != nil {
			return unreadable("its CFF Font DICT %d %v", fd, err)
		}
		c.fds[fd].read = true
		if c.fds[fd].subrs, err = c.localSubrs(private[0], private[1]); err != nil {
			return err
		}
	}
	return nil
}

// rangeFD is the font DICT FDSelect format 3's ranges (first glyph, font
// DICT; a sentinel glyph last) give glyph gid; the library takes the
// first range for glyphs before it.
func rangeFD(ranges []byte, gid int) (int, bool) {
	n := (len(ranges) - 2) / 3
	if n == 0 || gid >= int(binary.BigEndian.Uint16(ranges[3*n:])) {
		return 0, false
	}
	i := 0
	for i+1 < n && int(binary.BigEndian.Uint16(ranges[3*(i+1):])) <= gid {
		i++
	}
	return int(ranges[3*i+2]), true
}

// checkGlyph expands glyph gid's charstring.
func (c *cffCheck) checkGlyph(gid int) error {
	cs, ok := c.charStrings.get(gid)
	if !ok {
		return unreadable("glyph %d's charstring lies outside its CFF CharStrings INDEX", gid)
	}
	fd, ok := c.fdSelect(gid)
	if !ok {
		fd = noFD // the library finds no local subroutines for it
	}
	if !c.fds[fd].read {
		return unreadable("glyph %d's FDSelect gives font DICT %d, which the font does not have", gid, fd)
	}
	_, err := c.run(cs, 0, fd, &entry{before: true})
	var ce *charstringError
	switch {
	case errors.As(err, &ce) && ce.unreadable:
		return unreadable("glyph %d's charstring %s", gid, ce.msg)
	case errors.As(err, &ce):
		return fmt.Errorf("glyph %d's charstring %s", gid, ce.msg)
	case errors.Is(err, errBudget):
		return fmt.Errorf("the font's charstrings take more than %d steps to check; a font of %d bytes of CFF needs far fewer", 16*len(c.cff)+1<<20, len(c.cff))
	}
	return err
}

// charstringError is what refuses a glyph's charstring, said of it.
type charstringError struct {
	msg        string
	unreadable bool
}

func (e *charstringError) Error() string { return e.msg }

func refuse(format string, args ...any) error {
	return &charstringError{msg: fmt.Sprintf(format, args...)}
}

func damaged(format string, args ...any) error {
	return &charstringError{msg: fmt.Sprintf(format, args...), unreadable: true}
}

var (
	// errNeedsState stops reading a subroutine apart from its caller's
	// state: it reads stem hints, whose count decides how many bytes a
	// hintmask takes.
	errNeedsState = errors.New("needs the caller's state")
	errBudget     = errors.New("over the check's budget")
)
