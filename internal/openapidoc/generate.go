// Generate makes Platen's OpenAPI 3.1 document from what
// protoc-gen-openapiv2 generates from the protos (Swagger 2.0, one merged
// file), converted with kin-openapi's openapi2conv, and completed from the
// proto descriptors with what Swagger 2.0 and the generator cannot say:
//
//   - required and nullable fields, by the gateway's JSON codec: every field
//     outside a oneof is always written (EmitUnpopulated), so it is required
//     in a response; a singular message field (a wrapper, a Timestamp, a
//     Struct, a nested message) is written as null when unset, so it is
//     nullable. Request bodies require the fields whose comment begins with
//     "Required", the protos' convention. A message used in both directions
//     gets a second schema, <Name>Input, for requests;
//   - the error body on every error status, and 401 where a token is needed;
//   - the Bearer schemes: client tokens (plt_) everywhere but the operator
//     API, operator tokens (plo_) there;
//   - statuses other than 200 that a handler chooses (201), from a declared
//     table (statuses.go);
//   - the routes served beside the gateway (routes.go), a declared table;
//   - no route whose method is not implemented (it would answer 501).
//
// Generate is deterministic: the same input gives the same bytes.

package openapidoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Options are what Generate needs besides the Swagger document.
type Options struct {
	// Files resolves the messages and services the document names
	// (protoregistry.GlobalFiles, with the platen.v1 Go package linked in).
	Files *protoregistry.Files
	// Unimplemented are the full names of the methods whose service does
	// not implement them (platen.v1.OperatorService.GetBatchOrder): their
	// routes answer 501 and are left out.
	Unimplemented map[protoreflect.FullName]bool
}

// Package is the proto package whose services the document describes.
const Package = "platen.v1"

// Generate turns protoc-gen-openapiv2's merged Swagger 2.0 document into the
// OpenAPI 3.1 document, as indented JSON.
func Generate(swagger []byte, opts Options) ([]byte, error) {
	if opts.Files == nil {
		opts.Files = protoregistry.GlobalFiles
	}
	var doc2 openapi2.T
	if err := json.Unmarshal(swagger, &doc2); err != nil {
		return nil, fmt.Errorf("read the Swagger document: %w", err)
	}
	refDescriptions, err := refPropertyDescriptions(swagger)
	if err != nil {
		return nil, err
	}
	doc, err := openapi2conv.ToV3(&doc2)
	if err != nil {
		return nil, fmt.Errorf("convert to OpenAPI 3: %w", err)
	}
	g := &generator{doc: doc, opts: opts, refDescriptions: refDescriptions}
	steps := []func() error{
		g.info,
		g.operations,
		g.schemas,
		g.declaredRoutes,
		g.names,
		g.webhooks,
		g.bounds,
		g.tags,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return g.marshal()
}

type generator struct {
	doc  *openapi3.T
	opts Options
	// refDescriptions are the descriptions protoc-gen-openapiv2 wrote beside
	// a $ref (definition → property → text): the conversion drops them.
	refDescriptions map[string]map[string]string
	// methods maps each operation to its RPC.
	methods map[*openapi3.Operation]protoreflect.MethodDescriptor
}

// refPropertyDescriptions reads the descriptions that sit beside a $ref in
// the Swagger document's definitions.
func refPropertyDescriptions(swagger []byte) (map[string]map[string]string, error) {
	var raw struct {
		Definitions map[string]struct {
			Properties map[string]struct {
				Ref         string `json:"$ref"`
				Title       string `json:"title"`
				Description string `json:"description"`
			} `json:"properties"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(swagger, &raw); err != nil {
		return nil, fmt.Errorf("read the Swagger definitions: %w", err)
	}
	out := map[string]map[string]string{}
	for name, def := range raw.Definitions {
		for prop, p := range def.Properties {
			if p.Ref == "" {
				continue
			}
			if out[name] == nil {
				out[name] = map[string]string{}
			}
			out[name][prop] = joinText(p.Title, p.Description)
		}
	}
	return out, nil
}

// joinText puts a title and a description back together as the proto
// comment they came from (protoc-gen-openapiv2 splits off a first paragraph
// as the title).
func joinText(title, description string) string {
	switch {
	case title == "":
		return description
	case description == "":
		return title
	}
	return title + "\n\n" + description
}

func (g *generator) info() error {
	g.doc.OpenAPI = "3.1.0"
	g.doc.Info = &openapi3.Info{
		Title:   "Platen",
		Version: strings.TrimPrefix(Package, "platen."),
		Description: strings.Join([]string{
			"Platen's HTTP API: Family A orders (`/api/v1/...`), Family B shop orders (`/v1/shop/...`),",
			"the catalogue, design versions, batches, webhooks, the operator API, and the endpoints beside",
			"them (health, readiness, metrics, download links, this document).",
			"",
			"JSON names are the proto field names. Every field of an answer is present, except a",
			"`optional` scalar that is unset; fields that may be `null` say so. `HEAD` is answered",
			"wherever `GET` is, with the same status and headers. A method a path does not list is",
			"405 with an `Allow` header naming those it does (an operation OpenAPI cannot attach it to).",
			"Every error is the JSON error body (`Error`), whose `code` is the gRPC status code.",
		}, "\n"),
		License: &openapi3.License{Name: "Apache-2.0", Identifier: "Apache-2.0"},
	}
	g.doc.Servers = openapi3.Servers{{URL: "/", Description: "the server that serves this document"}}
	return nil
}

// marshal writes the document with its top-level members in the usual
// order, two-space indented, ending in a newline.
func (g *generator) marshal() ([]byte, error) {
	parts := []struct {
		key string
		val any
	}{
		{"openapi", g.doc.OpenAPI},
		{"info", g.doc.Info},
		{"servers", g.doc.Servers},
		{"security", g.doc.Security},
		{"tags", g.doc.Tags},
		{"paths", g.doc.Paths},
		{"webhooks", g.doc.Webhooks},
		{"components", g.doc.Components},
	}
	var buf bytes.Buffer
	buf.WriteString("{")
	for i, p := range parts {
		if i > 0 {
			buf.WriteString(",")
		}
		k, _ := json.Marshal(p.key)
		v, err := json.Marshal(p.val)
		if err != nil {
			return nil, fmt.Errorf("marshal %s: %w", p.key, err)
		}
		buf.Write(k)
		buf.WriteString(":")
		buf.Write(v)
	}
	buf.WriteString("}")
	var out bytes.Buffer
	if err := json.Indent(&out, buf.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteString("\n")
	return out.Bytes(), nil
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// firstSentence is the summary of a comment: its text up to the first full
// stop that ends a sentence, on one line.
func firstSentence(text string) string {
	flat := strings.Join(strings.Fields(text), " ")
	if i := sentenceEnd.FindStringIndex(flat); i != nil {
		return flat[:i[0]+1]
	}
	return flat
}

var sentenceEnd = regexp.MustCompile(`\.(\s|$)`)

// operationsOf calls fn for every operation of the document, in path and
// method order.
func (g *generator) operationsOf(fn func(path, method string, op *openapi3.Operation) error) error {
	for _, path := range g.doc.Paths.InMatchingOrder() {
		item := g.doc.Paths.Value(path)
		ops := item.Operations()
		methods := sortedKeys(ops)
		for _, m := range methods {
			if err := fn(path, m, ops[m]); err != nil {
				return err
			}
		}
	}
	return nil
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }
