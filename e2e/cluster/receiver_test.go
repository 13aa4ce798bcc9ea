package cluster

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// receiver is a store's webhook endpoint on loopback: it checks both
// signatures of every delivery, records every delivery id and the event it
// carried, and answers 500 while failing is set.
type receiver struct {
	srv     *httptest.Server
	secret  string
	failing atomic.Bool

	mu         sync.Mutex
	deliveries map[string]*delivery // by Platen-Delivery
	attempts   int
	refused    int // attempts answered 500 on purpose
	badSig     int // attempts whose signature did not verify
}

// delivery is what one delivery id carried.
type delivery struct {
	ID, Event string
	Body      hookBody
	Attempts  int
	Accepted  bool
}

// hookBody is what the checks read of an event of either family.
type hookBody struct {
	Event        string   `json:"event"`
	OrderItemUID string   `json:"order_item_uid"`
	PrintID      string   `json:"print_id"`
	BatchUID     string   `json:"batch_uid"`
	Status       string   `json:"status"`
	SHA256       *string  `json:"sha256"`
	Files        []hookFl `json:"files"`
}

type hookFl struct {
	Index  int     `json:"index"`
	SHA256 *string `json:"sha256"`
}

// subject is the print an event is about.
func (b hookBody) subject() string { return b.OrderItemUID + b.PrintID + b.BatchUID }

// digest is the file (or files) an event announces, so that two renders of
// one print are told apart.
func (b hookBody) digest() string {
	if b.SHA256 != nil {
		return *b.SHA256
	}
	var parts []string
	for _, f := range b.Files {
		if f.SHA256 != nil {
			parts = append(parts, *f.SHA256)
		}
	}
	return strings.Join(parts, ",")
}

func startReceiver(t *testing.T) *receiver {
	t.Helper()
	r := &receiver{deliveries: map[string]*delivery{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) url() string { return r.srv.URL + "/hook" }

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	id := req.Header.Get("Platen-Delivery")
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attempts++
	if err != nil || !r.validSignatures(req.Header, body) {
		r.badSig++
		http.Error(w, "invalid signature", http.StatusUnauthorized)
		return
	}
	d := r.deliveries[id]
	if d == nil {
		d = &delivery{ID: id, Event: req.Header.Get("Platen-Event")}
		_ = json.Unmarshal(body, &d.Body)
		r.deliveries[id] = d
	}
	d.Attempts++
	if r.failing.Load() {
		r.refused++
		http.Error(w, "failing on purpose", http.StatusInternalServerError)
		return
	}
	d.Accepted = true
	w.WriteHeader(http.StatusNoContent)
}

// validSignatures checks Platen-Signature (HMAC-SHA256 of the body keyed
// with the whole secret) and the Standard Webhooks signature (keyed with
// the secret's decoded bytes, over id.timestamp.body); both must verify.
func (r *receiver) validSignatures(h http.Header, body []byte) bool {
	mac := hmac.New(sha256.New, []byte(r.secret))
	mac.Write(body)
	if !hmac.Equal([]byte(h.Get("Platen-Signature")), []byte("sha256="+hex.EncodeToString(mac.Sum(nil)))) {
		return false
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(r.secret, "whsec_"))
	if err != nil || h.Get("webhook-id") != h.Get("Platen-Delivery") {
		return false
	}
	std := hmac.New(sha256.New, key)
	std.Write([]byte(h.Get("webhook-id") + "." + h.Get("webhook-timestamp") + "."))
	std.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(std.Sum(nil))
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return true
		}
	}
	return false
}

// snapshot copies what the receiver recorded.
func (r *receiver) snapshot() (ds []delivery, attempts, refused, badSig int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range r.deliveries {
		ds = append(ds, *d)
	}
	return ds, r.attempts, r.refused, r.badSig
}
