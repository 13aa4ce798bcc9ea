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
	"strings"
	"sync"
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

// StatusFailing is a filter of the delivery log, not a status: the
// deliveries whose last attempt failed, pending a retry or failed.
const StatusFailing = "failing"

// DefaultRetryDelays space the attempts of a delivery: after
// the first attempt and each of these, one more; then the delivery fails.
var DefaultRetryDelays = []time.Duration{
	10 * time.Second, time.Minute, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// AttemptTimeout bounds one attempt: a receiver answers within 10 s.
const AttemptTimeout = 10 * time.Second

// Limits bound what one store's endpoint may take of the deliveries, so
// that a slow or failing receiver delays its own store only.
type Limits struct {
	// PerStore is how many of a store's deliveries may be in flight at
	// once in one process; the others wait their turn without a worker.
	PerStore int
	// AttemptTimeout bounds one attempt.
	AttemptTimeout time.Duration
	// Failures is how many failed attempts in a row pause the store's
	// endpoint: for Pause, then after each failed probe twice as long, up
	// to MaxPause.
	Failures        int
	Pause, MaxPause time.Duration
}

// DefaultLimits: 4 of the 32 workers at most for one store, so that seven
// more stores could hang before the others wait; 5 failures in a row (more
// than one round of 4 hung attempts) pause the endpoint for 30 s, up to
// 10 min between probes.
var DefaultLimits = Limits{
	PerStore: 4, AttemptTimeout: AttemptTimeout,
	Failures: 5, Pause: 30 * time.Second, MaxPause: 10 * time.Minute,
}

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
// hold them up. Retries are postponements (see Work), which River does not
// count as attempts (queue.Postpone); the attempt limit only ends a job
// that crashes its process every time.
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
	// Request is the headers the attempt sent; Answer the start of the
	// answer's body (nil when none came), for the operator to read.
	Request map[string]string
	Answer  *string
}

// maxAnswer is how much of an answer's body a delivery keeps.
const maxAnswer = 2 << 10

// Store is the persistence of deliveries.
type Store interface {
	Delivery(ctx context.Context, uid string) (*Delivery, error)
	// Circuit returns the store's endpoint health (zero if it never failed).
	Circuit(ctx context.Context, storeID string) (Circuit, error)
	// RecordAttempt adds the attempt to the delivery's log while jobID
	// owns it, and in the same transaction updates its store's circuit: a
	// success clears it; a failure is added to its count, and failed, given
	// the circuit with the failure counted, returns the circuit to keep (a
	// pause, maybe). It returns the circuit kept.
	RecordAttempt(ctx context.Context, dl *Delivery, jobID int64, a Attempt, failed func(Circuit) Circuit) (Circuit, error)
	// Postpone moves the delivery's next attempt to at while jobID owns
	// it, counting no attempt.
	Postpone(ctx context.Context, uid string, jobID int64, at time.Time) error
	// ClaimProbe makes the caller the probe of the store's paused endpoint,
	// until until, if the pause has ended at now and no other probe is
	// under way; it reports whether it did.
	ClaimProbe(ctx context.Context, storeID string, now, until time.Time) (bool, error)
}

// Deliverer works delivery jobs.
type Deliverer struct {
	river.WorkerDefaults[DeliverArgs]
	Store  Store
	Client *http.Client
	// RetryDelays, when set, replaces DefaultRetryDelays (tests).
	RetryDelays []time.Duration
	// Limits, when set, replace DefaultLimits.
	Limits *Limits
	// Metrics, when set, count attempts and postponements.
	Metrics *Metrics
	Logger  *slog.Logger

	gateOnce sync.Once
	gate     *gate
}

// NewClient is the HTTP client of deliveries: dial checks the address of
// every connection (the image fetcher's rules, so that a webhook URL
// cannot reach the service's own network), redirects are not followed,
// and nothing lasts longer than AttemptTimeout (each attempt's own limit,
// Limits.AttemptTimeout, may be shorter).
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

// Timeout leaves room around the attempt for the wait for a slot, reading
// and recording.
func (d *Deliverer) Timeout(*river.Job[DeliverArgs]) time.Duration {
	return d.limits().AttemptTimeout + 20*time.Second
}

// Work makes one attempt when the delivery's store may have one now. A 2xx
// answer delivers; any other answer, or none in time, schedules the next
// attempt (a snooze) until the delays run out, and then fails the delivery,
// which an operator may resend. A delivery whose store has its share of
// deliveries in flight, or whose endpoint is paused, goes back to the queue
// for a while: a postponement too (queue.Postpone), which River does not
// count as an attempt, and neither do we, so the schedule and the log's
// attempts count real attempts only.
func (d *Deliverer) Work(ctx context.Context, job *river.Job[DeliverArgs]) error {
	dl, err := d.owned(ctx, job)
	if dl == nil {
		return err
	}
	leave, probe, err := d.turn(ctx, job, dl)
	if leave == nil {
		return err
	}
	defer leave()
	a := d.attempt(ctx, dl)
	if a.Err == "" {
		// The slot is the receiver's time, not the database's. A failure
		// keeps it until recorded, so that the next attempt to take it
		// knows of the failure (and of the pause it may have started):
		// else all the deliveries waiting for a quickly failing endpoint
		// would each try once before the first failure was written.
		leave()
	}
	return d.record(ctx, job, dl, a, probe)
}

// owned reads the job's delivery; nil when there is nothing to do, as it
// is gone, settled, or resent under another job.
func (d *Deliverer) owned(ctx context.Context, job *river.Job[DeliverArgs]) (*Delivery, error) {
	dl, err := d.Store.Delivery(ctx, job.Args.DeliveryUID)
	if errors.Is(err, apierr.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if dl.JobID == nil || *dl.JobID != job.ID || dl.Status != StatusPending {
		return nil, nil
	}
	return dl, nil
}

// turn waits for the store's turn: a slot of its share of the workers, and
// an endpoint that is not paused (or this delivery as the probe of one).
// Without a turn it returns no leave func, and the snooze that postpones
// the delivery or a failure.
func (d *Deliverer) turn(ctx context.Context, job *river.Job[DeliverArgs], dl *Delivery) (leave func(), probe bool, err error) {
	leave, wait, ok := d.slots().enter(ctx, dl.StoreID)
	if !ok {
		return nil, false, d.postpone(ctx, job, dl, time.Now().Add(jitter(wait)), reasonBusy)
	}
	// The circuit is read once the slot is held, so that a delivery that
	// waited for the slot sees what the attempts before it found.
	hold, probe, err := d.endpoint(ctx, dl.StoreID)
	if err == nil && !hold.IsZero() {
		err = d.postpone(ctx, job, dl, hold, reasonPaused)
	}
	if err != nil {
		leave()
		return nil, false, err
	}
	return leave, probe, nil
}

// endpoint says whether the store's endpoint takes an attempt now: hold
// is zero when it does (as the probe of a pause that has ended, when probe),
// else the time to try again.
func (d *Deliverer) endpoint(ctx context.Context, storeID string) (hold time.Time, probe bool, err error) {
	c, err := d.Store.Circuit(ctx, storeID)
	if err != nil {
		return time.Time{}, false, err
	}
	b, now := d.breaker(), time.Now()
	if hold, probe = b.check(c, now); !probe {
		return hold, false, nil
	}
	won, err := d.Store.ClaimProbe(ctx, storeID, now, now.Add(b.probeLease()))
	if err != nil || won {
		return time.Time{}, won, err
	}
	return b.afterProbe(c, now), false, nil
}

// postpone sends the delivery back to the queue until at, counting no
// attempt, and shows at as its next attempt in the log.
func (d *Deliverer) postpone(ctx context.Context, job *river.Job[DeliverArgs], dl *Delivery, at time.Time, reason string) error {
	d.Metrics.postpone(reason)
	if err := d.Store.Postpone(context.WithoutCancel(ctx), dl.UID, job.ID, at); err != nil {
		// The delivery waits all the same; only its log is behind.
		d.logger().Warn("webhook postponed, but its log not updated", "delivery", dl.UID, "error", err)
	}
	d.logger().Debug("webhook postponed", "delivery", dl.UID, "store_id", dl.StoreID, "reason", reason, "until", at)
	return queue.Postpone(max(time.Until(at), 0))
}

// record writes the attempt with what follows from it (delivered, failed,
// or retried after the schedule's next delay: a snooze) and its count in
// the store's circuit.
func (d *Deliverer) record(ctx context.Context, job *river.Job[DeliverArgs], dl *Delivery, a Attempt, probe bool) error {
	wait := d.schedule(dl, &a)
	b, paused := d.breaker(), false
	failed := func(c Circuit) Circuit {
		after := b.failed(c, probe, time.Now())
		paused = after.OpenUntil != c.OpenUntil
		return after
	}
	// Recorded even if the job's context ended: the attempt happened.
	c, err := d.Store.RecordAttempt(context.WithoutCancel(ctx), dl, job.ID, a, failed)
	if err != nil {
		return err
	}
	d.Metrics.attempt(a)
	d.logOutcome(dl, a, wait, probe, paused, c)
	if a.Status == StatusPending {
		return queue.Postpone(wait)
	}
	return nil
}

// schedule sets the attempt's outcome for the delivery, and returns the
// wait before the next attempt when there is one.
func (d *Deliverer) schedule(dl *Delivery, a *Attempt) time.Duration {
	delays := d.RetryDelays
	if delays == nil {
		delays = DefaultRetryDelays
	}
	switch {
	case a.Err == "":
		a.Status = StatusDelivered
	case dl.Attempts >= len(delays): // this was the last attempt
		a.Status = StatusFailed
	default:
		a.Status = StatusPending
		wait := jitter(delays[dl.Attempts])
		next := a.At.Add(wait)
		a.NextAt = &next
		return wait
	}
	return 0
}

// logOutcome logs a retry, and a pause of the endpoint or its end.
func (d *Deliverer) logOutcome(dl *Delivery, a Attempt, wait time.Duration, probe, paused bool, c Circuit) {
	log := d.logger().With("delivery", dl.UID, "store_id", dl.StoreID)
	if a.Status == StatusPending {
		log.Info("webhook not delivered; retrying", "attempt", dl.Attempts+1, "status", a.StatusCode,
			"error", a.Err, "next_in", wait.String())
	}
	switch {
	case paused:
		log.Warn("webhook endpoint paused", "failures_in_a_row", c.Failures, "until", *c.OpenUntil)
	case probe && a.Err == "":
		log.Info("webhook endpoint resumed")
	}
}

// attempt POSTs the delivery once and says how it went.
func (d *Deliverer) attempt(ctx context.Context, dl *Delivery) Attempt {
	ctx, cancel := context.WithTimeout(ctx, d.limits().AttemptTimeout)
	defer cancel()
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
	a.Request = make(map[string]string, len(req.Header))
	for name := range req.Header {
		a.Request[name] = req.Header.Get(name)
	}
	resp, err := d.Client.Do(req)
	a.Latency = time.Since(a.At)
	if err != nil {
		a.Err = err.Error()
		return a
	}
	// Keep the start of the answer, and read a little more, so that the
	// connection can be reused.
	head, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	answer := strings.ToValidUTF8(string(head), "\uFFFD")
	a.Answer = &answer
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
	sigs, err := signatureHeaders(dl.Secrets, dl.UID, timestamp, dl.Body)
	if err != nil {
		return nil, err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "Platen-Webhooks/1")
	h.Set("Platen-Signature", sigs.Platen)
	if sigs.Previous != "" {
		h.Set("Platen-Signature-Previous", sigs.Previous)
	}
	h.Set("Platen-Event", dl.Event)
	h.Set("Platen-Delivery", dl.UID)
	h.Set("webhook-id", dl.UID)
	h.Set("webhook-timestamp", strconv.FormatInt(timestamp, 10))
	h.Set("webhook-signature", sigs.Standard)
	return req, nil
}

// jitter spreads a delay by ±10%, so that deliveries that failed together
// (a receiver down) do not all come back at the same moment.
func jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.9 + 0.2*rand.Float64()))
}

func (d *Deliverer) limits() Limits {
	if d.Limits != nil {
		return *d.Limits
	}
	return DefaultLimits
}

func (d *Deliverer) breaker() breaker { return breaker{d.limits()} }

// slots is the per-store gate, made on first use.
func (d *Deliverer) slots() *gate {
	d.gateOnce.Do(func() { d.gate = newGate(d.limits().PerStore, d.breaker().maxDefer()) })
	return d.gate
}

func (d *Deliverer) logger() *slog.Logger {
	if d.Logger != nil {
		return d.Logger
	}
	return slog.Default()
}

// DeliveryJobs inserts delivery jobs; with renderjobs.Jobs it makes the
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
