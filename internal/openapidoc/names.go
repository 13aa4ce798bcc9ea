package openapidoc

import (
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// wellKnownNames name the schemas of the error body.
var wellKnownNames = map[string]string{
	errorStatus:           errorSchema,
	"google.protobuf.Any": "ErrorDetail",
}

// wellKnownDescriptions describe the error body's schemas, whose messages
// (googleapis') say nothing of their JSON here.
var wellKnownDescriptions = map[string]string{
	errorSchema: "The JSON error body of every error: `code` is the gRPC status code, `message` says what is " +
		"wrong, and `details` holds typed details, such as a `google.rpc.BadRequest` naming the fields of a 400.",
	"ErrorDetail": "A typed detail: `@type` names it (`type.googleapis.com/google.rpc.BadRequest`), its " +
		"fields follow (`field_violations`: `field`, `description`).",
}

// clientNames rename the messages whose names client generators give to
// types of their own for an operation (see generatedTypeSuffixes): with
// both, oapi-codegen's client does not compile.
var clientNames = map[string]string{
	Package + ".OperatorServiceListProductVariantsResponse": "OperatorProductVariantPage",
}

// generatedTypeSuffixes are what oapi-codegen appends to an operation's id
// (without its underscores) to name the types it makes for the operation:
// its query parameters, its request body, and its answer.
var generatedTypeSuffixes = []string{"Params", "JSONBody", "JSONRequestBody", "Response"}

// schemaName is the short name of a schema the generator named by its
// full name: the message's name (Order), or the service and method of a
// request body without its path parameters (OrderServiceUpdateOrderBody).
func schemaName(full string) string {
	if n, ok := wellKnownNames[full]; ok {
		return n
	}
	if n, ok := clientNames[full]; ok {
		return n
	}
	if rest, ok := strings.CutPrefix(full, Package+"."); ok {
		return strings.ReplaceAll(rest, ".", "")
	}
	if i := strings.LastIndex(full, "."); i >= 0 {
		return full[i+1:]
	}
	return full
}

// names gives the schemas short names, and drops the schemas nothing
// refers to.
func (g *generator) names() error {
	old := g.doc.Components.Schemas
	renamed := map[string]string{}
	taken := map[string]string{}
	for _, name := range sortedKeys(old) {
		short := schemaName(name)
		if other, ok := taken[short]; ok {
			return fmt.Errorf("schemas %s and %s would both be named %s", other, name, short)
		}
		taken[short] = name
		renamed[name] = short
	}
	if err := g.checkGeneratedTypeNames(taken); err != nil {
		return err
	}
	// A reference may be reached twice (responses share their content):
	// renaming is done once.
	done := map[*openapi3.SchemaRef]bool{}
	rename := func(r *openapi3.SchemaRef) {
		if r.Ref == "" || done[r] {
			return
		}
		done[r] = true
		short, ok := renamed[strings.TrimPrefix(r.Ref, schemaPrefix)]
		if !ok {
			panic("reference to no schema: " + r.Ref)
		}
		r.Ref = schemaPrefix + short
	}
	g.eachSchemaRoot(func(r *openapi3.SchemaRef) { walkSchemaRef(r, rename, true) })
	schemas := openapi3.Schemas{}
	for name, s := range old {
		walkSchemaRef(s, rename, true)
		if s.Ref == "" {
			schemas[renamed[name]] = s
		}
	}
	// Keep what the paths and shared responses use, and what those use.
	used := map[string]bool{}
	var visit func(r *openapi3.SchemaRef)
	visit = func(r *openapi3.SchemaRef) {
		name := strings.TrimPrefix(r.Ref, schemaPrefix)
		if used[name] {
			return
		}
		used[name] = true
		if s, ok := schemas[name]; ok {
			walkSchemaRef(s, visit, true)
		}
	}
	g.eachSchemaRoot(func(r *openapi3.SchemaRef) { walkSchemaRef(r, visit, true) })
	for name := range schemas {
		if !used[name] {
			delete(schemas, name)
		}
	}
	for name, desc := range wellKnownDescriptions {
		if s, ok := schemas[name]; ok && s.Value != nil && s.Value.Description == "" {
			s.Value.Description = desc
		}
	}
	g.doc.Components.Schemas = schemas
	return nil
}

// checkGeneratedTypeNames refuses a schema named as a client generator
// names a type it makes for an operation.
func (g *generator) checkGeneratedTypeNames(taken map[string]string) error {
	return g.operationsOf(func(path, method string, op *openapi3.Operation) error {
		for _, suffix := range generatedTypeSuffixes {
			generated := strings.ReplaceAll(op.OperationID, "_", "") + suffix
			if full, ok := taken[generated]; ok {
				return fmt.Errorf("schema %s would be named %s, as oapi-codegen names a type of %s %s: rename it in clientNames",
					full, generated, method, path)
			}
		}
		return nil
	})
}

// eachSchemaRoot calls fn with every schema outside components/schemas:
// parameters, request bodies and responses of the operations, and the
// shared responses.
func (g *generator) eachSchemaRoot(fn func(*openapi3.SchemaRef)) {
	content := func(c openapi3.Content) {
		for _, mt := range sortedKeys(c) {
			if c[mt].Schema != nil {
				fn(c[mt].Schema)
			}
		}
	}
	response := func(r *openapi3.ResponseRef) {
		if r == nil || r.Value == nil {
			return
		}
		content(r.Value.Content)
		for _, h := range sortedKeys(r.Value.Headers) {
			if hv := r.Value.Headers[h].Value; hv != nil && hv.Schema != nil {
				fn(hv.Schema)
			}
		}
	}
	_ = g.operationsOf(func(_, _ string, op *openapi3.Operation) error {
		for _, p := range op.Parameters {
			if p.Value != nil && p.Value.Schema != nil {
				fn(p.Value.Schema)
			}
		}
		if op.RequestBody != nil && op.RequestBody.Value != nil {
			content(op.RequestBody.Value.Content)
		}
		for _, code := range sortedKeys(op.Responses.Map()) {
			response(op.Responses.Value(code))
		}
		return nil
	})
	for _, name := range sortedKeys(g.doc.Components.Responses) {
		response(g.doc.Components.Responses[name])
	}
}

// tags keeps the services' tags that have operations, then the declared
// routes' tags.
func (g *generator) tags() error {
	used := map[string]bool{}
	_ = g.operationsOf(func(_, _ string, op *openapi3.Operation) error {
		for _, t := range op.Tags {
			used[t] = true
		}
		return nil
	})
	for _, item := range g.doc.Webhooks {
		for _, op := range item.Operations() {
			for _, t := range op.Tags {
				used[t] = true
			}
		}
	}
	var tags openapi3.Tags
	for _, t := range append(g.doc.Tags, declaredTags...) {
		if used[t.Name] {
			tags = append(tags, t)
			delete(used, t.Name)
		}
	}
	if len(used) > 0 {
		return fmt.Errorf("operations use tags no one describes: %v", sortedKeys(used))
	}
	g.doc.Tags = tags
	return nil
}
