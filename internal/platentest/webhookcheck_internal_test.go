package platentest

import (
	"net/http"
	"strings"
	"testing"
)

// TestWebhookCheckRefusesWhatTheDocumentDoesNot: the check every receiver
// runs on a delivery takes a delivery as the document describes it, and
// refuses an unknown event, a missing header, a missing field and a
// status outside the event's vocabulary.
func TestWebhookCheckRefusesWhatTheDocumentDoesNot(t *testing.T) {
	header := func(event string, drop ...string) http.Header {
		h := http.Header{}
		for _, name := range []string{"Platen-Signature", "Platen-Delivery", "webhook-id", "webhook-timestamp", "webhook-signature"} {
			h.Set(name, "x")
		}
		h.Set("Platen-Event", event)
		for _, name := range drop {
			h.Del(name)
		}
		return h
	}
	good := `{"event":"batch_order.ready","batch_uid":"b","status":"Ready","files":[{"print_template_uid":"t","url":"u","pages":1,"size":9,"sha256":"s"}],"error":null,"sent_at":"2026-11-28T10:00:00Z"}`
	if err := checkWebhook(header("batch_order.ready"), []byte(good)); err != nil {
		t.Fatalf("a good delivery: %v", err)
	}
	bad := map[string]struct {
		header http.Header
		body   string
	}{
		"an unknown event":    {header("batch_order.lost"), good},
		"no webhook-id":       {header("batch_order.ready", "webhook-id"), good},
		"no batch_uid":        {header("batch_order.ready"), strings.Replace(good, `"batch_uid":"b",`, "", 1)},
		"a status of another": {header("batch_order.ready"), strings.Replace(good, `"Ready"`, `"ready"`, 1)},
	}
	for what, c := range bad {
		if err := checkWebhook(c.header, []byte(c.body)); err == nil {
			t.Errorf("%s passed", what)
		}
	}
}
