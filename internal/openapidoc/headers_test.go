package openapidoc

import (
	"strings"
	"testing"
)

// TestCommittedDocumentDeclaresHeaders: the headers a client sends and
// reads beside the bodies are in the document, so that generated clients
// can use them: the Idempotency-Key of every creating POST and the replay
// marker of its answers, Retry-After on 429 and 503, and a stored file's
// conditional and range requests with their answers' headers.
func TestCommittedDocumentDeclaresHeaders(t *testing.T) {
	doc := loadDocument(t)
	creates := 0
	for _, path := range doc.Paths.InMatchingOrder() {
		for method, op := range doc.Paths.Value(path).Operations() {
			if op.Security == nil || len(*op.Security) == 0 {
				continue // a route beside the API
			}
			for code, name := range map[string]string{"429": tooManyRequestsResponse, "503": unavailableResponse} {
				if r := op.Responses.Value(code); r == nil || r.Ref != "#/components/responses/"+name {
					t.Errorf("%s %s: no %s answer", method, path, code)
				}
			}
			if !strings.HasPrefix(op.OperationID[strings.IndexByte(op.OperationID, '_')+1:], "Create") {
				if op.Parameters.GetByInAndName("header", "Idempotency-Key") != nil {
					t.Errorf("%s %s takes an Idempotency-Key, but is no create", method, path)
				}
				continue
			}
			creates++
			if op.Parameters.GetByInAndName("header", "Idempotency-Key") == nil {
				t.Errorf("%s %s: no Idempotency-Key header", method, path)
			}
			for code, r := range op.Responses.Map() {
				if strings.HasPrefix(code, "2") && r.Value.Headers["Idempotent-Replayed"] == nil {
					t.Errorf("%s %s: its %s answer has no Idempotent-Replayed", method, path, code)
				}
			}
		}
	}
	if creates < 6 {
		t.Errorf("%d creating POSTs, want every one of them (at least the six of the client API)", creates)
	}
	for _, name := range []string{tooManyRequestsResponse, unavailableResponse} {
		if r := doc.Components.Responses[name]; r == nil || r.Value.Headers["Retry-After"] == nil {
			t.Errorf("the shared answer %s has no Retry-After", name)
		}
	}
	file := doc.Paths.Find("/files/{key}").Get
	for _, h := range []string{"Range", "If-None-Match", "If-Match", "If-Modified-Since"} {
		if file.Parameters.GetByInAndName("header", h) == nil {
			t.Errorf("GET /files/{key}: no %s header", h)
		}
	}
	wants := map[string][]string{
		"200": {"Content-Digest", "Repr-Digest", "Accept-Ranges", "Last-Modified", "ETag", "Content-Disposition"},
		"206": {"Content-Range", "Repr-Digest", "ETag"},
		"416": {"Content-Range"},
	}
	for code, headers := range wants {
		for _, h := range headers {
			if file.Responses.Value(code).Value.Headers[h] == nil {
				t.Errorf("GET /files/{key}: its %s answer has no %s", code, h)
			}
		}
	}
	link := doc.Paths.Find("/api/v1/print-files/{item_uid}").Get.Responses.Value("302").Value
	if link.Content.Get("text/html") == nil {
		t.Errorf("a download link's 302 does not declare its HTML body")
	}
}
