package svgart

import (
	"regexp"
	"sort"
	"strings"
)

// cssProperties are the properties a style sheet or style attribute may
// set on an element (SVG's presentation attributes). Geometry (x, width,
// d, …) is read from attributes only, as SVG 1.1 has it.
var cssProperties = map[string]bool{
	"fill": true, "fill-opacity": true, "fill-rule": true,
	"stroke": true, "stroke-width": true, "stroke-opacity": true, "stroke-linecap": true,
	"stroke-linejoin": true, "stroke-miterlimit": true, "stroke-dasharray": true, "stroke-dashoffset": true,
	"opacity": true, "color": true, "display": true, "visibility": true,
	"clip-path": true, "clip-rule": true, "transform": true, "overflow": true,
	"stop-color": true, "stop-opacity": true,
	"filter": true, "mask": true, "marker": true, "marker-start": true, "marker-mid": true, "marker-end": true,
	"mix-blend-mode": true, "vector-effect": true, "paint-order": true,
}

// decl is one CSS declaration.
type decl struct{ name, value string }

// selector is a compound selector: an optional type and any number of ids
// and classes, all of which an element must match.
type selector struct {
	typ     string // "" or "*" matches any element
	ids     []string
	classes []string
}

// specificity orders rules as CSS does: ids, then classes, then types.
func (s selector) specificity() int {
	n := len(s.ids)*10000 + len(s.classes)*100
	if s.typ != "" && s.typ != "*" {
		n++
	}
	return n
}

func (s selector) matches(n *node) bool {
	if s.typ != "" && s.typ != "*" && s.typ != n.name {
		return false
	}
	for _, id := range s.ids {
		if n.attrs["id"] != id {
			return false
		}
	}
	if len(s.classes) > 0 {
		have := strings.Fields(n.attrs["class"])
		for _, c := range s.classes {
			if !contains(have, c) {
				return false
			}
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// rule is one selector of a rule set with its declarations: a rule set
// with a selector list becomes one rule per selector, each with its own
// specificity.
type rule struct {
	sel   selector
	decls []decl
	order int
}

var (
	cssComment  = regexp.MustCompile(`(?s)/\*.*?\*/`)
	compoundSel = regexp.MustCompile(`^(\*|[A-Za-z][\w-]*)?((?:[.#][A-Za-z_-][\w-]*)*)$`)
	selPart     = regexp.MustCompile(`[.#][A-Za-z_-][\w-]*`)
)

// parseSheet reads the text of a <style> element into rules sorted by
// specificity, then order. Anything beyond simple selectors is refused,
// as is every at-rule that could change what is drawn.
func parseSheet(n *node, text string, order *int) ([]rule, error) {
	text = cssComment.ReplaceAllString(text, " ")
	text = strings.NewReplacer("<!--", " ", "-->", " ").Replace(text)
	var rules []rule
	for {
		text = strings.TrimSpace(text)
		if text == "" {
			break
		}
		if text[0] == '@' {
			rest, err := atRule(n, text)
			if err != nil {
				return nil, err
			}
			text = rest
			continue
		}
		open := strings.IndexByte(text, '{')
		end := strings.IndexByte(text, '}')
		if open < 0 || end < open {
			return nil, refuse(n, "the style sheet is malformed near %q", truncate(text))
		}
		if strings.IndexByte(text[open+1:end], '{') >= 0 {
			return nil, refuse(n, "the style sheet is malformed near %q", truncate(text))
		}
		decls, err := parseDecls(n, text[open+1:end])
		if err != nil {
			return nil, err
		}
		for _, s := range strings.Split(text[:open], ",") {
			sel, err := parseSelector(n, strings.TrimSpace(s))
			if err != nil {
				return nil, err
			}
			*order++
			rules = append(rules, rule{sel, decls, *order})
		}
		text = text[end+1:]
	}
	return rules, nil
}

// atRule handles the at-rule at the start of text and returns what
// follows it.
func atRule(n *node, text string) (string, error) {
	name := text[1:]
	if i := strings.IndexAny(name, " \t\n\r{;('\""); i >= 0 {
		name = name[:i]
	}
	switch strings.ToLower(name) {
	case "import":
		return "", refuse(n, "@import: %s", byKey[CSS]["@import"].Note)
	case "charset":
		if i := strings.IndexByte(text, ';'); i >= 0 {
			return text[i+1:], nil
		}
		return "", nil
	case "font-face":
		if i := strings.IndexByte(text, '}'); i >= 0 {
			return text[i+1:], nil
		}
		return "", refuse(n, "the style sheet is malformed near %q", truncate(text))
	case "media":
		return "", refuse(n, "@media: %s", byKey[CSS]["@media"].Note)
	}
	return "", refuse(n, "@%s: %s", truncate(name), byKey[CSS]["@*"].Note)
}

// parseSelector reads one compound selector.
func parseSelector(n *node, s string) (selector, error) {
	m := compoundSel.FindStringSubmatch(s)
	if m == nil || s == "" {
		return selector{}, refuse(n, "the selector %q: %s", truncate(s), byKey[CSS]["complex selectors"].Note)
	}
	sel := selector{typ: m[1]}
	for _, part := range selPart.FindAllString(m[2], -1) {
		if part[0] == '#' {
			sel.ids = append(sel.ids, part[1:])
		} else {
			sel.classes = append(sel.classes, part[1:])
		}
	}
	return sel, nil
}

// parseDecls reads "name: value; …" (a rule's block or a style
// attribute), checking each declaration against the decision table.
func parseDecls(n *node, block string) ([]decl, error) {
	var out []decl
	for _, part := range strings.Split(block, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		colon := strings.IndexByte(part, ':')
		if colon <= 0 {
			return nil, refuse(n, "the style declaration %q is malformed", truncate(part))
		}
		name := strings.ToLower(strings.TrimSpace(part[:colon]))
		value := strings.TrimSpace(part[colon+1:])
		value = strings.TrimSpace(strings.TrimSuffix(value, "!important"))
		if err := checkProperty(n, name, value); err != nil {
			return nil, err
		}
		out = append(out, decl{name, value})
	}
	return out, nil
}

// sheet is the document's style rules, sorted for the cascade.
type sheet struct {
	rules []rule
	work  int // declarations applied so far, against MaxStyleWork
}

// readSheets parses every <style> element of t.
func readSheets(t *tree) (*sheet, error) {
	s := &sheet{}
	order := 0
	for _, n := range t.styles {
		if typ := n.attrs["type"]; typ != "" && typ != "text/css" {
			return nil, refuse(n, "style sheets of type %q are not supported: use CSS", truncate(typ))
		}
		rules, err := parseSheet(n, string(n.text), &order)
		if err != nil {
			return nil, err
		}
		s.rules = append(s.rules, rules...)
	}
	sort.SliceStable(s.rules, func(i, j int) bool {
		return s.rules[i].sel.specificity() < s.rules[j].sel.specificity()
	})
	return s, nil
}

// cascade sets n.props for n and its descendants: presentation
// attributes, overridden by matching rules in specificity order,
// overridden by the style attribute.
func (s *sheet) cascade(n *node) error {
	n.props = map[string]string{}
	for _, name := range n.names {
		if cssProperties[name] {
			n.props[name] = strings.TrimSpace(n.attrs[name])
		}
	}
	for _, r := range s.rules {
		if s.work++; s.work > MaxStyleWork {
			return overLimit(n, "the style sheet applies more than %d declarations: simplify it", MaxStyleWork)
		}
		if !r.sel.matches(n) {
			continue
		}
		for _, d := range r.decls {
			s.work++
			if cssProperties[d.name] {
				n.props[d.name] = d.value
			}
		}
	}
	if style, ok := n.attrs["style"]; ok {
		decls, err := parseDecls(n, style)
		if err != nil {
			return err
		}
		for _, d := range decls {
			if cssProperties[d.name] {
				n.props[d.name] = d.value
			}
		}
	}
	for _, c := range n.children {
		if err := s.cascade(c); err != nil {
			return err
		}
	}
	return nil
}

// checkTree applies the decision table to every element and attribute of
// the document, so that a refused feature is reported wherever it is,
// drawn or not (a script in <defs> is still a script).
func checkTree(n *node) error {
	if f := elementFeature(n.name); f.Decision == Refused {
		return refuse(n, "%s", f.Note)
	}
	if n.name == "svg" && n.parent != nil {
		return refuse(n, "a nested <svg> is not supported: ungroup it in your design program")
	}
	for _, name := range n.names {
		if err := checkProperty(n, name, n.attrs[name]); err != nil {
			return err
		}
	}
	for _, c := range n.children {
		if err := checkTree(c); err != nil {
			return err
		}
	}
	return nil
}

// checkProperty applies the decision table to one attribute or CSS
// declaration, and refuses every reference that leaves the file.
func checkProperty(n *node, name, value string) error {
	if f := propertyFeature(name); f != nil && f.Decision == Refused && !f.allows(strings.TrimSpace(value)) {
		return refuse(n, "%s=%q: %s", name, truncate(value), f.Note)
	}
	if name == "href" {
		return checkReference(n, name, value)
	}
	for rest := value; ; {
		i := strings.Index(strings.ToLower(rest), "url(")
		if i < 0 {
			return nil
		}
		end := strings.IndexByte(rest[i:], ')')
		if end < 0 {
			return refuse(n, "%s=%q: the url( is not closed", name, truncate(value))
		}
		target := strings.Trim(strings.TrimSpace(rest[i+4:i+end]), `"'`)
		if err := checkReference(n, name, target); err != nil {
			return err
		}
		rest = rest[i+end:]
	}
}

// checkReference accepts a #fragment of the same file and nothing else.
func checkReference(n *node, name, target string) error {
	target = strings.TrimSpace(target)
	if strings.HasPrefix(target, "#") && len(target) > 1 {
		return nil
	}
	lower := strings.ToLower(target)
	if strings.HasPrefix(lower, "data:image/png") || strings.HasPrefix(lower, "data:image/jpeg") || strings.HasPrefix(lower, "data:image/jpg") {
		return refuse(n, "%s: %s", name, byKey[Element]["image"].Note)
	}
	return refuse(n, "%s=%q is an external reference: %s", name, truncate(target), byKey[CSS]["url()"].Note)
}
