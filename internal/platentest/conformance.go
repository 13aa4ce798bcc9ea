package platentest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/platen-print/platen/gen/openapi"
	"github.com/platen-print/platen/internal/openapidoc"
)

// The conformance test: every exchange of Do and Try is held to the OpenAPI
// document the server publishes (gen/openapi), with kin-openapi's
// openapi3filter, so that the document cannot drift from what the server
// does.
//
//   - The route must be in the document. A path or method it does not list
//     may only be refused: 400, 404, 405, 413, 414, 431, 501 or 505, with the
//     JSON error body.
//   - The answer's status must be listed (or fall to the operation's
//     default, the error body), and its body and headers must match.
//   - The request must match too when the server took it (2xx): what the
//     server accepts, the document must accept. A refused request is not
//     checked, since tests send bad ones on purpose (hostile input,
//     validation), but its answer is.
//
// PLATEN_TEST_OPENAPI_STATS names a file to which each test server adds a
// line with the number of answers it checked.
type conformance struct {
	doc    *openapi3.T
	router routers.Router
	// errorSchema is the error body's schema, for refusals of routes the
	// document does not list.
	errorSchema *openapi3.Schema
	// multiSegment are the paths' prefixes before a last parameter that may
	// hold raw slashes (openapidoc.MultiSegment).
	multiSegment []string
}

var loadConformance = sync.OnceValues(func() (*conformance, error) {
	// The reference page and its script are text, as /metrics is.
	for _, ct := range []string{"text/html", "text/javascript", "application/pdf"} {
		decoder := openapi3filter.PlainBodyDecoder
		if ct == "application/pdf" {
			decoder = openapi3filter.FileBodyDecoder
		}
		if openapi3filter.RegisteredBodyDecoder(ct) == nil {
			openapi3filter.RegisterBodyDecoder(ct, decoder)
		}
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openapi.Document)
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI document: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("the OpenAPI document is not valid: %w", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("route the OpenAPI document: %w", err)
	}
	errRef := doc.Components.Schemas["Error"]
	if errRef == nil || errRef.Value == nil {
		return nil, errors.New("the OpenAPI document has no Error schema")
	}
	c := &conformance{doc: doc, router: router, errorSchema: errRef.Value}
	for path, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for _, p := range op.Parameters {
				if p.Value == nil || p.Value.Extensions[openapidoc.MultiSegment] != true {
					continue
				}
				if prefix, ok := strings.CutSuffix(path, "{"+p.Value.Name+"}"); ok && !slices.Contains(c.multiSegment, prefix) {
					c.multiSegment = append(c.multiSegment, prefix)
				}
			}
		}
	}
	return c, nil
})

// findRoute finds the request's route; a raw slash in a parameter that may
// hold one is read as if percent-encoded.
func (c *conformance) findRoute(req *http.Request) (*routers.Route, map[string]string, error) {
	route, params, err := c.router.FindRoute(req)
	if err == nil {
		return route, params, nil
	}
	for _, prefix := range c.multiSegment {
		rest, ok := strings.CutPrefix(req.URL.EscapedPath(), prefix)
		if !ok || !strings.Contains(rest, "/") {
			continue
		}
		r := req.Clone(req.Context())
		u := *req.URL
		u.RawPath = prefix + strings.ReplaceAll(rest, "/", "%2F")
		decoded, derr := url.PathUnescape(u.RawPath)
		if derr != nil {
			continue
		}
		u.Path = decoded
		r.URL = &u
		if route, params, err2 := c.router.FindRoute(r); err2 == nil {
			return route, params, nil
		}
	}
	return nil, nil, err
}

// refusedUnlisted are the statuses with which a route the document does not
// list may be answered.
var refusedUnlisted = map[int]bool{
	http.StatusBadRequest: true, http.StatusNotFound: true, http.StatusMethodNotAllowed: true,
	http.StatusRequestEntityTooLarge: true, http.StatusRequestURITooLong: true,
	http.StatusRequestHeaderFieldsTooLarge: true, http.StatusNotImplemented: true,
	http.StatusHTTPVersionNotSupported: true,
}

// conformanceStats counts the answers checked by a test server.
type conformanceStats struct {
	checked atomic.Int64
}

// checkConformance returns what the exchange breaks of the document, nil when
// nothing.
func (s *Server) checkConformance(req *http.Request, reqBody []byte, resp *http.Response, respBody []byte) error {
	c, err := loadConformance()
	if err != nil {
		return err
	}
	s.conformanceStats.checked.Add(1)
	ctx := context.Background()
	// HEAD is answered as GET is; the document lists GET.
	find := req
	if req.Method == http.MethodHead {
		find = req.Clone(ctx)
		find.Method = http.MethodGet
	}
	route, params, err := c.findRoute(find)
	if err != nil {
		if !refusedUnlisted[resp.StatusCode] {
			return fmt.Errorf("the route is not in the OpenAPI document (%v), yet answered %d", err, resp.StatusCode)
		}
		if req.Method == http.MethodHead {
			return nil
		}
		return c.checkErrorBody(resp, respBody)
	}
	opts := &openapi3filter.Options{
		IncludeResponseStatus: true,
		MultiError:            true,
		AuthenticationFunc:    bearerPresent,
	}
	in := &openapi3filter.RequestValidationInput{Request: find, PathParams: params, Route: route, Options: opts}
	var problems []error
	if resp.StatusCode/100 == 2 {
		r := find.Clone(ctx)
		r.Body = io.NopCloser(bytes.NewReader(reqBody))
		in.Request = r
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			problems = append(problems, fmt.Errorf("request: %w", err))
		}
		in.Request = find
	}
	if req.Method == http.MethodHead {
		if route.Operation.Responses.Status(resp.StatusCode) == nil && route.Operation.Responses.Default() == nil {
			problems = append(problems, fmt.Errorf("status %d is not listed", resp.StatusCode))
		}
		return errors.Join(problems...)
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(respBody)),
		Options:                opts,
	}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		problems = append(problems, fmt.Errorf("answer: %w", err))
	}
	return errors.Join(problems...)
}

// checkErrorBody checks that an answer is the JSON error body.
func (c *conformance) checkErrorBody(resp *http.Response, body []byte) error {
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("a refusal of a route the OpenAPI document does not list has Content-Type %q, not the JSON error body", ct)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("the error body is not JSON: %w", err)
	}
	if err := c.errorSchema.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		return fmt.Errorf("the error body does not match the Error schema: %w", err)
	}
	return nil
}

// bearerPresent is the security check of a request the server took: it
// carried a Bearer token where the document asks for one.
func bearerPresent(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	if in.SecurityScheme == nil || in.SecurityScheme.Type != "http" || in.SecurityScheme.Scheme != "bearer" {
		return fmt.Errorf("unexpected security scheme %s", in.SecuritySchemeName)
	}
	if !strings.HasPrefix(in.RequestValidationInput.Request.Header.Get("Authorization"), "Bearer ") {
		return errors.New("no Bearer token, yet the server answered 2xx")
	}
	return nil
}

// reportConformance adds the server's count to PLATEN_TEST_OPENAPI_STATS.
func (s *Server) reportConformance() {
	path := os.Getenv("PLATEN_TEST_OPENAPI_STATS")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(strconv.FormatInt(s.conformanceStats.checked.Load(), 10) + "\n")
}

// checkWebhook holds a delivery to the webhooks section of the document:
// its event is listed there, its body matches the event's schema, and it
// carries every header the section requires.
func checkWebhook(header http.Header, body []byte) error {
	c, err := loadConformance()
	if err != nil {
		return err
	}
	event := header.Get("Platen-Event")
	item := c.doc.Webhooks[event]
	if item == nil || item.Post == nil {
		return fmt.Errorf("the event %q is not in the document's webhooks", event)
	}
	for _, p := range item.Post.Parameters {
		if p.Value.Required && header.Get(p.Value.Name) == "" {
			return fmt.Errorf("%s: no %s header", event, p.Value.Name)
		}
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("%s: the body is no JSON: %w", event, err)
	}
	schema := item.Post.RequestBody.Value.Content.Get("application/json").Schema.Value
	if err := schema.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		return fmt.Errorf("%s: the body %s does not match the document: %w", event, body, err)
	}
	return nil
}
