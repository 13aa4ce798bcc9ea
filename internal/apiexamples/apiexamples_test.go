package apiexamples_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/apiexamples"
)

const fence = "```"

// TestParseRefusesWhatItCannotCheck: a fence that is no part of an example,
// or a request without its answer, is an error, so that a document cannot
// show an exchange the replay skips.
func TestParseRefusesWhatItCannotCheck(t *testing.T) {
	for name, doc := range map[string]string{
		"an unknown fence":       fence + "sh\ncurl x\n" + fence + "\n",
		"a json fence alone":     fence + "json\n{}\n" + fence + "\n",
		"a request alone":        fence + "http\nGET /x\n" + fence + "\n",
		"a wrong reason":         fence + "http\nGET /x\n" + fence + "\n" + fence + "http\nHTTP/1.1 200 Created\n" + fence + "\n",
		"a body in the head":     fence + "http\nGET /x\n" + fence + "\n" + fence + "http\nHTTP/1.1 200 OK\n\n{}\n" + fence + "\n",
		"an unknown option":      fence + "http wait\nGET /x\n" + fence + "\n" + fence + "json 200\n{}\n" + fence + "\n",
		"a request line":         fence + "http\nfetch /x\n" + fence + "\n" + fence + "json 200\n{}\n" + fence + "\n",
		"a delivery without GET": fence + "http webhook\nGET /hooks\n\n{}\n" + fence + "\n",
	} {
		if _, err := apiexamples.Parse(doc); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

// TestParseForms reads each form of an example: a status in the json
// fence's info string, a response head with headers and a body fence, a
// head alone, polling, and a webhook delivery.
func TestParseForms(t *testing.T) {
	doc := strings.Join([]string{
		fence + "http poll: data.status=ready\nGET /a\nAuthorization: Bearer {{token}}\n" + fence,
		fence + "json 200\n{\"data\": {}}\n" + fence,
		fence + "http\nPOST /b\nIdempotency-Key: k1\n\n{\"n\": {{n}}}\n" + fence,
		fence + "http\nHTTP/1.1 201 Created\nIdempotent-Replayed: <absent>\n" + fence,
		fence + "json\n{\"uid\": \"<uid>\"}\n" + fence,
		fence + "http\nGET {{link}}\n" + fence,
		fence + "http\nHTTP/1.1 302 Found\nLocation: <url>\n" + fence,
		fence + "http webhook\nPOST /hooks\nPlaten-Event: x\n\n{\"event\": \"x\"}\n" + fence,
	}, "\n\ntext between\n\n")
	got, err := apiexamples.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("%d examples, want 4", len(got))
	}
	if p := got[0].Poll; p == nil || p.Path != "data.status" || p.Value != "ready" || got[0].Status != 200 || !got[0].HasAnswer {
		t.Errorf("the polling example: %+v", got[0])
	}
	if got[1].Status != 201 || !got[1].HasAnswer || got[1].WantHeaders[0] != "Idempotent-Replayed" || got[1].Headers[0] != "Idempotency-Key" {
		t.Errorf("the example with a head: %+v", got[1])
	}
	if got[2].Status != 302 || got[2].HasAnswer || got[2].Path != "{{link}}" {
		t.Errorf("the redirect: %+v", got[2])
	}
	if got[3].Kind != apiexamples.Delivery || got[3].WantHeaders[1] != "x" {
		t.Errorf("the delivery: %+v", got[3])
	}
}

// TestMatch: placeholders stand for a whole value or a part of a string,
// variables are taken the first time and compared after, and an object
// shows every member unless it elides them.
func TestMatch(t *testing.T) {
	v := apiexamples.Vars{}
	want := map[string]any{"url": "{{base}}/files/{{key}}?token=<string>", "n": "{{n}}", "…": "…"}
	got := map[string]any{"url": "http://h:1/files/a/b?token=t", "n": 7.0, "extra": true}
	if err := v.Match(want, got); err != nil {
		t.Fatal(err)
	}
	if v["base"] != "http://h:1" || v["key"] != "a/b" || v["n"] != "7" {
		t.Errorf("took %v", v)
	}
	if err := v.Match(map[string]any{"n": "{{n}}"}, map[string]any{"n": 8.0}); err == nil {
		t.Error("a variable took another value")
	}
	if err := v.Match(map[string]any{"a": "<uid>"}, map[string]any{"a": "x", "b": 1.0}); err == nil {
		t.Error("a wrong shape and an unshown member matched")
	}
	if err := v.Match("Bearer <token>", "Bearer <token>"); err != nil {
		t.Errorf("text holding a placeholder's name: %v", err)
	}
	h := http.Header{"Platen-Signature": {"sha256=00ff"}}
	if err := v.MatchHeaders([]string{"Platen-Signature", "sha256=<hex>", "Platen-Signature-Previous", apiexamples.Absent}, h); err != nil {
		t.Error(err)
	}
	if err := v.MatchHeaders([]string{"Platen-Signature", apiexamples.Absent}, h); err == nil {
		t.Error("a header sent matched <absent>")
	}
}
