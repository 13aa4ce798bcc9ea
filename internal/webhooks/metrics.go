package webhooks

import "github.com/prometheus/client_golang/prometheus"

// Metrics count the deliverer's attempts and postponements, so that a
// store held back (its deliveries at their limit, its endpoint paused)
// shows on /metrics, not only in the delivery log.
type Metrics struct {
	attempts   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	deliveries *prometheus.CounterVec
	postponed  *prometheus.CounterVec
}

// Reasons a delivery is postponed, as the metric labels them.
const (
	reasonBusy   = "store_busy"
	reasonPaused = "endpoint_paused"
)

// NewMetrics registers the deliverer's metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "platen_webhook_attempts_total",
			Help: "Webhook attempts by result: delivered, or failed (to be retried or not).",
		}, []string{"result"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "platen_webhook_attempt_duration_seconds",
			Help:    "Webhook attempts' time from the request to the endpoint's answer (or giving up), by result.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"result"}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "platen_webhook_deliveries_total",
			Help: "Webhook deliveries by final outcome: delivered, or failed once its retries ran out.",
		}, []string{"outcome"}),
		postponed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "platen_webhook_postponed_total",
			Help: "Webhook deliveries sent back to the queue without an attempt, by reason.",
		}, []string{"reason"}),
	}
	reg.MustRegister(m.attempts, m.latency, m.deliveries, m.postponed)
	return m
}

// attempt counts an attempt, its latency, and the delivery's outcome when
// it was the last; m may be nil (no metrics).
func (m *Metrics) attempt(a Attempt) {
	if m == nil {
		return
	}
	result := "failed"
	if a.Err == "" {
		result = "delivered"
	}
	m.attempts.WithLabelValues(result).Inc()
	m.latency.WithLabelValues(result).Observe(a.Latency.Seconds())
	if a.Status == StatusDelivered || a.Status == StatusFailed {
		m.deliveries.WithLabelValues(a.Status).Inc()
	}
}

// postpone counts a postponement; m may be nil.
func (m *Metrics) postpone(reason string) {
	if m != nil {
		m.postponed.WithLabelValues(reason).Inc()
	}
}
