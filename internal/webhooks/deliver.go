package webhooks

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/riverqueue/river"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/queue"
)

// Delivery statuses.
const (
	StatusPending   = "pending"
	StatusDelivered = "delivered"
	StatusFailed    = "failed"
)

// DefaultRetryDelays space the attempts of a delivery (contract §6): after
// the first attempt and each of these, one more; then the delivery fails.
var DefaultRetryDelays = []time.Duration{
	10 * time.Second, time.Minute, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// AttemptTimeout bounds one attempt: a receiver answers within 10 s.
const AttemptTimeout = 10 * time.Second

// Kind and queue of delivery jobs.
const (
	DeliverKind = "deliver_webhook"
	Queue       = "webhooks"
)

// Workers is how many deliveries run at once in a process: they wait on
// receivers (10 s at most), not on the CPU.
const Workers = 32

// DeliverArgs is a delivery job: the delivery, by uid. The delivery row
// names the job that owns it; a resend replaces that job.
type DeliverArgs struct {
	DeliveryUID string `json:"delivery_uid"`
}

// Kind is the job kind.
func (DeliverArgs) Kind() string { return DeliverKind }

// InsertOpts puts deliveries on their own queue, so that renders never
// hold them up. Retries are snoozes (see Work), which River does not count;
// the attempt limit only ends a job that crashes its process every time.
func (DeliverArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Queue, MaxAttempts: 10}
}

// Delivery is what an attempt needs: the event, its exact body, and the
// store's endpoint with the secrets to sign with.
type Delivery struct {
	UID, StoreID, Event string
	Body                []byte
	Status              string
	Attempts            int
	// JobID is the job that owns the delivery; nil when none does.
	JobID *int64
	// URL is the store's endpoint; empty when it has none now.
	URL string
	// Secrets sign the delivery: the current one, and the previous one
	// while a rotation's grace period lasts.
	Secrets []string
}

// Attempt is the outcome of one attempt.
type Attempt struct {
	At         time.Time
	StatusCode int // 0 when no answer came
	Latency    time.Duration
	Err        string // empty when delivered
	// Status after the attempt, and when the next one is due if pending.
	Status string
	NextAt *time.Time
}

// Store is the persistence of deliveries.
type Store interface {
	Delivery(ctx context.Context, uid string) (*Delivery, error)
	// RecordAttempt adds the attempt to the delivery's log while jobID
	// owns it, and reports whether it did.
	RecordAttempt(ctx context.Context, uid string, jobID int64, a Attempt) (bool, error)
}

// Deliverer works delivery jobs.
type Deliverer struct {
	river.WorkerDefaults[DeliverArgs]
	Store  Store
	Client *http.Client
	// RetryDelays, when set, replaces DefaultRetryDelays (tests).
	RetryDelays []time.Duration
	Logger      *slog.Logger
}

// NewClient is the HTTP client of deliveries: dial checks the address of
// every connection (the image fetcher's rules, so that a webhook URL
// cannot reach the service's own network), redirects are not followed,
// and an attempt lasts AttemptTimeout at most.
func NewClient(dial func(ctx context.Context, network, addr string) (net.Conn, error)) *http.Client {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.DialContext = dial
	transport.Proxy = nil
	// One kept connection per delivery at once: at the default of two, a
	// store's receiver got a new connection for two webhooks in three
	// under load (BENCHMARKS.md).
	transport.MaxIdleConnsPerHost = Workers
	return &http.Client{
		Transport:     transport,
		Timeout:       AttemptTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Timeout leaves room around the attempt for reading and recording.
func (d *Deliverer) Timeout(*river.Job[DeliverArgs]) time.Duration {
	return AttemptTimeout + 20*time.Second
}

// Work makes one attempt. A 2xx answer delivers; any other answer, or none
// in time, schedules the next attempt (a snooze) until the delays run out,
// and then fails the delivery, which an operator may resend.
func (d *Deliverer) Work(ctx context.Context, job *river.Job[DeliverArgs]) error {
	dl, err := d.Store.Delivery(ctx, job.Args.DeliveryUID)
	if errors.Is(err, apierr.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if dl.JobID == nil || *dl.JobID != job.ID || dl.Status != StatusPending {
		return nil // resent under another job, or already settled
	}
	a := d.attempt(ctx, dl)
	delays := d.RetryDelays
	if delays == nil {
		delays = DefaultRetryDelays
	}
	var wait time.Duration
	switch {
	case a.Err == "":
		a.Status = StatusDelivered
	case dl.Attempts >= len(delays): // this was the last attempt
		a.Status = StatusFailed
	default:
		a.Status = StatusPending
		wait = jitter(delays[dl.Attempts])
		next := a.At.Add(wait)
		a.NextAt = &next
	}
	// Recorded even if the job's context ended: the attempt happened.
	if _, err := d.Store.RecordAttempt(context.WithoutCancel(ctx), dl.UID, job.ID, a); err != nil {
		return err
	}
	if a.Status == StatusPending {
		d.logger().Info("webhook not delivered; retrying", "delivery", dl.UID, "store_id", dl.StoreID,
			"attempt", dl.Attempts+1, "status", a.StatusCode, "error", a.Err, "next_in", wait.String())
		return river.JobSnooze(wait)
	}
	return nil
}

// attempt POSTs the delivery once and says how it went.
func (d *Deliverer) attempt(ctx context.Context, dl *Delivery) Attempt {
	a := Attempt{At: time.Now()}
	if dl.URL == "" {
		a.Err = "the store has no webhook URL"
		return a
	}
	req, err := d.request(ctx, dl, a.At)
	if err != nil {
		a.Err = err.Error()
		return a
	}
	resp, err := d.Client.Do(req)
	a.Latency = time.Since(a.At)
	if err != nil {
		a.Err = err.Error()
		return a
	}
	// Read a little of the answer, so that the connection can be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	a.StatusCode = resp.StatusCode
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		a.Err = fmt.Sprintf("the endpoint answered %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	return a
}

// request is the attempt's POST: the exact body, with the Platen and the
// Standard Webhooks headers.
func (d *Deliverer) request(ctx context.Context, dl *Delivery, at time.Time) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, dl.URL, bytes.NewReader(dl.Body))
	if err != nil {
		return nil, fmt.Errorf("the webhook URL cannot be used: %w", err)
	}
	timestamp := at.Unix()
	platenSig, standardSig, err := signatureHeaders(dl.Secrets, dl.UID, timestamp, dl.Body)
	if err != nil {
		return nil, err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "Platen-Webhooks/1")
	h.Set("Platen-Signature", platenSig)
	h.Set("Platen-Event", dl.Event)
	h.Set("Platen-Delivery", dl.UID)
	h.Set("webhook-id", dl.UID)
	h.Set("webhook-timestamp", strconv.FormatInt(timestamp, 10))
	h.Set("webhook-signature", standardSig)
	return req, nil
}

// jitter spreads a delay by ±10%, so that deliveries that failed together
// (a receiver down) do not all come back at the same moment.
func jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.9 + 0.2*rand.Float64()))
}

func (d *Deliverer) logger() *slog.Logger {
	if d.Logger != nil {
		return d.Logger
	}
	return slog.Default()
}

// DeliveryJobs inserts delivery jobs; with printfiles.Jobs it makes the
// stores' JobQueue.
type DeliveryJobs struct{ q *queue.Queue }

// NewDeliveryJobs returns the delivery jobs of q.
func NewDeliveryJobs(q *queue.Queue) *DeliveryJobs { return &DeliveryJobs{q: q} }

// EnqueueDeliveries queues a delivery job per delivery uid in tx and
// returns the job ids.
func (j *DeliveryJobs) EnqueueDeliveries(ctx context.Context, tx *sql.Tx, uids []string) ([]int64, error) {
	ids, err := j.q.InsertEachTx(ctx, tx, uids, func(uid string) river.JobArgs { return DeliverArgs{DeliveryUID: uid} })
	if err != nil {
		return nil, fmt.Errorf("queue deliveries: %w", err)
	}
	return ids, nil
}
