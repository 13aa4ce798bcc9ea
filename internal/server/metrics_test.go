package server_test

import (
	"bytes"
	"net/http"
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
		receiver := platentest.NewReceiver(t, platentest.Answering(http.StatusNoContent))
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork = true })
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		if r := srv.Do(t, "PUT", "/api/v1/stores/acme-shop/webhook", acme.Token, map[string]any{"url": receiver.URL}); r.Status != http.StatusOK {
			t.Fatalf("webhook: %d %s", r.Status, r.Raw)
		}
		good := `{"width":20,"height":20,"layers":[{"type":"rect","x":0,"y":0,"width":20,"height":20,"fill":"#204080"}]}`
		bad := `{"width":20,"height":20,"layers":[{"type":"text","text":"hi","font":"Nope","size":12}]}`
		r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, platentest.OrderBody("acme-shop", "1001", platentest.PrintFiles(),
			platentest.Items(platentest.OrderItem("ok", good), platentest.OrderItem("bad", bad))))
		if r.Status != http.StatusOK {
			t.Fatalf("order: %d %s", r.Status, r.Raw)
		}
		srv.WaitPrint(t, acme.Token, "ok", platentest.PrintReady)
		srv.WaitPrint(t, acme.Token, "bad", platentest.PrintFailed)
		receiver.Wait(t, 1, 30*time.Second)
		srv.Do(t, "GET", "/v1/shop/orders/NO-SUCH-REF", acme.Token, nil)

		// The attempt is counted once recorded, a moment after the receiver
		// answered it.
		srv.WaitFor(t, 30*time.Second, "the delivery counted", func() bool {
			return scrape(t, srv).value("platen_webhook_deliveries_total", map[string]string{"outcome": "delivered"}) >= 1
		})
		// A scrape is no snapshot: the registry collects each metric in
		// turn, so the scrape that saw the delivery counted may have read
		// its latency histogram just before the attempt was observed. A
		// scrape that starts after it saw the count sees both.
		m := scrape(t, srv)
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
