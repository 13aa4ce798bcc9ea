package openapidoc

import (
	"net/http"
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"
)

// The routes served beside the gateway (internal/server's routes), which no
// proto describes, declared here: each needs no API token, and answers GET
// and HEAD only (other methods: 405 with Allow). The operator panel
// (/operator/) is a set of HTML pages for people, not an API, and is not
// listed.
var declaredRoutes = []route{
	{
		path: "/healthz", tag: tagOperations, id: "Healthz",
		summary:   "The process is up.",
		responses: []routeResponse{{code: http.StatusOK, description: "Up.", mediaType: jsonType, schema: "Health"}},
	},
	{
		path: "/readyz", tag: tagOperations, id: "Readyz",
		summary:     "The database answers and takes a write.",
		description: "Checked at most once a second per process; in between, probes get the last answer.",
		responses: []routeResponse{
			{code: http.StatusOK, description: "Ready.", mediaType: jsonType, schema: "Health"},
			{code: http.StatusServiceUnavailable, description: "Not ready, or shutting down.", mediaType: jsonType, schema: "Unready"},
		},
	},
	{
		path: "/metrics", tag: tagOperations, id: "Metrics",
		summary: "Prometheus metrics.",
		responses: []routeResponse{{code: http.StatusOK, description: "The metrics, in Prometheus' text format.",
			mediaType: "text/plain", schema: "Text"}},
	},
	{
		path: "/api/v1/print-files/{item_uid}", tag: tagDownloads, id: "DownloadPrintFile",
		summary:     "A Family A item's print file: the `url` of its print status.",
		description: "Redirects to the file (a PDF named `{ecommerce_order_id}-{ecommerce_order_item_id}.pdf`) by a URL valid 15 minutes.",
		params:      []routeParam{pathParam("item_uid", "The order item's uid."), tokenParam},
		responses:   downloadResponses,
	},
	{
		path: "/v1/shop/files/{print_id}/{index}", tag: tagDownloads, id: "DownloadShopFile",
		summary:     "A Family B print's file: a `files[].url` of the shop order.",
		description: "Redirects to the file (a one-page PDF named `{external_id}-{line external_id}-{index}.pdf`) by a URL valid 15 minutes.",
		params:      []routeParam{pathParam("print_id", "The print's id."), indexParam, tokenParam},
		responses:   downloadResponses,
	},
	{
		path: "/api/v1/batch-files/{batch_uid}/{index}", tag: tagDownloads, id: "DownloadBatchFile",
		summary:     "A batch order's file: a `files[].url` of the batch.",
		description: "Redirects to the file (`batch-{uid}-{n}.pdf`) by a URL valid 15 minutes.",
		params:      []routeParam{pathParam("batch_uid", "The batch's uid."), indexParam, tokenParam},
		responses:   downloadResponses,
	},
	{
		path: "/files/{key}", tag: tagDownloads, id: "StoredFile",
		summary: "A stored file, where a download link redirects (a directory store; an S3 store's files are served by S3).",
		description: "Follow the `Location` of a download link rather than building this URL: `key` spans several " +
			"path segments, and the query carries the link's signature (`expiry`, `method`, `signature`, `filename`). " +
			"Range, If-Match, If-None-Match and If-Modified-Since work as usual.",
		params: []routeParam{
			{name: "key", in: "path", description: "The file's key in the store.", multiSegment: true},
			{name: "Range", in: "header", description: "One range of bytes (`bytes=0-1023`): the answer is 206 with that part."},
			{name: "If-None-Match", in: "header", description: "The ETag of the client's copy: 304 while it is current."},
			{name: "If-Modified-Since", in: "header", description: "The Last-Modified of the client's copy: 304 while it is current."},
			{name: "If-Match", in: "header", description: "An ETag the file must still have (as a resumed download checks): 412 otherwise."},
		},
		responses: []routeResponse{
			{code: http.StatusOK, description: "The file.", mediaType: "application/pdf", schema: "Binary",
				headers: fileHeaders(map[string]string{
					"Content-Digest": "The SHA-256 of this answer's content, the whole file (RFC 9530), when the link carries it: `sha-256=:base64:`.",
				})},
			{code: http.StatusPartialContent, description: "The requested range of the file.", mediaType: "application/pdf", schema: "Binary",
				headers: fileHeaders(map[string]string{"Content-Range": "The range sent, and the file's size: `bytes 0-1023/52311`."})},
			{code: http.StatusNotModified, description: "The client's copy is current.",
				headers: map[string]string{"ETag": fileETag}},
			{code: http.StatusForbidden, description: "An altered or expired URL.", errorBody: true},
			{code: http.StatusNotFound, description: "No such file here (any longer).", errorBody: true},
			{code: http.StatusPreconditionFailed, description: "If-Match failed.", errorBody: true},
			{code: http.StatusRequestedRangeNotSatisfiable, description: "The range is outside the file.", errorBody: true,
				headers: map[string]string{"Content-Range": "The file's size: `bytes */52311`."}},
		},
	},
	{
		path: "/openapi.json", tag: tagReference, id: "OpenAPIDocument",
		summary: "This document.",
		params: []routeParam{{name: "If-None-Match", in: "header",
			description: "The ETag of the client's copy: 304 while it is current."}},
		responses: []routeResponse{
			{code: http.StatusOK, description: "The OpenAPI 3.1 document.", mediaType: jsonType, schema: "Object",
				headers: map[string]string{"ETag": "The document's strong entity tag; a gzip-compressed answer's ends in `-gzip`."}},
			{code: http.StatusNotModified, description: "The client's copy is current.",
				headers: map[string]string{"ETag": "The tag the client sent."}},
		},
	},
	{
		path: "/docs", tag: tagReference, id: "Docs",
		summary:   "This document as a reference page (Redoc).",
		responses: []routeResponse{{code: http.StatusOK, description: "The page.", mediaType: "text/html", schema: "Text"}},
	},
	{
		path: "/docs/redoc.standalone.js", tag: tagReference, id: "DocsScript",
		summary:   "The reference page's viewer, Redoc (MIT).",
		responses: []routeResponse{{code: http.StatusOK, description: "The script.", mediaType: "text/javascript", schema: "Text"}},
	},
}

const (
	jsonType      = "application/json"
	tagOperations = "Operations"
	tagDownloads  = "Downloads"
	tagReference  = "Reference"
	tagWebhooks   = "Webhooks"
)

// declaredTags describe the declared routes' tags, after the services'.
var declaredTags = openapi3.Tags{
	{Name: tagOperations, Description: "Health, readiness and metrics, for probes and monitoring. No token."},
	{Name: tagDownloads, Description: "Download links, signed and valid 7 days: each read of an order or batch answers fresh ones. " +
		"No API token: the link's own `token` opens it."},
	{Name: tagReference, Description: "This document and its reference page."},
	{Name: tagWebhooks, Description: "The events Platen POSTs to a store's webhook endpoint, signed: the webhooks section lists each one's body and headers."},
}

// declaredSchemas are the declared routes' bodies.
var declaredSchemas = map[string]*openapi3.Schema{
	"Health": {
		Type: &openapi3.Types{openapi3.TypeObject}, Required: []string{"status"},
		Properties: openapi3.Schemas{"status": {Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}, Enum: []any{"ok"},
			Description: "Always `ok`."}}},
	},
	"Unready": {
		Type: &openapi3.Types{openapi3.TypeObject}, Required: []string{"status", "reason"},
		Properties: openapi3.Schemas{
			"status": {Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}, Enum: []any{"unavailable"},
				Description: "Always `unavailable`."}},
			"reason": {Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString},
				Description: "`shutting down`, `database refuses writes`, `database unreachable` or `database did not answer in time`."}},
		},
	},
	"Text":   {Type: &openapi3.Types{openapi3.TypeString}},
	"Binary": {Type: &openapi3.Types{openapi3.TypeString}, ContentMediaType: "application/octet-stream"},
	"Object": {Type: &openapi3.Types{openapi3.TypeObject}},
}

type route struct {
	path, tag, id, summary, description string
	params                              []routeParam
	responses                           []routeResponse
}

type routeParam struct {
	name, in, description string
	integer, multiSegment bool
}

type routeResponse struct {
	code                   int
	description, mediaType string
	schema                 string
	errorBody              bool
	headers                map[string]string
}

func pathParam(name, description string) routeParam {
	return routeParam{name: name, in: "path", description: description}
}

var (
	indexParam = routeParam{name: "index", in: "path", description: "The file's position, from 1.", integer: true}
	tokenParam = routeParam{name: "token", in: "query", description: "The link's signed token."}
)

var downloadResponses = []routeResponse{
	{code: http.StatusFound, description: "To the file, by a URL valid 15 minutes (`Cache-Control: no-store`). " +
		"The body is a short HTML page with the link, for a browser that does not follow redirects.",
		mediaType: "text/html", schema: "Text",
		headers: map[string]string{"Location": "The file's URL"}},
	{code: http.StatusForbidden, description: "No token, an altered or expired one, or one for another file.", errorBody: true},
	{code: http.StatusNotFound, description: "The item, print or batch is gone, or has no such file (yet).", errorBody: true},
	{code: http.StatusServiceUnavailable, description: "The file store cannot be reached right now; try again.", errorBody: true,
		headers: map[string]string{"Retry-After": "Seconds to wait before trying again."}},
}

const fileETag = "The file's strong entity tag."

// fileHeaders are the headers of an answer with (part of) a stored file,
// and more.
func fileHeaders(more map[string]string) map[string]string {
	h := map[string]string{
		"Content-Disposition": "`attachment`, with the file's name.",
		"ETag":                fileETag,
		"Last-Modified":       "When the file was stored.",
		"Accept-Ranges":       "`bytes`: ranges may be asked for.",
		"Repr-Digest":         "The SHA-256 of the whole file (RFC 9530), when the link carries it: `sha-256=:base64:`.",
	}
	for k, v := range more {
		h[k] = v
	}
	return h
}

// declaredRoutes adds the routes served beside the gateway.
func (g *generator) declaredRoutes() error {
	for name, s := range declaredSchemas {
		g.doc.Components.Schemas[name] = &openapi3.SchemaRef{Value: s}
	}
	for _, r := range declaredRoutes {
		op := &openapi3.Operation{
			OperationID: r.id,
			Summary:     r.summary,
			Description: r.description,
			Tags:        []string{r.tag},
			Security:    &openapi3.SecurityRequirements{},
			Responses:   openapi3.NewResponses(),
		}
		for _, p := range r.params {
			schema := openapi3.NewStringSchema()
			if p.integer {
				schema = openapi3.NewIntegerSchema()
				one := 1.0
				schema.Min = &one
			}
			param := &openapi3.Parameter{
				Name: p.name, In: p.in, Description: p.description, Required: p.in == "path" || p.name == "token",
				Schema: &openapi3.SchemaRef{Value: schema},
			}
			if p.multiSegment {
				param.Description += " " + multiSegmentNote
				param.Extensions = map[string]any{MultiSegment: true}
			}
			op.Parameters = append(op.Parameters, &openapi3.ParameterRef{Value: param})
		}
		for _, resp := range r.responses {
			desc := resp.description
			v := &openapi3.Response{Description: &desc}
			switch {
			case resp.errorBody:
				v.Content = openapi3.NewContentWithJSONSchemaRef(&openapi3.SchemaRef{Ref: schemaPrefix + errorStatus})
			case resp.mediaType != "":
				v.Content = openapi3.Content{resp.mediaType: &openapi3.MediaType{Schema: &openapi3.SchemaRef{Ref: schemaPrefix + resp.schema}}}
			}
			for _, h := range sortedKeys(resp.headers) {
				if v.Headers == nil {
					v.Headers = openapi3.Headers{}
				}
				v.Headers[h] = &openapi3.HeaderRef{Value: &openapi3.Header{Parameter: openapi3.Parameter{
					Description: resp.headers[h], Schema: &openapi3.SchemaRef{Value: openapi3.NewStringSchema()},
				}}}
			}
			op.Responses.Set(strconv.Itoa(resp.code), &openapi3.ResponseRef{Value: v})
		}
		op.Responses.Set("default", &openapi3.ResponseRef{Ref: "#/components/responses/" + errorResponse})
		item := g.doc.Paths.Value(r.path)
		if item == nil {
			item = &openapi3.PathItem{}
			g.doc.Paths.Set(r.path, item)
		}
		if item.Get != nil {
			return errRouteTaken(r.path)
		}
		item.Get = op
	}
	return nil
}

type errRouteTaken string

func (e errRouteTaken) Error() string {
	return "declared route " + string(e) + " is a gateway route too"
}
