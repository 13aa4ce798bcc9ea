package webhooks_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/platentest"
)

// The handler below is the tutorial's (docs/tutorial.md) and
// cmd/webhook-receiver's, verbatim (TestTutorialReceiver keeps the three
// the same).

// tutorial receiver begin
// webhookHandler is an endpoint for Platen's webhooks: it checks the
// signature, answers at once, and hands the event on; handle deduplicates
// by the delivery id.
func webhookHandler(secret string, handle func(delivery, event string, body []byte)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil || !validSignature(secret, body, r.Header.Get("Platen-Signature")) {
			http.Error(w, "invalid signature", http.StatusUnauthorized) // rule 1
			return
		}
		w.WriteHeader(http.StatusNoContent)                                            // rule 2: answer within 10 s, work afterwards
		go handle(r.Header.Get("Platen-Delivery"), r.Header.Get("Platen-Event"), body) // rule 3
	}
}

// validSignature compares, in constant time, the HMAC-SHA256 of the exact
// body with the header's signature.
func validSignature(secret string, body []byte, header string) bool {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hmac.Equal([]byte(header), []byte("sha256="+hex.EncodeToString(mac.Sum(nil))))
}

// tutorial receiver end

// TestTutorialReceiver: the tutorial's handler accepts Platen's deliveries,
// and refuses (401) the same delivery with a byte of its body changed,
// and one signed with another secret.
func TestTutorialReceiver(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		readme, err := os.ReadFile("../../docs/tutorial.md")
		if err != nil {
			t.Fatal(err)
		}
		code, err := os.ReadFile("receiver_test.go")
		if err != nil {
			t.Fatal(err)
		}
		_, block, _ := strings.Cut(string(code), "// tutorial receiver begin\n")
		block, _, _ = strings.Cut(block, "// tutorial receiver end")
		if !strings.Contains(string(readme), strings.TrimSpace(block)) {
			t.Fatal("docs/tutorial.md does not hold the handler of receiver_test.go verbatim")
		}
		command, err := os.ReadFile("../../cmd/webhook-receiver/main.go")
		if err != nil || !strings.Contains(string(command), strings.TrimSpace(block)) {
			t.Fatalf("cmd/webhook-receiver does not hold the handler of receiver_test.go verbatim (%v)", err)
		}

		var mu sync.Mutex
		var last platentest.Delivery
		var secret string
		handled := make(chan string, 4) // the deliveries handle was given, as it got them
		endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			mu.Lock()
			last = platentest.Delivery{Header: r.Header.Clone(), Body: body}
			key := secret
			mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(body))
			webhookHandler(key, func(delivery, _ string, _ []byte) { handled <- delivery })(w, r)
		}))
		defer endpoint.Close()
		srv, tenant, s := setup(t, b, endpoint.URL)
		mu.Lock()
		secret = s
		mu.Unlock()
		if r := srv.Do(t, "POST", "/v1/shop/orders", tenant.Token, map[string]any{
			"external_id": "SO-1", "lines": []any{map[string]any{"design_version_id": "sticker-v1", "quantity": 1}}}); r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		log := waitLog(t, srv, tenant.Token, func(d map[string]any) bool { return d["status"] == "delivered" })
		// handle runs on its own goroutine, after the answer: wait for it.
		select {
		case delivery := <-handled:
			if delivery != log["id"] {
				t.Fatalf("the receiver handled the delivery %q, want %v", delivery, log["id"])
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("the receiver never handled the delivery %v", log["id"])
		}
		select {
		case delivery := <-handled:
			t.Fatalf("the receiver handled a second delivery %q", delivery)
		default:
		}
		mu.Lock()
		got := last
		mu.Unlock()

		replay := func(body []byte, key string) int {
			req := httptest.NewRequest("POST", "/hooks", bytes.NewReader(body))
			req.Header = got.Header.Clone()
			rec := httptest.NewRecorder()
			webhookHandler(key, func(string, string, []byte) {})(rec, req)
			return rec.Code
		}
		if code := replay(got.Body, secret); code != http.StatusNoContent {
			t.Errorf("the delivery replayed as sent: %d, want 204", code)
		}
		tampered := bytes.Replace(got.Body, []byte(`"ready"`), []byte(`"READY"`), 1)
		if bytes.Equal(tampered, got.Body) {
			t.Fatal("nothing to tamper with")
		}
		if code := replay(tampered, secret); code != http.StatusUnauthorized {
			t.Errorf("a tampered body: %d, want 401", code)
		}
		if code := replay(got.Body, "whsec_another"); code != http.StatusUnauthorized {
			t.Errorf("another secret: %d, want 401", code)
		}
	})
}
