package openapidoc

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"google.golang.org/protobuf/reflect/protoreflect"
)

const schemaPrefix = "#/components/schemas/"

// inputSuffix names the request copy of a schema used in both directions.
const inputSuffix = "Input"

// requiredComment is the protos' convention for a field a request must
// carry: its comment begins with "Required" ("Required.", "Required: …",
// "Required, at least one: …").
var requiredComment = regexp.MustCompile(`^Required\b`)

// direction is how a schema is used: in answers, or in request bodies.
type direction int

const (
	response direction = iota
	request
)

// schemas completes the component schemas from the messages they stand
// for: required and nullable fields, unsigned bounds, the descriptions the
// conversion dropped; and gives the messages used in both directions a
// request copy.
func (g *generator) schemas() error {
	messages, err := g.schemaMessages()
	if err != nil {
		return err
	}
	schemas := g.doc.Components.Schemas
	inResponses := g.reachable(g.roots(response))
	inRequests := g.reachable(g.roots(request))

	// Request copies first, from the schemas as converted.
	renamed := map[string]string{}
	for _, name := range sortedKeys(inRequests) {
		if !inResponses[name] {
			continue
		}
		copyName := name + inputSuffix
		if _, taken := schemas[copyName]; taken {
			return fmt.Errorf("schema %s: the name of its request copy, %s, is taken", name, copyName)
		}
		c, err := cloneSchema(schemas[name])
		if err != nil {
			return err
		}
		schemas[copyName] = c
		messages[copyName] = messages[name]
		g.refDescriptions[copyName] = g.refDescriptions[name]
		renamed[name] = copyName
	}
	requestNames := map[string]bool{}
	for name := range inRequests {
		if n, ok := renamed[name]; ok {
			name = n
		}
		requestNames[name] = true
	}
	// Request schemas point at request copies, wherever they are used.
	for name := range requestNames {
		walkSchemaRef(schemas[name], func(r *openapi3.SchemaRef) {
			if n, ok := renamed[strings.TrimPrefix(r.Ref, schemaPrefix)]; ok && r.Ref != "" {
				r.Ref = schemaPrefix + n
			}
		}, true)
	}
	g.forEachRequestBody(func(r *openapi3.SchemaRef) {
		if n, ok := renamed[strings.TrimPrefix(r.Ref, schemaPrefix)]; ok && r.Ref != "" {
			r.Ref = schemaPrefix + n
		}
	})

	for _, name := range sortedKeys(schemas) {
		md, ok := messages[name]
		if !ok || md.ParentFile().Package() == "google.protobuf" {
			// The well-known types have JSON of their own (Any's @type).
			continue
		}
		dir := response
		if requestNames[name] {
			dir = request
		}
		if err := g.completeSchema(name, schemas[name].Value, md, dir); err != nil {
			return err
		}
	}
	return nil
}

// schemaMessages maps each component schema to the message it stands for:
// by its full name (the generator's fqn naming), or, for a request body
// without its path parameters (Service.MethodBody), the method's input.
func (g *generator) schemaMessages() (map[string]protoreflect.MessageDescriptor, error) {
	out := map[string]protoreflect.MessageDescriptor{}
	for name := range g.doc.Components.Schemas {
		d, err := g.opts.Files.FindDescriptorByName(protoreflect.FullName(name))
		if err != nil {
			continue
		}
		if md, ok := d.(protoreflect.MessageDescriptor); ok {
			out[name] = md
		}
	}
	for op, md := range g.methods {
		if op.RequestBody == nil || op.RequestBody.Value == nil {
			continue
		}
		for _, mt := range op.RequestBody.Value.Content {
			if mt.Schema == nil || mt.Schema.Ref == "" {
				continue
			}
			name := strings.TrimPrefix(mt.Schema.Ref, schemaPrefix)
			if _, ok := out[name]; !ok {
				out[name] = md.Input()
			}
		}
	}
	for name := range g.doc.Components.Schemas {
		if _, ok := out[name]; !ok && strings.HasPrefix(name, Package+".") {
			return nil, fmt.Errorf("schema %s stands for no message", name)
		}
	}
	return out, nil
}

// roots are the schemas the operations name directly, in answers or in
// request bodies; the error body counts as an answer.
func (g *generator) roots(dir direction) []string {
	var names []string
	add := func(r *openapi3.SchemaRef) {
		if r != nil && r.Ref != "" {
			names = append(names, strings.TrimPrefix(r.Ref, schemaPrefix))
		}
	}
	if dir == request {
		g.forEachRequestBody(add)
		return names
	}
	for op := range g.methods {
		for _, code := range sortedKeys(op.Responses.Map()) {
			r := op.Responses.Value(code)
			if r.Value == nil {
				continue
			}
			for _, mt := range r.Value.Content {
				add(mt.Schema)
			}
		}
	}
	names = append(names, errorStatus)
	return names
}

// forEachRequestBody calls fn with the schema of every gateway request body.
func (g *generator) forEachRequestBody(fn func(*openapi3.SchemaRef)) {
	for op := range g.methods {
		if op.RequestBody == nil || op.RequestBody.Value == nil {
			continue
		}
		for _, mt := range op.RequestBody.Value.Content {
			if mt.Schema != nil {
				fn(mt.Schema)
			}
		}
	}
}

// reachable is the set of schemas the roots refer to, directly or not.
func (g *generator) reachable(roots []string) map[string]bool {
	seen := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		if seen[name] {
			return
		}
		s, ok := g.doc.Components.Schemas[name]
		if !ok {
			return
		}
		seen[name] = true
		walkSchemaRef(s, func(r *openapi3.SchemaRef) {
			if r.Ref != "" {
				visit(strings.TrimPrefix(r.Ref, schemaPrefix))
			}
		}, true)
	}
	for _, r := range roots {
		visit(r)
	}
	return seen
}

// completeSchema applies the codec's rules to the schema of message md.
func (g *generator) completeSchema(name string, s *openapi3.Schema, md protoreflect.MessageDescriptor, dir direction) error {
	if s == nil {
		return fmt.Errorf("schema %s has no value", name)
	}
	s.Required = nil
	for _, prop := range sortedKeys(s.Properties) {
		fd := md.Fields().ByName(protoreflect.Name(prop))
		if fd == nil {
			return fmt.Errorf("schema %s: %s has no field %s", name, md.FullName(), prop)
		}
		p := s.Properties[prop]
		desc := ""
		if p.Ref != "" {
			desc = g.refDescriptions[name][prop]
		} else if p.Value != nil {
			desc = joinText(p.Value.Title, p.Value.Description)
			p.Value.Title, p.Value.Description = "", desc
		}
		switch dir {
		case response:
			// The codec writes every field (EmitUnpopulated) but an unset
			// oneof member, and a proto3 optional is one.
			if fd.ContainingOneof() == nil {
				s.Required = append(s.Required, prop)
			}
		case request:
			if requiredComment.MatchString(desc) {
				s.Required = append(s.Required, prop)
			}
		}
		if unsigned(fd) && p.Value != nil {
			target := p.Value
			if target.Items != nil && fd.IsList() {
				target = target.Items.Value
			}
			zero, max := 0.0, float64(math.MaxUint32)
			target.Min, target.Max = &zero, &max
			target.Format = ""
		}
		if nullable(fd) {
			s.Properties[prop] = withNull(p, desc)
		}
	}
	return nil
}

// nullable says whether the codec may write the field as null: a singular
// message field that is unset (a wrapper, a Timestamp, a Struct, a nested
// message); protojson reads null there as unset too.
func nullable(fd protoreflect.FieldDescriptor) bool {
	return fd.Message() != nil && !fd.IsList() && !fd.IsMap() && fd.Message().FullName() != "google.protobuf.Value"
}

// unsigned says whether the field holds a 32-bit unsigned integer.
func unsigned(fd protoreflect.FieldDescriptor) bool {
	switch fd.Kind() {
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return true
	case protoreflect.MessageKind:
		return fd.Message().FullName() == "google.protobuf.UInt32Value"
	}
	return false
}

// withNull is p that also takes null: a type list with "null" (OpenAPI 3.1),
// or, for a reference, anyOf the reference and null.
func withNull(p *openapi3.SchemaRef, desc string) *openapi3.SchemaRef {
	if p.Ref != "" {
		return &openapi3.SchemaRef{Value: &openapi3.Schema{
			Description: desc,
			AnyOf:       openapi3.SchemaRefs{{Ref: p.Ref}, {Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeNull}}}},
		}}
	}
	if p.Value.Type != nil && !p.Value.Type.Includes(openapi3.TypeNull) {
		t := append(openapi3.Types{}, p.Value.Type.Slice()...)
		t = append(t, openapi3.TypeNull)
		p.Value.Type = &t
	}
	return p
}

// cloneSchema copies a schema through JSON.
func cloneSchema(s *openapi3.SchemaRef) (*openapi3.SchemaRef, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var c openapi3.SchemaRef
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// walkSchemaRef calls fn on r and the schemas inside it; it stops at
// references (whose schema is elsewhere) after calling fn on them, and
// with refsOnly calls fn only on references.
func walkSchemaRef(r *openapi3.SchemaRef, fn func(*openapi3.SchemaRef), refsOnly bool) {
	if r == nil {
		return
	}
	if r.Ref != "" {
		fn(r)
		return
	}
	if !refsOnly {
		fn(r)
	}
	s := r.Value
	if s == nil {
		return
	}
	for _, k := range sortedKeys(s.Properties) {
		walkSchemaRef(s.Properties[k], fn, refsOnly)
	}
	walkSchemaRef(s.Items, fn, refsOnly)
	walkSchemaRef(s.AdditionalProperties.Schema, fn, refsOnly)
	for _, list := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
		for _, x := range list {
			walkSchemaRef(x, fn, refsOnly)
		}
	}
}
