package svgart

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"golang.org/x/text/encoding/charmap"
)

// The namespaces svgart reads; elements and attributes of any other
// namespace (Inkscape's, Illustrator's, Sketch's) are editor data and
// skipped, subtrees and all.
const (
	nsSVG   = "http://www.w3.org/2000/svg"
	nsXLink = "http://www.w3.org/1999/xlink"
)

// node is one element of the document.
type node struct {
	name     string            // local name
	attrs    map[string]string // SVG attributes by local name; xlink:href is "href"
	names    []string          // attribute names in document order
	line     int
	parent   *node
	children []*node
	text     []byte // character data, kept for <style> only

	// props is the cascaded value of each property the element specifies
	// (attributes, then style sheet rules, then its style attribute); set
	// by the style pass.
	props map[string]string
}

// label names n as a shop sees it in its file: <rect id="bar">.
func (n *node) label() string {
	if id := n.attrs["id"]; id != "" {
		return fmt.Sprintf("<%s id=%q>", n.name, id)
	}
	return "<" + n.name + ">"
}

// tree is a parsed document.
type tree struct {
	root *node
	ids  map[string]*node
	// styles are the <style> elements, in document order.
	styles []*node
}

// readTree parses data into elements, enforcing the input, element and
// depth limits as it reads, so a hostile file is refused before it is held
// in memory whole.
func readTree(data []byte) (*tree, error) {
	if len(data) > MaxInputBytes {
		return nil, overLimit(nil, "the file is %d bytes, more than the %d (10 MiB) a logo may have", len(data), MaxInputBytes)
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	d.CharsetReader = charsetReader
	t := &tree{ids: map[string]*node{}}
	var cur *node
	skip := 0 // depth inside an element of another namespace
	depth, count := 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, &Error{Line: se.Line, Reason: "the file is not well-formed XML: " + se.Msg}
			}
			return nil, &Error{Reason: "the file cannot be read as XML: " + err.Error()}
		}
		line, _ := d.InputPos()
		switch tok := tok.(type) {
		case xml.StartElement:
			depth++
			count++
			if count > MaxElements {
				return nil, &Error{Line: line, Reason: fmt.Sprintf("more than %d elements: simplify the artwork", MaxElements), Limit: true}
			}
			if depth > MaxDepth {
				return nil, &Error{Line: line, Element: "<" + tok.Name.Local + ">", Reason: fmt.Sprintf("elements nested more than %d deep: ungroup the artwork", MaxDepth), Limit: true}
			}
			if skip > 0 || !isSVGSpace(tok.Name.Space) {
				skip++
				continue
			}
			n := newNode(tok, line, cur)
			if cur == nil {
				if t.root != nil || n.name != "svg" {
					return nil, &Error{Line: line, Element: n.label(), Reason: "not an SVG document: the root element must be <svg>"}
				}
				t.root = n
			} else {
				cur.children = append(cur.children, n)
			}
			if id := n.attrs["id"]; id != "" {
				if _, dup := t.ids[id]; !dup { // the first of duplicate ids wins, as in browsers
					t.ids[id] = n
				}
			}
			if n.name == "style" {
				t.styles = append(t.styles, n)
			}
			cur = n
		case xml.EndElement:
			depth--
			if skip > 0 {
				skip--
				continue
			}
			cur = cur.parent
		case xml.CharData:
			if skip == 0 && cur != nil && cur.name == "style" {
				cur.text = append(cur.text, tok...)
			}
		case xml.ProcInst:
			if tok.Target == "xml-stylesheet" {
				return nil, &Error{Line: line, Element: "<?xml-stylesheet?>", Reason: byKey[CSS]["@import"].Note}
			}
		case xml.Directive:
			if err := declareEntities(d, tok, data); err != nil {
				err.Line = line
				return nil, err
			}
		}
	}
	if t.root == nil {
		return nil, &Error{Reason: "not an SVG document: no <svg> element"}
	}
	return t, nil
}

// isSVGSpace reports whether an element's namespace is SVG's; a file
// without xmlns is read as SVG, as most tools do.
func isSVGSpace(space string) bool { return space == "" || space == nsSVG }

// newNode makes the node of a start tag, keeping SVG attributes only.
func newNode(tok xml.StartElement, line int, parent *node) *node {
	n := &node{name: tok.Name.Local, attrs: map[string]string{}, line: line, parent: parent}
	for _, a := range tok.Attr {
		name := a.Name.Local
		switch a.Name.Space {
		case "":
			if name == "xmlns" {
				continue
			}
		case nsXLink, "xlink":
			if name != "href" || n.attrs["href"] != "" { // SVG 2's plain href wins over xlink:href
				continue
			}
		default:
			continue // xmlns:…, xml:space, inkscape:…, sodipodi:…
		}
		if _, dup := n.attrs[name]; !dup {
			n.names = append(n.names, name)
		}
		n.attrs[name] = a.Value
	}
	return n
}

// charsetReader accepts the two legacy encodings old exporters declare;
// any other is refused by encoding/xml with a clear message.
func charsetReader(label string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "iso-8859-1", "latin1", "latin-1", "us-ascii":
		return charmap.ISO8859_1.NewDecoder().Reader(input), nil
	case "windows-1252", "cp1252":
		return charmap.Windows1252.NewDecoder().Reader(input), nil
	}
	return nil, fmt.Errorf("the text encoding %q is not supported: save the file as UTF-8", label)
}

// entityDecl matches one internal general entity declaration.
var entityDecl = regexp.MustCompile(`<!ENTITY\s+([A-Za-z_][\w.-]*)\s+("[^"]*"|'[^']*')\s*>`)

// declareEntities reads the entities of a DOCTYPE's internal subset.
// Illustrator's older exports declare their namespaces this way
// (<!ENTITY ns_svg "http://www.w3.org/2000/svg">), so plain text entities
// are accepted. Anything that could grow without bound is refused: an
// entity that refers to another entity (the "billion laughs"), parameter
// and external entities, and references whose expansion would exceed
// MaxInputBytes.
func declareEntities(d *xml.Decoder, dir xml.Directive, data []byte) *Error {
	s := string(dir)
	if !strings.HasPrefix(s, "DOCTYPE") {
		return nil
	}
	open := strings.IndexByte(s, '[')
	if open < 0 {
		return nil // a public identifier only: nothing is loaded
	}
	subset := s[open+1:]
	matches := entityDecl.FindAllStringSubmatchIndex(subset, -1)
	if strings.Count(subset, "<!ENTITY") != len(matches) {
		return &Error{Element: "<!DOCTYPE>", Reason: "only plain text entities may be declared (no parameter, external or nested entities): remove the DOCTYPE"}
	}
	entities := map[string]string{}
	expanded := 0
	for _, m := range matches {
		name, value := subset[m[2]:m[3]], subset[m[4]+1:m[5]-1]
		if strings.ContainsAny(value, "&<%") {
			return &Error{Element: "<!ENTITY " + name + ">", Reason: "an entity may not contain markup or refer to another entity: remove the DOCTYPE"}
		}
		entities[name] = value
		expanded += bytes.Count(data, []byte("&"+name+";")) * len(value)
		if expanded > MaxInputBytes {
			return &Error{Element: "<!ENTITY " + name + ">", Reason: "the entities would expand past the size limit", Limit: true}
		}
	}
	d.Entity = entities
	return nil
}
