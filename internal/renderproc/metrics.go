package renderproc

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
)

// Measured is client with each render's duration and failures counted on
// reg, by kind (pdf, png, sheets) and, for a failure, by its class:
// document (the design cannot render), limit (it hit a render limit),
// crash, temporary (an image server, a render process restarting),
// cancelled, internal.
func Measured(client renderv1.RenderServiceClient, reg prometheus.Registerer) renderv1.RenderServiceClient {
	m := &measured{
		client: client,
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "platen_render_duration_seconds",
			Help:    "Renders' time from the call to the render service to its answer, by kind and outcome (ok or failed).",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120},
		}, []string{"kind", "outcome"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "platen_render_failures_total",
			Help: "Renders that failed, by kind and reason class: document, limit, crash, temporary, cancelled, internal.",
		}, []string{"kind", "reason"}),
	}
	reg.MustRegister(m.duration, m.failures)
	return m
}

type measured struct {
	client   renderv1.RenderServiceClient
	duration *prometheus.HistogramVec
	failures *prometheus.CounterVec
}

func (m *measured) Render(ctx context.Context, req *renderv1.RenderRequest, opts ...grpc.CallOption) (*renderv1.RenderResponse, error) {
	start := time.Now()
	resp, err := m.client.Render(ctx, req, opts...)
	kind, outcome := renderKind(req), "ok"
	if err != nil {
		outcome = "failed"
		m.failures.WithLabelValues(kind, FailureClass(err)).Inc()
	}
	m.duration.WithLabelValues(kind, outcome).Observe(time.Since(start).Seconds())
	return resp, err
}

// renderKind names what a request makes: a batch's sheets, a PDF (with
// PNGs or not), or PNGs alone (previews, thumbnails).
func renderKind(req *renderv1.RenderRequest) string {
	switch {
	case req.GetSheets() != nil:
		return "sheets"
	case slices.Contains(req.GetFormats(), renderv1.Format_FORMAT_PDF):
		return "pdf"
	}
	return "png"
}

// FailureClass is the class of a render's failure, as the metrics label
// it.
func FailureClass(err error) string {
	st, ok := grpcStatus(err)
	switch {
	case Crashed(err):
		return "crash"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "cancelled"
	case !ok:
		return "internal"
	}
	switch st.Code() {
	case codes.InvalidArgument:
		return "document"
	case codes.ResourceExhausted:
		return "limit"
	case codes.Unavailable:
		return "temporary"
	case codes.Canceled, codes.DeadlineExceeded:
		return "cancelled"
	}
	return "internal"
}
