// Markdown writes the API reference users read in the repository,
// docs/api-reference.md, from the OpenAPI document the server answers at
// /openapi.json: every operation with its token, parameters, request body
// and answers, and every type with each of its fields (type, whether it is
// always present or must be sent, whether it can be null, what it means).
// Being made from the document, which is made from the protos, it lists
// exactly what the server serves; `make generate` rewrites it and a test
// fails when the committed file differs.

package openapidoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// document is the part of an OpenAPI 3.1 document the reference reads.
type document struct {
	Info struct {
		Title       string `json:"title"`
		Description string `json:"description"`
	} `json:"info"`
	Paths      map[string]map[string]operation `json:"paths"`
	Webhooks   map[string]map[string]operation `json:"webhooks"`
	Components struct {
		Schemas         map[string]*schema `json:"schemas"`
		Responses       map[string]answer  `json:"responses"`
		SecuritySchemes map[string]struct {
			Description string `json:"description"`
		} `json:"securitySchemes"`
	} `json:"components"`
}

type operation struct {
	Summary     string                `json:"summary"`
	Description string                `json:"description"`
	Parameters  []parameter           `json:"parameters"`
	RequestBody *body                 `json:"requestBody"`
	Responses   map[string]answer     `json:"responses"`
	Security    []map[string][]string `json:"security"`
}

type parameter struct {
	Name        string  `json:"name"`
	In          string  `json:"in"`
	Required    bool    `json:"required"`
	Description string  `json:"description"`
	Schema      *schema `json:"schema"`
}

type body struct {
	Content map[string]struct {
		Schema *schema `json:"schema"`
	} `json:"content"`
	Required bool `json:"required"`
}

type answer struct {
	Ref         string `json:"$ref"`
	Description string `json:"description"`
	Content     map[string]struct {
		Schema *schema `json:"schema"`
	} `json:"content"`
	Headers map[string]struct {
		Description string `json:"description"`
	} `json:"headers"`
}

type schema struct {
	Ref         string             `json:"$ref"`
	Type        any                `json:"type"` // a string, or a list such as ["string", "null"]
	Format      string             `json:"format"`
	Description string             `json:"description"`
	Properties  map[string]*schema `json:"properties"`
	Required    []string           `json:"required"`
	Items       *schema            `json:"items"`
	AnyOf       []*schema          `json:"anyOf"`
	Enum        []any              `json:"enum"`
	Minimum     *float64           `json:"minimum"`
	Maximum     *float64           `json:"maximum"`
	// AdditionalProperties is a map's value type, or a bool.
	AdditionalProperties json.RawMessage `json:"additionalProperties"`
}

// mapValue is the value type of a map (an object with
// additionalProperties a schema), or nil.
func (s *schema) mapValue() *schema {
	var v schema
	if len(s.AdditionalProperties) == 0 || json.Unmarshal(s.AdditionalProperties, &v) != nil {
		return nil // absent, or true or false
	}
	return &v
}

// Markdown renders the reference of an OpenAPI 3.1 document.
func Markdown(openapi []byte) ([]byte, error) {
	var doc document
	if err := json.Unmarshal(openapi, &doc); err != nil {
		return nil, fmt.Errorf("api reference: the OpenAPI document: %w", err)
	}
	if len(doc.Paths) == 0 {
		return nil, fmt.Errorf("api reference: the OpenAPI document has no paths")
	}
	w := &writer{doc: &doc}
	w.intro()
	for _, g := range groups {
		w.group(g)
	}
	w.webhooks()
	w.types()
	return w.buf.Bytes(), nil
}

// A group is a part of the API: the paths whose prefix it names, less
// those a group listed before it took.
type group struct {
	title, intro string
	match        func(path string) bool
}

var groups = []group{
	{"Operator API", "For the print shop's operators, with an operator token (`plo_…`).",
		func(p string) bool { return strings.HasPrefix(p, "/api/v1/operator/") }},
	{"Family A: order management", "Orders, print status, print files, the catalogue, design versions, batch orders and a store's webhook, under `/api/v1`, with a client token (`plt_…`).",
		func(p string) bool { return strings.HasPrefix(p, "/api/v1/") }},
	{"Family B: shop orders", "Shop orders by design reference and quantity, and their files, under `/v1/shop`, with a client token.",
		func(p string) bool { return strings.HasPrefix(p, "/v1/shop/") }},
	{"Downloads and operations", "Signed download links, health, readiness, metrics and this document: no token.",
		func(string) bool { return true }},
}

// methodOrder is the order operations of one path are listed in.
var methodOrder = []string{"get", "head", "post", "put", "patch", "delete"}

type writer struct {
	doc  *document
	buf  bytes.Buffer
	seen map[string]bool // paths already listed by a group
}

func (w *writer) printf(format string, args ...any) { fmt.Fprintf(&w.buf, format, args...) }

func (w *writer) intro() {
	w.printf("# API reference\n\n")
	w.printf("<!-- Generated from gen/openapi/platen.openapi.json by `make generate`. Do not edit. -->\n\n")
	w.printf("Every operation Platen serves over HTTP, and every type its requests and answers carry. The same\n")
	w.printf("document, as OpenAPI 3.1, is served at `/openapi.json`, and drawn at `/docs`.\n\n")
	w.printf("How to read the tables:\n\n")
	w.printf("- **Required**, in a request type: the field must be sent. In an answer type: the field is always\n")
	w.printf("  present (its value may still be `null` where the type says so).\n")
	w.printf("- **null**: the field may be `null`. A request may send `null` for a field to leave it unset.\n")
	w.printf("- Integers and prices are JSON numbers, never strings. Times are RFC 3339, in UTC.\n")
	w.printf("- Every error is a JSON body, [Error](#error): `code` (the gRPC status code), `message` (which\n")
	w.printf("  names the field and says what is wrong) and `details`.\n\n")
	w.printf("Tokens, sent as `Authorization: Bearer <token>`:\n\n")
	for _, name := range sortedKeys(w.doc.Components.SecuritySchemes) {
		w.printf("- `%s`: %s\n", name, oneLine(w.doc.Components.SecuritySchemes[name].Description))
	}
	w.printf("\nThe shared answers the operations below refer to:\n\n")
	for _, name := range sortedKeys(w.doc.Components.Responses) {
		a := w.doc.Components.Responses[name]
		desc := oneLine(a.Description)
		for _, h := range sortedKeys(a.Headers) {
			desc += fmt.Sprintf(" It carries the header `%s: %s`.", h, oneLine(a.Headers[h].Description))
		}
		w.printf("- **%s**: %s\n", name, desc)
	}
	w.printf("\n")
}

func (w *writer) group(g group) {
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	var paths []string
	for _, p := range sortedKeys(w.doc.Paths) {
		if !w.seen[p] && g.match(p) {
			paths = append(paths, p)
			w.seen[p] = true
		}
	}
	if len(paths) == 0 {
		return
	}
	w.printf("## %s\n\n%s\n\n", g.title, g.intro)
	for _, p := range paths {
		ops := w.doc.Paths[p]
		for _, m := range methodOrder {
			if op, ok := ops[m]; ok {
				w.operation(strings.ToUpper(m), p, op)
			}
		}
	}
}

// webhooks lists the events Platen POSTs to a store's endpoint.
func (w *writer) webhooks() {
	if len(w.doc.Webhooks) == 0 {
		return
	}
	w.printf("## Webhooks\n\nThe events Platen POSTs to a store's webhook endpoint, each with these headers and body.\n\n")
	for _, event := range sortedKeys(w.doc.Webhooks) {
		op := w.doc.Webhooks[event]["post"]
		w.printf("### `%s`\n\n%s %s\n\n", event, oneLine(op.Summary), oneLine(op.Description))
		w.printf("| header | required | description |\n|---|---|---|\n")
		for _, p := range op.Parameters {
			w.printf("| `%s` | %s | %s |\n", p.Name, yes(p.Required), cell(p.Description))
		}
		w.printf("\n")
		if b := op.RequestBody; b != nil {
			for _, ct := range sortedKeys(b.Content) {
				w.printf("Body (`%s`): %s.\n\n", ct, typeOf(b.Content[ct].Schema))
			}
		}
	}
}

func (w *writer) operation(method, path string, op operation) {
	w.printf("### `%s %s`\n\n", method, path)
	// Descriptions made from a proto comment repeat its first sentence,
	// the summary; those written for the document do not.
	summary, desc := oneLine(op.Summary), paragraph(op.Description)
	if summary != "" && !strings.HasPrefix(desc, strings.TrimSuffix(summary, ".")) {
		w.printf("%s\n\n", summary)
	}
	if desc != "" {
		w.printf("%s\n\n", desc)
	}
	w.printf("Token: %s.\n\n", tokens(op.Security))
	if len(op.Parameters) > 0 {
		w.printf("| parameter | in | type | required | description |\n|---|---|---|---|---|\n")
		for _, p := range op.Parameters {
			w.printf("| `%s` | %s | %s | %s | %s |\n", p.Name, p.In, typeOf(p.Schema), yes(p.Required), cell(p.Description))
		}
		w.printf("\n")
	}
	if b := op.RequestBody; b != nil {
		for _, ct := range sortedKeys(b.Content) {
			w.printf("Request body (`%s`): %s.\n\n", ct, typeOf(b.Content[ct].Schema))
		}
	}
	w.printf("| answer | body | description |\n|---|---|---|\n")
	for _, code := range sortedKeys(op.Responses) {
		if name, ok := strings.CutPrefix(op.Responses[code].Ref, "#/components/responses/"); ok {
			w.printf("| %s | [Error](#error) | the shared answer %s, above |\n", code, name)
			continue
		}
		a := op.Responses[code]
		bodyType := "none"
		if cts := sortedKeys(a.Content); len(cts) > 0 {
			var kinds []string
			for _, ct := range cts {
				kinds = append(kinds, fmt.Sprintf("%s (`%s`)", typeOf(a.Content[ct].Schema), ct))
			}
			bodyType = strings.Join(kinds, ", ")
		}
		desc := a.Description
		for _, h := range sortedKeys(a.Headers) {
			desc += fmt.Sprintf(" Header `%s`: %s", h, a.Headers[h].Description)
		}
		w.printf("| %s | %s | %s |\n", code, bodyType, cell(desc))
	}
	w.printf("\n")
}

func (w *writer) types() {
	w.printf("## Types\n\n")
	for _, name := range sortedKeys(w.doc.Components.Schemas) {
		s := w.doc.Components.Schemas[name]
		w.printf("### %s\n\n", name)
		if s.Description != "" {
			w.printf("%s\n\n", paragraph(s.Description))
		}
		if len(s.Properties) == 0 {
			w.printf("Type: %s.\n\n", typeOf(s))
			continue
		}
		w.printf("| field | type | required | null | description |\n|---|---|---|---|---|\n")
		for _, field := range sortedKeys(s.Properties) {
			f := s.Properties[field]
			w.printf("| `%s` | %s | %s | %s | %s |\n", field, typeOf(f), yes(slices.Contains(s.Required, field)),
				yes(isNullable(f)), cell(describe(f)))
		}
		w.printf("\n")
	}
}

// typeOf is a schema's type as the tables print it, linking named types.
func typeOf(s *schema) string {
	if s == nil {
		return "any"
	}
	if name, ok := strings.CutPrefix(s.Ref, "#/components/schemas/"); ok {
		return fmt.Sprintf("[%s](#%s)", name, strings.ToLower(name))
	}
	for _, alt := range s.AnyOf {
		if t := baseType(alt); t != "null" {
			return typeOf(alt)
		}
	}
	t := baseType(s)
	switch t {
	case "array":
		return "array of " + typeOf(s.Items)
	case "object":
		if v := s.mapValue(); v != nil {
			return "object of " + typeOf(v)
		}
	case "":
		return "any"
	}
	if s.Format != "" {
		t += " (" + s.Format + ")"
	}
	return t
}

// baseType is a schema's type less "null".
func baseType(s *schema) string {
	switch t := s.Type.(type) {
	case string:
		return t
	case []any:
		for _, v := range t {
			if v != "null" {
				return fmt.Sprint(v)
			}
		}
		return "null"
	}
	if s.Ref != "" {
		return "object"
	}
	return ""
}

// isNullable reports whether a schema of the reference allows null.
func isNullable(s *schema) bool {
	if list, ok := s.Type.([]any); ok && slices.Contains(list, any("null")) {
		return true
	}
	return slices.ContainsFunc(s.AnyOf, func(alt *schema) bool { return baseType(alt) == "null" })
}

// describe is a field's description with its allowed values and range.
func describe(s *schema) string {
	d := s.Description
	if len(s.Enum) > 0 {
		var vals []string
		for _, v := range s.Enum {
			if v != nil {
				vals = append(vals, fmt.Sprintf("`%v`", v))
			}
		}
		d = strings.TrimSpace(d + " One of " + strings.Join(vals, ", ") + ".")
	}
	if s.Minimum != nil && s.Maximum != nil {
		d = strings.TrimSpace(fmt.Sprintf("%s From %s to %s.", d, number(*s.Minimum), number(*s.Maximum)))
	}
	return d
}

func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func tokens(security []map[string][]string) string {
	if security == nil {
		return "a client token (`clientToken`)"
	}
	var names []string
	for _, req := range security {
		for name := range req {
			names = append(names, "`"+name+"`")
		}
	}
	if len(names) == 0 {
		return "none"
	}
	sort.Strings(names)
	return strings.Join(names, " or ")
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return ""
}

// paragraph joins a description's wrapped lines into one paragraph per
// blank-line-separated block.
func paragraph(s string) string {
	blocks := strings.Split(strings.TrimSpace(s), "\n\n")
	for i, b := range blocks {
		blocks[i] = oneLine(b)
	}
	return strings.Join(blocks, "\n\n")
}

// cell is text fit for a table cell: one line, pipes escaped.
func cell(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", `\|`)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
