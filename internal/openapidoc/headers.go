package openapidoc

import (
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The HTTP headers the server reads and writes beside the JSON bodies,
// declared so that generated clients can send and read them: the
// idempotency key of the creating POSTs, and Retry-After on the answers
// that ask a client to come back.

// Shared answers that tell the client to try again.
const (
	tooManyRequestsResponse = "TooManyRequests"
	unavailableResponse     = "Unavailable"
)

// idempotent reports the methods that honour an Idempotency-Key: the
// creating POSTs (internal/idempotency applies it to the Create RPCs).
func idempotent(method string, md protoreflect.MethodDescriptor) bool {
	return method == http.MethodPost && strings.HasPrefix(string(md.Name()), "Create")
}

// idempotencyKeyParam is the request header of an idempotent method.
func idempotencyKeyParam() *openapi3.ParameterRef {
	schema := openapi3.NewStringSchema()
	schema.MaxLength = new(uint64)
	*schema.MaxLength = 255
	schema.Pattern = `^[\x20-\x7E]+$`
	return &openapi3.ParameterRef{Value: &openapi3.Parameter{
		Name: "Idempotency-Key", In: openapi3.ParameterInHeader,
		Description: "Makes a retry safe: the same key with the same body within 24 hours answers the first " +
			"answer again (with `Idempotent-Replayed: true`) instead of creating twice; the same key with " +
			"another body is 409. Keys are per team; at most 255 printable ASCII characters.",
		Schema: &openapi3.SchemaRef{Value: schema},
	}}
}

// replayedHeader marks a success answer replayed for an Idempotency-Key.
func replayedHeader() *openapi3.HeaderRef {
	schema := openapi3.NewStringSchema()
	schema.Enum = []any{"true"}
	return header("`true` when this is the stored answer to an earlier request with the same Idempotency-Key; absent on a first answer.", schema)
}

// retryAfterHeader is the seconds to wait before trying again.
func retryAfterHeader() *openapi3.HeaderRef {
	schema := openapi3.NewIntegerSchema()
	one := 1.0
	schema.Min = &one
	return header("Seconds to wait before trying again.", schema)
}

func header(description string, schema *openapi3.Schema) *openapi3.HeaderRef {
	return &openapi3.HeaderRef{Value: &openapi3.Header{Parameter: openapi3.Parameter{
		Description: description, Schema: &openapi3.SchemaRef{Value: schema},
	}}}
}

// addIdempotency declares the key on op's request and the replay marker
// on its success answers.
func addIdempotency(op *openapi3.Operation) {
	op.Parameters = append(op.Parameters, idempotencyKeyParam())
	for code, resp := range op.Responses.Map() {
		if resp.Value == nil || !strings.HasPrefix(code, "2") {
			continue
		}
		// The success answers share their content, not their headers.
		v := *resp.Value
		v.Headers = openapi3.Headers{"Idempotent-Replayed": replayedHeader()}
		resp.Value = &v
	}
}

// addRetryAnswers lists the answers that ask the client to come back:
// 429 (a limit: the team's requests, large bodies at once) and 503 (the
// database cannot be reached, or the server is shutting down).
func addRetryAnswers(op *openapi3.Operation) {
	op.Responses.Set("429", &openapi3.ResponseRef{Ref: "#/components/responses/" + tooManyRequestsResponse})
	op.Responses.Set("503", &openapi3.ResponseRef{Ref: "#/components/responses/" + unavailableResponse})
}

// retryResponses are the shared answers addRetryAnswers refers to.
func retryResponses(errRef *openapi3.SchemaRef) openapi3.ResponseBodies {
	tooMany := "Too many requests for a limit (the team's rate, large bodies at once): try again after `Retry-After`."
	unavailable := "The service cannot answer right now (its database is unreachable, or it is shutting down): try again after `Retry-After`."
	answer := func(desc *string) *openapi3.ResponseRef {
		return &openapi3.ResponseRef{Value: &openapi3.Response{
			Description: desc,
			Headers:     openapi3.Headers{"Retry-After": retryAfterHeader()},
			Content:     openapi3.NewContentWithJSONSchemaRef(errRef),
		}}
	}
	return openapi3.ResponseBodies{tooManyRequestsResponse: answer(&tooMany), unavailableResponse: answer(&unavailable)}
}
