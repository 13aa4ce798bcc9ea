// Package pdfxtest checks, for tests, that a PDF Platen wrote is PDF/X-4
// (ISO 15930-7) as third_party/canvaspdf writes it. There is no free PDF/X
// validator to run here, so Objects reads the file's own objects (with
// pdfcpu) and checks each requirement the writer promises, and Tools has
// poppler, qpdf and Ghostscript read the file as a RIP or viewer would.
package pdfxtest

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

func init() { api.DisableConfigDir() } // pdfcpu would write ~/.config otherwise

// Objects checks the PDF/X-4 requirements on pdf's objects: pdfcpu's
// strict validation of the PDF itself, the header,
// the output intent (an ICC stream of 4 components whose bytes are
// profile), Info and XMP metadata that agree, the trailer ID, TrimBox and
// BleedBox on every page, every font embedded, no DeviceRGB and no
// Interpolate anywhere, and content streams that paint colour only
// through spaces the CMYK output intent covers, selected by cs/CS (named
// ICC-based spaces, DeviceCMYK, Separations whose alternate is one of
// those), never g, rg, k or their stroking forms. It returns the number of
// pages.
func Objects(t testing.TB, pdf, profile []byte) int {
	t.Helper()
	return ObjectsWith(t, pdf, profile, Registered)
}

// Intent is the kind of output condition a file names.
type Intent int

const (
	// Registered is a condition in the ICC's registry (FOGRA39): the
	// intent has OutputCondition and RegistryName too.
	Registered Intent = iota
	// Custom is a caller's own condition: an identifier and Info suffice.
	Custom
)

// ObjectsWith is Objects for a file whose output intent is of kind.
func ObjectsWith(t testing.TB, pdf, profile []byte, kind Intent) int {
	t.Helper()
	if !bytes.HasPrefix(pdf, []byte("%PDF-1.6\n")) {
		t.Errorf("header %q, want %%PDF-1.6", pdf[:min(len(pdf), 9)])
	}
	strict := model.NewDefaultConfiguration()
	strict.ValidationMode = model.ValidationStrict
	if err := api.Validate(bytes.NewReader(pdf), strict); err != nil {
		t.Errorf("pdfcpu's strict validation: %v", err)
	}
	ctx, err := api.ReadContext(bytes.NewReader(pdf), model.NewDefaultConfiguration())
	if err != nil {
		t.Fatalf("pdfcpu cannot read the file: %v", err)
	}
	c := &checker{t: t, x: ctx.XRefTable}
	if err := c.x.EnsurePageCount(); err != nil {
		t.Fatal(err)
	}
	catalog, err := c.x.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	c.outputIntent(catalog, profile, kind)
	info := c.info()
	c.metadata(catalog, info)
	if len(c.x.ID) != 2 || len(c.hexOrString(c.x.ID[0])) != 16 || len(c.hexOrString(c.x.ID[1])) != 16 {
		t.Errorf("trailer ID %v, want two 16-byte strings", c.x.ID)
	}
	for n := 1; n <= ctx.PageCount; n++ {
		c.page(n)
	}
	c.objects()
	return ctx.PageCount
}

type checker struct {
	t testing.TB
	x *model.XRefTable
}

func (c *checker) dict(o types.Object) types.Dict {
	c.t.Helper()
	d, err := c.x.DereferenceDict(o)
	if err != nil {
		c.t.Fatal(err)
	}
	return d
}

func (c *checker) stream(o types.Object) *types.StreamDict {
	c.t.Helper()
	sd, _, err := c.x.DereferenceStreamDict(o)
	if err != nil || sd == nil {
		c.t.Fatalf("not a stream: %v (%v)", o, err)
	}
	if err := sd.Decode(); err != nil {
		c.t.Fatal(err)
	}
	return sd
}

// text is a dictionary's string entry, decoded; "" when absent.
func (c *checker) text(d types.Dict, key string) string {
	o, err := c.x.Dereference(d[key])
	if err != nil || o == nil {
		return ""
	}
	return c.hexOrString(o)
}

func (c *checker) hexOrString(o types.Object) string {
	var s string
	var err error
	switch v := o.(type) {
	case types.StringLiteral:
		s, err = types.StringLiteralToString(v)
	case types.HexLiteral:
		var b []byte
		b, err = v.Bytes()
		s = string(b)
	default:
		return ""
	}
	if err != nil {
		c.t.Errorf("string %v: %v", o, err)
	}
	return s
}

func (c *checker) name(d types.Dict, key string) string {
	o, _ := c.x.Dereference(d[key])
	if n, ok := o.(types.Name); ok {
		return string(n)
	}
	return ""
}

func (c *checker) integer(d types.Dict, key string) int {
	o, _ := c.x.Dereference(d[key])
	if n, ok := o.(types.Integer); ok {
		return int(n)
	}
	return -1
}

// outputIntent checks the one GTS_PDFX output intent.
func (c *checker) outputIntent(catalog types.Dict, profile []byte, kind Intent) {
	t := c.t
	intents, err := c.x.DereferenceArray(catalog["OutputIntents"])
	if err != nil || len(intents) != 1 {
		t.Fatalf("OutputIntents %v (%v), want one", catalog["OutputIntents"], err)
	}
	oi := c.dict(intents[0])
	if c.name(oi, "S") != "GTS_PDFX" || c.name(oi, "Type") != "OutputIntent" {
		t.Errorf("output intent %v, want /Type /OutputIntent /S /GTS_PDFX", oi)
	}
	keys := []string{"OutputConditionIdentifier", "Info"}
	if kind == Registered {
		keys = append(keys, "OutputCondition", "RegistryName")
	}
	for _, key := range keys {
		if c.text(oi, key) == "" {
			t.Errorf("the output intent has no %s", key)
		}
	}
	icc := c.stream(oi["DestOutputProfile"])
	if n := c.integer(icc.Dict, "N"); n != 4 {
		t.Errorf("DestOutputProfile /N %d, want 4", n)
	}
	if !bytes.Equal(icc.Content, profile) {
		t.Errorf("DestOutputProfile is %d bytes, not the %d of the profile shipped", len(icc.Content), len(profile))
	}
}

// info checks the Info dictionary and returns it.
func (c *checker) info() types.Dict {
	t := c.t
	if c.x.Info == nil {
		t.Fatal("no Info dictionary")
	}
	info := c.dict(*c.x.Info)
	if v := c.text(info, "GTS_PDFXVersion"); v != "PDF/X-4" {
		t.Errorf("Info GTS_PDFXVersion %q, want PDF/X-4", v)
	}
	if v := c.name(info, "Trapped"); v != "False" {
		t.Errorf("Info Trapped /%s, want /False", v)
	}
	for _, key := range []string{"Title", "CreationDate", "ModDate", "Producer"} {
		if c.text(info, key) == "" {
			t.Errorf("Info has no %s", key)
		}
	}
	return info
}

// metadata checks the XMP stream against Info.
func (c *checker) metadata(catalog, info types.Dict) {
	t := c.t
	md := c.stream(catalog["Metadata"])
	if c.name(md.Dict, "Type") != "Metadata" || c.name(md.Dict, "Subtype") != "XML" {
		t.Errorf("metadata %v, want /Type /Metadata /Subtype /XML", md.Dict)
	}
	if _, ok := md.Dict["Filter"]; ok {
		t.Error("the XMP metadata is compressed; PDF/X wants it readable")
	}
	xmp := string(md.Content)
	for el, want := range map[string]string{
		"pdfxid:GTS_PDFXVersion": "PDF/X-4",
		"pdf:Trapped":            "False",
		"pdf:Producer":           c.text(info, "Producer"),
		"rdf:li":                 c.text(info, "Title"), // dc:title's only entry
		"xmp:CreateDate":         xmpDate(t, c.text(info, "CreationDate")),
		"xmp:ModifyDate":         xmpDate(t, c.text(info, "ModDate")),
	} {
		if got := element(xmp, el); got != want {
			t.Errorf("XMP %s %q, want %q (as Info)", el, got, want)
		}
	}
	for _, el := range []string{"xmpMM:DocumentID", "xmpMM:InstanceID", "dc:title"} {
		if element(xmp, el) == "" && !strings.Contains(xmp, "<"+el+">") {
			t.Errorf("XMP has no %s", el)
		}
	}
}

// element is the text of the first <el …>text</el> in xml.
func element(xml, el string) string {
	m := regexp.MustCompile(`<` + regexp.QuoteMeta(el) + `(?: [^>]*)?>([^<]*)</` + regexp.QuoteMeta(el) + `>`).FindStringSubmatch(xml)
	if m == nil {
		return ""
	}
	return m[1]
}

// xmpDate converts a PDF date to the XMP form canvaspdf writes for it.
func xmpDate(t testing.TB, pdfDate string) string {
	d, err := time.Parse("D:20060102150405-07'00'", pdfDate)
	if err != nil {
		t.Errorf("date %q: %v", pdfDate, err)
		return ""
	}
	return d.Format("2006-01-02T15:04:05-07:00")
}

// page checks a page's boxes and its content stream.
func (c *checker) page(n int) {
	t := c.t
	d, _, inherited, err := c.x.PageDict(n, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"TrimBox", "BleedBox"} {
		if a, err := c.x.DereferenceArray(d[key]); err != nil || len(a) != 4 {
			t.Errorf("page %d: %s %v", n, key, d[key])
		}
	}
	content, err := c.x.PageContent(d, n)
	if err != nil {
		t.Fatalf("page %d: %v", n, err)
	}
	spaces := types.Dict{}
	if inherited != nil && inherited.Resources != nil {
		if cs, err := c.x.DereferenceDict(inherited.Resources["ColorSpace"]); err == nil && cs != nil {
			spaces = cs
		}
	}
	if res, err := c.x.DereferenceDict(d["Resources"]); err == nil && res != nil {
		if cs, err := c.x.DereferenceDict(res["ColorSpace"]); err == nil && cs != nil {
			spaces = cs
		}
	}
	for _, e := range ContentColourErrors(content, func(name string) bool {
		return c.coveredSpace(spaces, name)
	}) {
		t.Errorf("page %d: %s", n, e)
	}
}

// coveredSpace reports whether the colour space a page's content selects
// by name is one PDF/X-4 allows with a CMYK output intent: ICC-based,
// DeviceCMYK (which the intent characterises), a Separation (a spot
// colour) whose alternate is one of those, or a pattern.
func (c *checker) coveredSpace(spaces types.Dict, name string) bool {
	if name == "Pattern" || name == "DeviceCMYK" {
		return true
	}
	a, err := c.x.DereferenceArray(spaces[name])
	if err != nil || len(a) < 2 {
		return false
	}
	switch a[0] {
	case types.Name("ICCBased"):
		return len(a) == 2
	case types.Name("Separation"):
		if len(a) != 4 {
			return false
		}
		if alt, ok := a[2].(types.Name); ok {
			return alt == "DeviceCMYK"
		}
		alt, err := c.x.DereferenceArray(a[2])
		return err == nil && len(alt) == 2 && alt[0] == types.Name("ICCBased")
	}
	return false
}

// objects walks every object for what PDF/X forbids anywhere: the
// DeviceRGB space, Interpolate true, and fonts not embedded.
func (c *checker) objects() {
	t := c.t
	for nr, e := range c.x.Table {
		if e == nil || e.Free || e.Object == nil {
			continue
		}
		var d types.Dict
		switch o := e.Object.(type) {
		case types.Dict:
			d = o
		case types.StreamDict:
			d = o.Dict
		}
		if d == nil {
			continue
		}
		walk(d, func(o types.Object) {
			if o == types.Name("DeviceRGB") {
				t.Errorf("object %d uses DeviceRGB: %v", nr, d)
			}
		})
		if b, ok := d["Interpolate"].(types.Boolean); ok && bool(b) {
			t.Errorf("object %d: Interpolate true", nr)
		}
		if c.name(d, "Type") == "FontDescriptor" && d["FontFile"] == nil && d["FontFile2"] == nil && d["FontFile3"] == nil {
			t.Errorf("font %s is not embedded", c.name(d, "FontName"))
		}
		if c.name(d, "Type") == "Font" && c.name(d, "Subtype") != "Type0" && d["FontDescriptor"] == nil {
			t.Errorf("font %s has no descriptor, so no font program", c.name(d, "BaseFont"))
		}
	}
}

// walk calls f on o and everything inside it (not through references).
func walk(o types.Object, f func(types.Object)) {
	f(o)
	switch v := o.(type) {
	case types.Dict:
		for _, e := range v {
			walk(e, f)
		}
	case types.Array:
		for _, e := range v {
			walk(e, f)
		}
	}
}

// ContentColourErrors lists what in a content stream sets colour outside
// the ICC-based spaces: g, G, rg, RG, k, K (DeviceGray, DeviceRGB,
// DeviceCMYK), a cs/CS naming a device space or a resource iccBased does
// not accept, sc/scn before any cs, and painting (a fill, a stroke, text)
// in the initial DeviceGray space, no colour set. q and Q save and
// restore the spaces selected.
func ContentColourErrors(content []byte, iccBased func(name string) bool) []string {
	var errs []string
	var operands []string
	type spaces struct{ fill, stroke string }
	var cur spaces
	var saved []spaces
	fill, stroke := &cur.fill, &cur.stroke
	for _, tok := range Tokens(content) {
		if !isOperator(tok) {
			operands = append(operands, tok)
			continue
		}
		if paintsFill[tok] && *fill == "" || paintsStroke[tok] && *stroke == "" {
			errs = append(errs, fmt.Sprintf("%q paints in the initial DeviceGray space", tok))
		}
		switch tok {
		case "q":
			saved = append(saved, cur)
		case "Q":
			if n := len(saved); n > 0 {
				cur, saved = saved[n-1], saved[:n-1]
			}
		case "g", "G", "rg", "RG", "k", "K":
			errs = append(errs, fmt.Sprintf("device colour operator %q %v", tok, operands))
		case "cs", "CS":
			name := ""
			if len(operands) > 0 {
				name = strings.TrimPrefix(operands[len(operands)-1], "/")
			}
			if !iccBased(name) {
				errs = append(errs, fmt.Sprintf("%s selects %q, not an ICC-based space", tok, name))
			}
			if tok == "cs" {
				*fill = name
			} else {
				*stroke = name
			}
		case "sc", "scn":
			if *fill == "" {
				errs = append(errs, tok+" in the initial DeviceGray space")
			}
		case "SC", "SCN":
			if *stroke == "" {
				errs = append(errs, tok+" in the initial DeviceGray space")
			}
		}
		operands = operands[:0]
	}
	return errs
}

// paintsFill and paintsStroke are the operators that paint with the fill
// or the stroke colour (text as well: its render mode is not followed).
var (
	paintsFill   = map[string]bool{"f": true, "F": true, "f*": true, "B": true, "B*": true, "b": true, "b*": true, "Tj": true, "TJ": true, "'": true, "\"": true}
	paintsStroke = map[string]bool{"S": true, "s": true, "B": true, "B*": true, "b": true, "b*": true}
)

// isOperator tells an operator token from an operand.
func isOperator(tok string) bool {
	switch tok[0] {
	case '/', '(', '<', '[', ']', '>':
		return false
	}
	if tok == "true" || tok == "false" || tok == "null" {
		return false
	}
	return !strings.ContainsAny(tok[:1], "+-.0123456789")
}

// Tokens splits a content stream into tokens: names, numbers, operators,
// whole strings ((…) with escapes and nesting, <…>), and [ ] << >> as
// their own tokens. Strings are kept whole so that the bytes of a glyph
// run never read as operators. Inline images (BI … EI) are not expected.
func Tokens(b []byte) []string {
	var toks []string
	for i := 0; i < len(b); {
		ch := b[i]
		switch {
		case isSpace(ch):
			i++
		case ch == '%':
			for i < len(b) && b[i] != '\n' && b[i] != '\r' {
				i++
			}
		case ch == '(':
			j, depth := i+1, 1
			for ; j < len(b) && depth > 0; j++ {
				switch b[j] {
				case '\\':
					j++
				case '(':
					depth++
				case ')':
					depth--
				}
			}
			toks = append(toks, string(b[i:j]))
			i = j
		case ch == '<' && i+1 < len(b) && b[i+1] == '<', ch == '>' && i+1 < len(b) && b[i+1] == '>':
			toks = append(toks, string(b[i:i+2]))
			i += 2
		case ch == '<':
			j := bytes.IndexByte(b[i:], '>')
			if j < 0 {
				j = len(b) - i - 1
			}
			toks = append(toks, string(b[i:i+j+1]))
			i += j + 1
		case ch == '[' || ch == ']' || ch == '{' || ch == '}':
			toks = append(toks, string(ch))
			i++
		default:
			j := i + 1
			for j < len(b) && !isSpace(b[j]) && !isDelimiter(b[j]) {
				j++
			}
			toks = append(toks, string(b[i:j]))
			i = j
		}
	}
	return toks
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelimiter(c byte) bool { return strings.IndexByte("()<>[]{}/%", c) >= 0 }

// OutputIntent is what a file's output intent names, and its profile.
type OutputIntent struct {
	Identifier, Condition, RegistryName, Info string
	Profile                                   []byte
}

// OutputIntentOf reads the one output intent of pdf: its names and the
// bytes of its DestOutputProfile.
func OutputIntentOf(t testing.TB, pdf []byte) OutputIntent {
	t.Helper()
	ctx, err := api.ReadContext(bytes.NewReader(pdf), model.NewDefaultConfiguration())
	if err != nil {
		t.Fatalf("pdfcpu cannot read the file: %v", err)
	}
	c := &checker{t: t, x: ctx.XRefTable}
	catalog, err := c.x.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	intents, err := c.x.DereferenceArray(catalog["OutputIntents"])
	if err != nil || len(intents) != 1 {
		t.Fatalf("OutputIntents %v (%v), want one", catalog["OutputIntents"], err)
	}
	oi := c.dict(intents[0])
	return OutputIntent{
		Identifier: c.text(oi, "OutputConditionIdentifier"), Condition: c.text(oi, "OutputCondition"),
		RegistryName: c.text(oi, "RegistryName"), Info: c.text(oi, "Info"),
		Profile: c.stream(oi["DestOutputProfile"]).Content,
	}
}
