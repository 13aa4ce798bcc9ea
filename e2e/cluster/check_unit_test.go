package cluster

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
)

// The checks must be able to fail: these run without the cluster, on
// made-up results.

func TestCheckPrintsFailsOnTransientReasonsAndOpenPrints(t *testing.T) {
	good := []printState{
		{family: "A", subject: "a", status: "ready"},
		{family: "B", subject: "b", status: "failed", errText: `layer 2: unknown font "Nope"`},
		{family: "batch", subject: "c", status: "Ready"},
	}
	if r := checkPrints(good); !r.ok {
		t.Errorf("ready prints and a failure of the design's own: %s", r.detail)
	}
	bad := append(good,
		printState{family: "A", subject: "d", status: "processingfailed", errText: "rendering was interrupted 2 times (the process working it stopped); giving up"},
		printState{family: "A", subject: "e", status: "processing"},
	)
	r := checkPrints(bad)
	if r.ok || !strings.Contains(r.detail, "print d failed for a transient reason") || !strings.Contains(r.detail, "print e is still processing") {
		t.Errorf("a transient failure and an open print passed: %v", r)
	}
}

func TestCheckEventsFailsOnMissingDoubledAndBadlySigned(t *testing.T) {
	sha := "0f"
	ready := []printState{
		{family: "A", subject: "item-1", status: "ready", files: []fileRef{{sha256: sha}}},
		{family: "B", subject: "print-1", status: "ready", files: []fileRef{{sha256: "aa"}, {sha256: "bb"}}},
	}
	hooks := &receiver{deliveries: map[string]*delivery{
		"d1": {ID: "d1", Event: "order_item.print_file.ready", Accepted: true, Body: hookBody{OrderItemUID: "item-1", SHA256: &sha}},
		"d2": {ID: "d2", Event: "print_files.ready", Accepted: true, Body: hookBody{PrintID: "print-1", Files: []hookFl{{SHA256: ptr("aa")}, {SHA256: ptr("bb")}}}},
	}}
	c := &cluster{hooks: hooks}
	if r := c.checkEvents(ready); !r.ok {
		t.Fatalf("every event once: %s", r.detail)
	}

	hooks.deliveries["d3"] = &delivery{ID: "d3", Event: "order_item.print_file.ready", Accepted: true, Body: hookBody{OrderItemUID: "item-1", SHA256: &sha}}
	if r := c.checkEvents(ready); r.ok || !strings.Contains(r.detail, "2 delivery ids") {
		t.Errorf("one event under two delivery ids passed: %v", r)
	}
	delete(hooks.deliveries, "d3")

	hooks.deliveries["d2"].Accepted = false
	if r := c.checkEvents(ready); r.ok || !strings.Contains(r.detail, "print print-1: no print_files.ready") {
		t.Errorf("an event never accepted passed: %v", r)
	}
	hooks.deliveries["d2"].Accepted = true

	hooks.badSig = 1
	if r := c.checkEvents(ready); r.ok {
		t.Errorf("a bad signature passed: %v", r)
	}
}

func ptr(s string) *string { return &s }

func TestReceiverVerifiesBothSignatures(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	r := &receiver{secret: "whsec_" + base64.StdEncoding.EncodeToString(key)}
	body := []byte(`{"event":"print_files.ready"}`)
	mac := hmac.New(sha256.New, []byte(r.secret))
	mac.Write(body)
	std := hmac.New(sha256.New, key)
	std.Write([]byte("dl-1.1700000000." + string(body)))
	h := http.Header{}
	h.Set("Platen-Signature", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	h.Set("Platen-Delivery", "dl-1")
	h.Set("webhook-id", "dl-1")
	h.Set("webhook-timestamp", "1700000000")
	h.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(std.Sum(nil)))
	if !r.validSignatures(h, body) {
		t.Fatal("valid signatures refused")
	}
	if r.validSignatures(h, []byte(`{"event":"print_files.failed"}`)) {
		t.Error("another body accepted")
	}
	h.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString([]byte("nope")))
	if r.validSignatures(h, body) {
		t.Error("a bad Standard Webhooks signature accepted")
	}
}
