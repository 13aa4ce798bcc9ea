package openapidoc

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Security schemes: a client API token (plt_…) for every API route but the
// operator API, which takes an operator token (plo_…) only.
const (
	clientToken   = "clientToken"
	operatorToken = "operatorToken"
	// operatorService is the service that takes operator tokens.
	operatorService = Package + ".OperatorService"
)

// Shared responses, under components/responses.
const (
	errorResponse           = "Error"
	unauthenticatedResponse = "Unauthenticated"
	// errorStatus is the error body's message, google.rpc.Status, whose
	// schema is renamed errorSchema.
	errorStatus = "google.rpc.Status"
	errorSchema = "Error"
)

// operations completes every gateway operation: its RPC, summary, success
// statuses, error responses and security; the routes of unimplemented
// methods are removed.
func (g *generator) operations() error {
	g.methods = map[*openapi3.Operation]protoreflect.MethodDescriptor{}
	err := g.operationsOf(func(path, method string, op *openapi3.Operation) error {
		md, err := g.method(op.OperationID)
		if err != nil {
			return fmt.Errorf("%s %s: %w", method, path, err)
		}
		if g.opts.Unimplemented[md.FullName()] {
			g.doc.Paths.Value(path).SetOperation(method, nil)
			return nil
		}
		g.methods[op] = md
		comment := joinText(op.Summary, op.Description)
		op.Summary = firstSentence(comment)
		op.Description = comment
		if op.Summary == strings.Join(strings.Fields(comment), " ") {
			op.Description = "" // the summary says it all
		}
		if err := g.successResponses(op, md); err != nil {
			return fmt.Errorf("%s %s: %w", method, path, err)
		}
		scheme := clientToken
		if md.Parent().FullName() == operatorService {
			scheme = operatorToken
		}
		op.Security = &openapi3.SecurityRequirements{{scheme: []string{}}}
		if idempotent(method, md) {
			addIdempotency(op)
		}
		op.Responses.Set("401", &openapi3.ResponseRef{Ref: "#/components/responses/" + unauthenticatedResponse})
		addRetryAnswers(op)
		op.Responses.Set("default", &openapi3.ResponseRef{Ref: "#/components/responses/" + errorResponse})
		multi := multiSegmentParams(md)
		for _, p := range op.Parameters {
			if p.Value == nil {
				continue
			}
			p.Value.Extensions = nil
			if p.Value.In == openapi3.ParameterInPath && multi[p.Value.Name] {
				p.Value.Description = strings.TrimSpace(p.Value.Description + " " + multiSegmentNote)
				p.Value.Extensions = map[string]any{MultiSegment: true}
			}
		}
		if op.RequestBody != nil && op.RequestBody.Value != nil {
			op.RequestBody.Value.Extensions = nil
		}
		op.Extensions = nil
		return nil
	})
	if err != nil {
		return err
	}
	for _, path := range g.doc.Paths.InMatchingOrder() {
		if len(g.doc.Paths.Value(path).Operations()) == 0 {
			g.doc.Paths.Delete(path)
		}
	}
	g.securitySchemes()
	return nil
}

// MultiSegment marks a path parameter that may span several segments (its
// template is {name=**}): OpenAPI cannot say so, and the conformance test
// reads it.
const MultiSegment = "x-platen-multi-segment"

const multiSegmentNote = "It may hold slashes: percent-encoded (`%2F`), or raw."

// multiSegmentParams are the path parameters of md's HTTP rule whose
// template is {name=**}.
func multiSegmentParams(md protoreflect.MethodDescriptor) map[string]bool {
	rule, ok := proto.GetExtension(md.Options(), annotations.E_Http).(*annotations.HttpRule)
	if !ok || rule == nil {
		return nil
	}
	var pattern string
	switch p := rule.GetPattern().(type) {
	case *annotations.HttpRule_Get:
		pattern = p.Get
	case *annotations.HttpRule_Put:
		pattern = p.Put
	case *annotations.HttpRule_Post:
		pattern = p.Post
	case *annotations.HttpRule_Delete:
		pattern = p.Delete
	case *annotations.HttpRule_Patch:
		pattern = p.Patch
	}
	out := map[string]bool{}
	for _, m := range multiSegment.FindAllStringSubmatch(pattern, -1) {
		out[m[1]] = true
	}
	return out
}

var multiSegment = regexp.MustCompile(`\{([a-z0-9_.]+)=\*\*\}`)

// method finds the RPC of an operation from protoc-gen-openapiv2's
// operation id, Service_Method.
func (g *generator) method(operationID string) (protoreflect.MethodDescriptor, error) {
	service, name, ok := strings.Cut(operationID, "_")
	if !ok {
		return nil, fmt.Errorf("operation id %q is not Service_Method", operationID)
	}
	d, err := g.opts.Files.FindDescriptorByName(protoreflect.FullName(Package + "." + service))
	if err != nil {
		return nil, fmt.Errorf("operation %s: %w", operationID, err)
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		return nil, fmt.Errorf("operation %s: %s is not a service", operationID, d.FullName())
	}
	md := sd.Methods().ByName(protoreflect.Name(name))
	if md == nil {
		return nil, fmt.Errorf("operation %s: %s has no method %s", operationID, sd.FullName(), name)
	}
	return md, nil
}

// successResponses replaces the generator's 200 by the statuses the method
// answers with: 200, or those of the declared table.
func (g *generator) successResponses(op *openapi3.Operation, md protoreflect.MethodDescriptor) error {
	ok := op.Responses.Status(http.StatusOK)
	if ok == nil || ok.Value == nil {
		return fmt.Errorf("no 200 response")
	}
	content := ok.Value.Content
	statuses, declared := Statuses[md.FullName()]
	if !declared {
		statuses = []Status{{Code: http.StatusOK, Description: "OK"}}
	}
	op.Responses = openapi3.NewResponses()
	for _, s := range statuses {
		desc := s.Description
		op.Responses.Set(strconv.Itoa(s.Code), &openapi3.ResponseRef{Value: &openapi3.Response{Description: &desc, Content: content}})
	}
	return nil
}

func (g *generator) securitySchemes() {
	c := g.doc.Components
	c.SecuritySchemes = openapi3.SecuritySchemes{
		clientToken: {Value: &openapi3.SecurityScheme{
			Type: "http", Scheme: "bearer",
			Description: "A client API token, `plt_…` (`platen admin bootstrap` or `platen admin token issue` prints one). " +
				"A token bound to a store acts on that store only; a team-wide token on every store of its team.",
		}},
		operatorToken: {Value: &openapi3.SecurityScheme{
			Type: "http", Scheme: "bearer",
			Description: "An operator token, `plo_…`, for the operator API (`/api/v1/operator/…`) only.",
		}},
	}
	g.doc.Security = openapi3.SecurityRequirements{{clientToken: []string{}}}
	errDesc := "The JSON error body. `code` is the gRPC status code (3 InvalidArgument for 400, 5 NotFound " +
		"for 404, 6 AlreadyExists for 409, ...); a 400 lists the offending fields in a " +
		"`google.rpc.BadRequest` detail."
	unauthDesc := "No token, or one that is unknown, expired or revoked. (A token of the other kind, client or operator, is a 403.)"
	errRef := &openapi3.SchemaRef{Ref: schemaPrefix + errorStatus}
	c.Responses = openapi3.ResponseBodies{
		errorResponse: {Value: &openapi3.Response{Description: &errDesc, Content: openapi3.NewContentWithJSONSchemaRef(errRef)}},
		unauthenticatedResponse: {Value: &openapi3.Response{
			Description: &unauthDesc,
			Headers: openapi3.Headers{"WWW-Authenticate": {Value: &openapi3.Header{Parameter: openapi3.Parameter{
				Description: `Bearer realm="platen"`,
				Schema:      &openapi3.SchemaRef{Value: openapi3.NewStringSchema()},
			}}}},
			Content: openapi3.NewContentWithJSONSchemaRef(errRef),
		}},
	}
	for name, r := range retryResponses(errRef) {
		c.Responses[name] = r
	}
}
