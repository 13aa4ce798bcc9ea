package server_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
)

// TestOperationalMetrics: /metrics carries what an operator watches: the
// build, renders by kind and outcome with failures by class, each queue's
// jobs, webhook deliveries by outcome with their latency, and HTTP routes
// labelled by their documented path only.
func TestOperationalMetrics(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		delivered := make(chan struct{}, 8)
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusNoContent)
			delivered <- struct{}{}
		}))
		t.Cleanup(receiver.Close)
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork = true })
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		if r := srv.Do(t, "PUT", "/api/v1/stores/acme-shop/webhook", acme.Token, map[string]any{"url": receiver.URL}); r.Status != http.StatusOK {
			t.Fatalf("webhook: %d %s", r.Status, r.Raw)
		}
		good := `{"width":20,"height":20,"layers":[{"type":"rect","x":0,"y":0,"width":20,"height":20,"fill":"#204080"}]}`
		r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, map[string]any{"store_id": "acme-shop", "ecommerce_order_id": "1001", "create_print_files": true,
			"items": []map[string]any{
				{"ecommerce_order_item_id": "ok", "ecommerce_variant_id": "v", "quantity": 1, "template_config": url.QueryEscape(good), "thumbnails": []string{"https://cdn.example.com/t.png"}},
				{"ecommerce_order_item_id": "bad", "ecommerce_variant_id": "v", "quantity": 1, "template_config": url.QueryEscape(`{"width":20,"height":20,"layers":[{"type":"text","text":"hi","font":"Nope","size":12}]}`), "thumbnails": []string{"https://cdn.example.com/t.png"}},
			}})
		if r.Status != http.StatusOK {
			t.Fatalf("order: %d %s", r.Status, r.Raw)
		}
		waitPrint(t, srv, acme.Token, "ok", "ready")
		waitPrint(t, srv, acme.Token, "bad", "processingfailed")
		select {
		case <-delivered:
		case <-time.After(30 * time.Second):
			t.Fatal("no webhook arrived")
		}
		srv.Do(t, "GET", "/v1/shop/orders/NO-SUCH-REF", acme.Token, nil)

		// The attempt is counted once recorded, a moment after the receiver
		// answered it.
		m := scrape(t, srv)
		for deadline := time.Now().Add(30 * time.Second); m.value("platen_webhook_deliveries_total", map[string]string{"outcome": "delivered"}) < 1; m = scrape(t, srv) {
			if time.Now().After(deadline) {
				t.Fatal("the delivery was never counted")
			}
			time.Sleep(20 * time.Millisecond)
		}
		// A scrape is no snapshot: the registry collects each metric in
		// turn, so the scrape that saw the delivery counted may have read
		// its latency histogram just before the attempt was observed. A
		// scrape that starts after it saw the count sees both.
		m = scrape(t, srv)
		if g := m.value("platen_build_info", nil); g != 1 || m.label("platen_build_info", "version") == "" {
			t.Errorf("platen_build_info %v, version %q", g, m.label("platen_build_info", "version"))
		}
		for _, c := range []struct {
			name   string
			labels map[string]string
		}{
			{"platen_render_duration_seconds", map[string]string{"kind": "pdf", "outcome": "ok"}},
			{"platen_render_duration_seconds", map[string]string{"kind": "pdf", "outcome": "failed"}},
			{"platen_render_failures_total", map[string]string{"kind": "pdf", "reason": "document"}},
			{"platen_webhook_deliveries_total", map[string]string{"outcome": "delivered"}},
			{"platen_webhook_attempt_duration_seconds", map[string]string{"result": "delivered"}},
		} {
			if v := m.value(c.name, c.labels); v < 1 {
				t.Errorf("%s%v = %v, want at least 1", c.name, c.labels, v)
			}
		}
		for _, queue := range []string{"render", "webhooks"} {
			if !m.has("platen_queue_jobs", map[string]string{"queue": queue, "state": "available"}) ||
				!m.has("platen_queue_oldest_available_seconds", map[string]string{"queue": queue}) {
				t.Errorf("no queue metrics for %s", queue)
			}
		}
		routes := map[string]bool{}
		for _, s := range m["platen_http_requests_total"].GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetName() == "route" {
					routes[l.GetValue()] = true
				}
			}
		}
		for route := range routes {
			if route != "unmatched" && (!strings.HasPrefix(route, "/") || strings.ContainsAny(route, " =*")) {
				t.Errorf("route label %q is not a documented path", route)
			}
		}
		for _, want := range []string{"/api/v1/orders", "/v1/shop/orders/{order_ref}", "/api/v1/stores/{store_id}/webhook"} {
			if !routes[want] {
				t.Errorf("no route label %q among %v", want, routes)
			}
		}
	})
}

// waitPrint waits until an order item's print has status.
func waitPrint(t *testing.T, srv *platentest.Server, token, item, status string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for srv.Do(t, "GET", "/api/v1/order-items/"+item+"/print", token, nil).Object(t)["status"] != status {
		if time.Now().After(deadline) {
			t.Fatalf("item %s never %s", item, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// metrics are a scrape's families by name.
type metrics map[string]*dto.MetricFamily

func scrape(t *testing.T, srv *platentest.Server) metrics {
	t.Helper()
	r := srv.Do(t, "GET", "/metrics", "", nil)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(r.Raw))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return families
}

// find is the sample of name whose labels include labels.
func (m metrics) find(name string, labels map[string]string) *dto.Metric {
	for _, s := range m[name].GetMetric() {
		matched := 0
		for _, l := range s.GetLabel() {
			if v, ok := labels[l.GetName()]; ok && v == l.GetValue() {
				matched++
			}
		}
		if matched == len(labels) {
			return s
		}
	}
	return nil
}

func (m metrics) has(name string, labels map[string]string) bool { return m.find(name, labels) != nil }

// value is a counter's or gauge's value, or a histogram's count.
func (m metrics) value(name string, labels map[string]string) float64 {
	s := m.find(name, labels)
	switch {
	case s == nil:
		return 0
	case s.Counter != nil:
		return s.GetCounter().GetValue()
	case s.Gauge != nil:
		return s.GetGauge().GetValue()
	case s.Histogram != nil:
		return float64(s.GetHistogram().GetSampleCount())
	}
	return 0
}

func (m metrics) label(name, label string) string {
	for _, s := range m[name].GetMetric() {
		for _, l := range s.GetLabel() {
			if l.GetName() == label {
				return l.GetValue()
			}
		}
	}
	return ""
}
