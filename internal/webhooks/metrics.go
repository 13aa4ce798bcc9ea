package webhooks

import "github.com/prometheus/client_golang/prometheus"

// Metrics count the deliverer's attempts and postponements, so that a
// store held back (its deliveries at their limit, its endpoint paused)
// shows on /metrics, not only in the delivery log.
type Metrics struct {
	attempts  *prometheus.CounterVec
	postponed *prometheus.CounterVec
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
		postponed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "platen_webhook_postponed_total",
			Help: "Webhook deliveries sent back to the queue without an attempt, by reason.",
		}, []string{"reason"}),
	}
	reg.MustRegister(m.attempts, m.postponed)
	return m
}

// attempt counts an attempt; m may be nil (no metrics).
func (m *Metrics) attempt(delivered bool) {
	if m == nil {
		return
	}
	result := "failed"
	if delivered {
		result = "delivered"
	}
	m.attempts.WithLabelValues(result).Inc()
}

// postpone counts a postponement; m may be nil.
func (m *Metrics) postpone(reason string) {
	if m != nil {
		m.postponed.WithLabelValues(reason).Inc()
	}
}
