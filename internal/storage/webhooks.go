package storage

import (
	"context"
	"time"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/predicate"
	"github.com/platen-print/platen/ent/schema"
	"github.com/platen-print/platen/ent/webhookdelivery"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/webhooks"
)

// now is the time rows record (see the schema's).
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// Deliveries implements webhooks.Store.
type Deliveries struct {
	db   *DB
	jobs *Stores
}

var _ webhooks.Store = (*Deliveries)(nil)

// Delivery returns the delivery with its store's endpoint and secrets.
func (s *Deliveries) Delivery(ctx context.Context, uid string) (*webhooks.Delivery, error) {
	d, err := s.db.read.WebhookDelivery.Query().Where(webhookdelivery.UID(uid)).Only(ctx)
	if err != nil {
		return nil, notFound(err, "webhook delivery %q not found", uid)
	}
	st, err := s.db.read.Store.Get(ctx, d.StoreID)
	if err != nil {
		return nil, notFound(err, "store %q not found", d.StoreID)
	}
	out := &webhooks.Delivery{
		UID: d.UID, StoreID: d.StoreID, Event: d.Event, Body: d.Body,
		Status: d.Status, Attempts: d.Attempts, JobID: d.JobID,
		Secrets: []string{st.WebhookSecret},
	}
	if st.WebhookURL != nil {
		out.URL = *st.WebhookURL
	}
	for _, r := range retiredSecrets(st, time.Now()) {
		out.Secrets = append(out.Secrets, r.Secret)
	}
	return out, nil
}

// maxSigningSecrets is how many secrets may sign a store's deliveries at
// once: the current one and up to three rotated out within their day.
const maxSigningSecrets = 4

// retiredSecrets are st's rotated-out secrets still inside the day each
// was promised, newest first: the previous one, then older ones.
func retiredSecrets(st *ent.Store, at time.Time) []schema.RetiredSecret {
	var out []schema.RetiredSecret
	if st.PreviousWebhookSecret != nil && st.PreviousSecretExpiresAt != nil && at.Before(*st.PreviousSecretExpiresAt) {
		out = append(out, schema.RetiredSecret{Secret: *st.PreviousWebhookSecret, ExpiresAt: *st.PreviousSecretExpiresAt})
	}
	for _, r := range st.RetiredWebhookSecrets {
		if at.Before(r.ExpiresAt) {
			out = append(out, r)
		}
	}
	return out
}

// rotate gives the store of u a new secret: the current one signs along
// for webhooks.RotationGrace, and those rotated out earlier keep the day
// they were promised. Past maxSigningSecrets it refuses, naming when the
// oldest stops signing.
func rotate(u *ent.StoreUpdateOne, st *ent.Store) error {
	at := now()
	retired := retiredSecrets(st, at)
	if 2+len(retired) > maxSigningSecrets {
		return apierr.Conflict("rotate_secret", "%d secrets sign this store's deliveries already (each rotated-out secret for a day); "+
			"the oldest stops at %s: rotate again after that", 1+len(retired), retired[len(retired)-1].ExpiresAt.UTC().Format(time.RFC3339))
	}
	u.SetWebhookSecret(webhooks.NewSecret()).
		SetPreviousWebhookSecret(st.WebhookSecret).SetPreviousSecretExpiresAt(at.Add(webhooks.RotationGrace)).
		SetRetiredWebhookSecrets(retired)
	return nil
}

// RecordAttempt adds an attempt to the delivery while jobID owns it, and
// counts it in the store's circuit, in one transaction. The circuit's row
// is written first: on PostgreSQL it is the lock that orders the attempts
// of one store, and taken before any delivery's, so that a pause, which
// writes the store's pending deliveries, cannot deadlock with them.
func (s *Deliveries) RecordAttempt(ctx context.Context, dl *webhooks.Delivery, jobID int64, a webhooks.Attempt,
	failed func(webhooks.Circuit) webhooks.Circuit) (webhooks.Circuit, error) {
	var c webhooks.Circuit
	err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		var paused bool
		var err error
		if a.Err == "" {
			err = clearCircuit(ctx, tx, dl.StoreID)
		} else {
			c, paused, err = countFailure(ctx, tx, dl.StoreID, failed)
		}
		if err != nil {
			return err
		}
		if err := recordAttempt(ctx, tx, dl.UID, jobID, a); err != nil {
			return err
		}
		if paused {
			return holdPending(ctx, tx, dl.StoreID, *c.OpenUntil)
		}
		return nil
	})
	return c, err
}

func recordAttempt(ctx context.Context, tx *Tx, uid string, jobID int64, a webhooks.Attempt) error {
	u := tx.WebhookDelivery.Update().
		Where(webhookdelivery.UID(uid), webhookdelivery.JobID(jobID), webhookdelivery.Status(webhooks.StatusPending)).
		AddAttempts(1).SetStatus(a.Status).
		SetLastStatusCode(a.StatusCode).SetLastLatencyMs(int(a.Latency.Milliseconds())).
		SetNillableNextAttemptAt(a.NextAt).SetLastRequestHeaders(a.Request)
	if a.Answer == nil {
		u.ClearLastResponseBody()
	} else {
		u.SetLastResponseBody(*a.Answer)
	}
	if a.NextAt == nil {
		u.ClearNextAttemptAt()
	}
	if a.Err == "" {
		u.ClearLastError().SetDeliveredAt(a.At.UTC().Truncate(time.Microsecond))
	} else {
		u.SetLastError(a.Err)
	}
	return u.Exec(ctx)
}

// redeliver gives the deliveries uids new jobs, due now, in place of the
// jobs old (cancelled when they have not run), and returns the new jobs'
// ids, in order.
func (s *Stores) redeliver(ctx context.Context, tx *Tx, old []int64, uids []string) ([]int64, error) {
	if len(old) > 0 {
		if err := s.queue.CancelJobs(ctx, tx.SQL, old); err != nil {
			return nil, err
		}
	}
	jobs, err := s.queue.EnqueueDeliveries(ctx, tx.SQL, uids)
	if err != nil {
		return nil, err
	}
	tx.wakeAfterCommit(s.queue, webhooks.Queue)
	return jobs, nil
}

var _ webhooks.EndpointStore = (*Deliveries)(nil)

// StoreTeam returns the team owning storeID.
func (s *Deliveries) StoreTeam(ctx context.Context, storeID string) (int, error) {
	return s.db.storeTeam(ctx, storeID)
}

// SetEndpoint sets the store's webhook URL, rotating its secret if asked.
func (s *Deliveries) SetEndpoint(ctx context.Context, storeID, url string, rotateSecret bool) (*webhooks.Endpoint, error) {
	var out *webhooks.Endpoint
	err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		st, err := tx.Store.Get(ctx, storeID)
		if err != nil {
			return notFound(err, "store %q not found", storeID)
		}
		moved := st.WebhookURL == nil || *st.WebhookURL != url
		u := st.Update().SetWebhookURL(url)
		if rotateSecret {
			if err := rotate(u, st); err != nil {
				return err
			}
		}
		if st, err = u.Save(ctx); err != nil {
			return err
		}
		if err := resetCircuit(ctx, tx, storeID); err != nil {
			return err
		}
		if moved {
			if err := s.requeuePending(ctx, tx, storeID); err != nil {
				return err
			}
		}
		out = endpoint(st)
		return nil
	})
	return out, err
}

// requeuePending gives the store's pending deliveries to new jobs due now,
// each with a fresh schedule, as a resend does: when a store's URL changes,
// the failures that spaced them out were the old endpoint's, and a client
// who replaces a dead endpoint must not wait for a pause or a retry delay
// of up to a day. A job already running is left to end; it no longer owns
// its delivery, so its attempt is not recorded.
func (s *Deliveries) requeuePending(ctx context.Context, tx *Tx, storeID string) error {
	pending, err := tx.WebhookDelivery.Query().
		Where(webhookdelivery.StoreID(storeID), webhookdelivery.Status(webhooks.StatusPending)).
		Order(ent.Asc(webhookdelivery.FieldID)).All(ctx)
	if err != nil || len(pending) == 0 {
		return err
	}
	var old []int64
	uids := make([]string, len(pending))
	for i, d := range pending {
		uids[i] = d.UID
		if d.JobID != nil {
			old = append(old, *d.JobID)
		}
	}
	jobs, err := s.jobs.redeliver(ctx, tx, old, uids)
	if err != nil {
		return err
	}
	for i, d := range pending {
		if err := d.Update().SetAttempts(0).SetJobID(jobs[i]).SetNextAttemptAt(now()).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// GetEndpoint returns the store's webhook endpoint; apierr.ErrNotFound when
// the store has no URL (its secret alone is no endpoint: nothing is sent).
func (s *Deliveries) GetEndpoint(ctx context.Context, storeID string) (*webhooks.Endpoint, error) {
	st, err := s.db.read.Store.Get(ctx, storeID)
	if err != nil {
		return nil, notFound(err, "store %q not found", storeID)
	}
	if st.WebhookURL == nil || *st.WebhookURL == "" {
		return nil, apierr.NotFound("store %q has no webhook endpoint", storeID)
	}
	return endpoint(st), nil
}

// endpoint is a store's row as its endpoint: the previous secret's expiry
// only while it still signs.
func endpoint(st *ent.Store) *webhooks.Endpoint {
	out := &webhooks.Endpoint{StoreID: st.ID, Secret: st.WebhookSecret, UpdatedAt: st.UpdatedAt.UTC()}
	if st.WebhookURL != nil {
		out.URL = *st.WebhookURL
	}
	if st.PreviousSecretExpiresAt != nil && time.Now().Before(*st.PreviousSecretExpiresAt) {
		t := st.PreviousSecretExpiresAt.UTC()
		out.PreviousSecretExpiresAt = &t
	}
	return out
}

// ListDeliveries returns a page of the store's deliveries, newest first.
func (s *Deliveries) ListDeliveries(ctx context.Context, q webhooks.Query) ([]*webhooks.LogEntry, bool, error) {
	query := s.db.read.WebhookDelivery.Query().Where(webhookdelivery.StoreID(q.StoreID))
	switch q.Status {
	case "":
	case webhooks.StatusFailing:
		query = query.Where(webhookdelivery.Or(webhookdelivery.Status(webhooks.StatusFailed),
			webhookdelivery.And(webhookdelivery.Status(webhooks.StatusPending), webhookdelivery.AttemptsGT(0))))
	default:
		query = query.Where(webhookdelivery.Status(q.Status))
	}
	rows, err := query.Where(after[predicate.WebhookDelivery](q.Page.After, webhookdelivery.FieldUID)).Order(ent.Desc(webhookdelivery.FieldCreatedAt), ent.Desc(webhookdelivery.FieldUID)).
		Limit(q.Page.Size + 1).All(ctx)
	if err != nil {
		return nil, false, err
	}
	page, more := cutPage(rows, q.Page.Size, logEntry)
	return page, more, nil
}

// Resend puts the store's delivery back to pending under a new job, with
// a fresh schedule (its attempts count from zero again).
func (s *Deliveries) Resend(ctx context.Context, storeID, uid string) (*webhooks.LogEntry, error) {
	var out *webhooks.LogEntry
	err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		d, err := tx.WebhookDelivery.Query().
			Where(webhookdelivery.UID(uid), webhookdelivery.StoreID(storeID)).Only(ctx)
		if err != nil {
			return notFound(err, "webhook delivery %q not found", uid)
		}
		var old []int64
		if d.JobID != nil && d.Status == webhooks.StatusPending {
			old = []int64{*d.JobID}
		}
		jobs, err := s.jobs.redeliver(ctx, tx, old, []string{uid})
		if err != nil {
			return err
		}
		d, err = d.Update().SetStatus(webhooks.StatusPending).SetAttempts(0).SetJobID(jobs[0]).
			SetNextAttemptAt(now()).ClearDeliveredAt().Save(ctx)
		if err != nil {
			return err
		}
		out = logEntry(d)
		return nil
	})
	return out, err
}

func logEntry(d *ent.WebhookDelivery) *webhooks.LogEntry {
	return &webhooks.LogEntry{
		UID: d.UID, Event: d.Event, Status: d.Status, Attempts: d.Attempts,
		LastStatusCode: d.LastStatusCode, LastLatencyMS: d.LastLatencyMs, LastError: d.LastError,
		NextAttemptAt: d.NextAttemptAt, CreatedAt: d.CreatedAt.UTC(), DeliveredAt: d.DeliveredAt,
		Payload: d.Body, RequestHeaders: d.LastRequestHeaders, ResponseBody: d.LastResponseBody,
	}
}
