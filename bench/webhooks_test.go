package bench

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestAnalyzeHooks(t *testing.T) {
	from := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	to := from.Add(10 * time.Second)
	at := func(ms int) time.Time { return from.Add(time.Duration(ms) * time.Millisecond) }
	prints := []printRow{
		{uid: "warm", status: "ready", created: at(-2000), updated: at(-1900)}, // ready before the window
		{uid: "a", status: "ready", created: at(1000), updated: at(1100)},
		{uid: "b", status: "ready", created: at(2000), updated: at(2050)},
		{uid: "lost", status: "ready", created: at(3000), updated: at(3100)},      // no webhook
		{uid: "late", status: "ready", created: at(9000), updated: at(10500)},     // ready after the window
		{uid: "todo", status: "processing", created: at(9500), updated: at(9500)}, // never ready
	}
	deliveries := map[string]deliveryRow{
		"d-a": {created: at(1100), attempted: at(1150)},
		"d-b": {created: at(2050), attempted: at(2140)},
	}
	arrivals := []arrival{
		{deliveryID: "d-warm", printID: "warm", at: at(-1850)},
		{deliveryID: "d-a", printID: "a", at: at(1160)},
		{deliveryID: "d-a", printID: "a", at: at(1400)},  // the same delivery again
		{deliveryID: "d-b2", printID: "b", at: at(2300)}, // a second delivery of b, later
		{deliveryID: "d-b", printID: "b", at: at(2150)},
		{deliveryID: "d-late", printID: "late", at: at(10550)},
	}
	s := analyzeHooks(prints, deliveries, arrivals, 1, from, to)
	if s.expected != 3 || s.delivered != 2 {
		t.Errorf("expected %d, delivered %d; want 3, 2", s.expected, s.delivered)
	}
	if s.created != 5 || s.backlog != 2 {
		t.Errorf("created %d, backlog %d; want 5, 2", s.created, s.backlog)
	}
	if s.repeats != 1 || s.multiNotified != 1 || s.bad != 1 {
		t.Errorf("repeats %d, multiNotified %d, bad %d; want 1, 1, 1", s.repeats, s.multiNotified, s.bad)
	}
	wantLatency := []time.Duration{60 * time.Millisecond, 100 * time.Millisecond} // a: 1160-1100; b: 2150-2050
	if len(s.latency) != 2 || s.latency[0] != wantLatency[0] || s.latency[1] != wantLatency[1] {
		t.Errorf("latency %v, want %v", s.latency, wantLatency)
	}
	if len(s.wait) != 2 || s.wait[0] != 50*time.Millisecond || s.wait[1] != 90*time.Millisecond {
		t.Errorf("wait %v", s.wait)
	}
	if len(s.post) != 2 || s.post[0] != 10*time.Millisecond || s.post[1] != 10*time.Millisecond {
		t.Errorf("post %v", s.post)
	}
	if len(s.inTx) != 2 || s.inTx[0] != 0 || s.inTx[1] != 0 {
		t.Errorf("inTx %v", s.inTx)
	}
	if got := s.readyRate(); got != 0.3 {
		t.Errorf("readyRate %g, want 0.3", got)
	}
}

func TestDBTimeScan(t *testing.T) {
	want := time.Date(2026, 11, 23, 12, 16, 24, 127130000, time.UTC)
	for _, v := range []any{"2026-11-23 12:16:24.12713 +0000 UTC", []byte("2026-11-23T12:16:24.12713Z"), want} {
		var got dbTime
		if err := got.Scan(v); err != nil || !got.Equal(want) {
			t.Errorf("Scan(%v) = %v, %v", v, got.Time, err)
		}
	}
	var null dbTime
	if err := null.Scan(nil); err != nil || !null.IsZero() {
		t.Errorf("Scan(nil) = %v, %v", null.Time, err)
	}
	if err := null.Scan("yesterday"); err == nil {
		t.Error("Scan(yesterday): no error")
	}
}

func TestHookReceiver(t *testing.T) {
	r, err := startHookReceiver()
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	post := func(delivery, body string) {
		req, err := http.NewRequest(http.MethodPost, r.url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Platen-Delivery", delivery)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Errorf("status %d", resp.StatusCode)
		}
	}
	ready := `{"event":"print_files.ready","print_id":"p1","status":"ready","files":[]}`
	post("d1", ready)
	post("d1", ready)
	post("d2", `{"event":"order_item.print_file.ready"}`)
	arrivals, bad := r.snapshot()
	if len(arrivals) != 2 || bad != 1 || r.prints() != 1 {
		t.Fatalf("arrivals %v, bad %d, prints %d", arrivals, bad, r.prints())
	}
	if a := arrivals[0]; a.deliveryID != "d1" || a.printID != "p1" || a.at.IsZero() {
		t.Errorf("arrival %+v", a)
	}
	if r.conns.Load() < 1 {
		t.Error("no connection counted")
	}
}

func TestShopOrderBody(t *testing.T) {
	var order struct {
		ExternalID string `json:"external_id"`
		Lines      []struct {
			DesignVersionID string `json:"design_version_id"`
			Quantity        int    `json:"quantity"`
		} `json:"lines"`
	}
	if err := json.Unmarshal(shopOrderBody("SO-1", 10), &order); err != nil {
		t.Fatal(err)
	}
	if order.ExternalID != "SO-1" || len(order.Lines) != 10 || order.Lines[9].DesignVersionID != shopDesignID || order.Lines[9].Quantity != 1 {
		t.Errorf("%+v", order)
	}
}

// TestSendOrders checks the sender's schedule: one order per interval from
// start until to, each with its lines, whatever the server's speed.
func TestSendOrders(t *testing.T) {
	var posts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/shop/orders" || r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "unexpected", http.StatusBadRequest)
			return
		}
		posts.Add(1)
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	e := &env{run: "r", baseURL: srv.URL, token: "tok"}
	start := time.Now()
	res := sendOrders(context.Background(), e, 200, 3, start, start, start.Add(100*time.Millisecond))
	if posts.Load() != 20 || res.prints != 60 || res.errors != 0 || len(res.latency) != 20 {
		t.Errorf("posts %d, result %+v", posts.Load(), res)
	}
}

func TestHookOptionsValidate(t *testing.T) {
	ok := HookOptions{Platen: "p", Rates: []float64{100}, Lines: 10, Workers: []int{0}, Window: time.Second, Repeat: 1}
	if err := ok.validate(); err != nil {
		t.Errorf("valid options: %v", err)
	}
	bad := ok
	bad.Rates = []float64{0}
	if bad.validate() == nil {
		t.Error("a zero rate passed")
	}
	bad = ok
	bad.Workers = []int{-1}
	if bad.validate() == nil {
		t.Error("negative workers passed")
	}
}
