package storage

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/predicate"
	"github.com/platen-print/platen/ent/store"
	"github.com/platen-print/platen/ent/webhookdelivery"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/renderjobs"
	"github.com/platen-print/platen/internal/shop"
	"github.com/platen-print/platen/internal/webhooks"
)

// EventLinks signs the download links events carry (downloads.Links).
type EventLinks interface {
	ItemURL(orderUID, itemUID string) string
	ShopFileURLs(reference string) func(printUID string, index int) string
	BatchFileURL(batchUID string, index int) string
}

// SetLinks makes status changes that notify carry fresh download links.
func (db *DB) SetLinks(l EventLinks) { db.links = l }

// notify records an event for the store's webhook endpoint, and queues its
// delivery, in tx: the event exists exactly when the change it reports
// commits. A store without a webhook URL gets no deliveries.
func (db *DB) notify(ctx context.Context, tx *Tx, teamID int, storeID, event string, body []byte) error {
	if db.queue == nil {
		return nil
	}
	st, err := tx.Store.Query().Where(store.ID(storeID)).Select(store.FieldWebhookURL).Only(ctx)
	if err != nil || st.WebhookURL == nil || *st.WebhookURL == "" {
		return err
	}
	uid := uuid.NewString()
	jobs, err := db.queue.EnqueueDeliveries(ctx, tx.SQL, []string{uid})
	if err != nil {
		return err
	}
	tx.wakeAfterCommit(webhooks.Queue)
	return tx.WebhookDelivery.Create().
		SetUID(uid).SetTeamID(teamID).SetStoreID(storeID).SetEvent(event).SetBody(body).
		SetStatus(webhooks.StatusPending).SetNextAttemptAt(now()).SetJobID(jobs[0]).
		Exec(ctx)
}

// now is the time rows record (see the schema's).
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// Deliveries implements webhooks.Store.
type Deliveries struct{ db *DB }

// Deliveries returns the webhook delivery store.
func (db *DB) Deliveries() *Deliveries { return &Deliveries{db: db} }

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
	if st.PreviousWebhookSecret != nil && st.PreviousSecretExpiresAt != nil && time.Now().Before(*st.PreviousSecretExpiresAt) {
		out.Secrets = append(out.Secrets, *st.PreviousWebhookSecret)
	}
	return out, nil
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
		SetNillableNextAttemptAt(a.NextAt)
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

// notifyItem records order_item.print_file.ready (with the file's digest)
// or .failed (with the reason) for a Family A item (read with its order,
// see ownedItem) whose order asked for print files.
func (db *DB) notifyItem(ctx context.Context, tx *Tx, it *ent.OrderItem, event, status string, digest *files.Digest, reason string) error {
	if !it.Edges.Order.PrintFilesRequested {
		return nil
	}
	e := webhooks.ItemPrint{
		Event: event, StoreID: it.StoreID, OrderUID: it.Edges.Order.UID,
		EcommerceOrderID: it.Edges.Order.EcommerceOrderID, EcommerceOrderItemID: it.EcommerceOrderItemID,
		OrderItemUID: it.UID, Status: status, SentAt: webhooks.SentAt(time.Now()),
	}
	if status == orders.PrintReady && db.links != nil {
		u := db.links.ItemURL(e.OrderUID, e.OrderItemUID)
		e.URL = &u
	}
	if status == orders.PrintReady && digest != nil {
		e.Size, e.SHA256 = &digest.Size, &digest.SHA256
	}
	if status == orders.PrintProcessingFailed {
		e.Error = &reason
	}
	return db.notify(ctx, tx, it.TeamID, it.StoreID, event, webhooks.Body(e))
}

// notifyShopReady records print_files.ready for a Family B print (read with
// its order's reference_number and external_id) now ready with stored.
func (db *DB) notifyShopReady(ctx context.Context, tx *Tx, p *ent.ShopPrint, stored []renderjobs.StoredFile) error {
	var fileURL func(printUID string, index int) string
	if db.links != nil {
		fileURL = db.links.ShopFileURLs(p.Edges.Order.ReferenceNumber)
	}
	list := make([]webhooks.ShopFile, len(stored))
	for i, f := range stored {
		list[i] = webhooks.ShopFile{Index: i + 1, Type: "single_file", Copies: p.Quantity, Size: &f.Size, SHA256: &f.SHA256}
		if fileURL != nil {
			list[i].URL = fileURL(p.UID, i+1)
		}
	}
	body := webhooks.Body(webhooks.PrintFilesReady{
		Event: webhooks.EventPrintFilesReady, OrderExternalID: p.Edges.Order.ExternalID,
		LineExternalID: p.LineExternalID, DesignVersionID: p.DesignVersionID,
		PrintID: p.UID, Status: shop.PrintReady, Files: list, SentAt: webhooks.SentAt(time.Now()),
	})
	return db.notify(ctx, tx, p.TeamID, p.StoreID, webhooks.EventPrintFilesReady, body)
}

var _ webhooks.EndpointStore = (*Deliveries)(nil)

// StoreTeam returns the team owning storeID.
func (s *Deliveries) StoreTeam(ctx context.Context, storeID string) (int, error) {
	return s.db.Orders().StoreTeam(ctx, storeID)
}

// SetEndpoint sets the store's webhook URL, rotating its secret if asked.
func (s *Deliveries) SetEndpoint(ctx context.Context, storeID, url string, rotate bool) (*webhooks.Endpoint, error) {
	var out *webhooks.Endpoint
	err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		st, err := tx.Store.Get(ctx, storeID)
		if err != nil {
			return notFound(err, "store %q not found", storeID)
		}
		moved := st.WebhookURL == nil || *st.WebhookURL != url
		u := st.Update().SetWebhookURL(url)
		if rotate {
			expires := now().Add(webhooks.RotationGrace)
			u.SetWebhookSecret(webhooks.NewSecret()).
				SetPreviousWebhookSecret(st.WebhookSecret).SetPreviousSecretExpiresAt(expires)
		}
		if st, err = u.Save(ctx); err != nil {
			return err
		}
		if err := resetCircuit(ctx, tx, storeID); err != nil {
			return err
		}
		if moved {
			if err := s.db.requeuePending(ctx, tx, storeID); err != nil {
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
func (db *DB) requeuePending(ctx context.Context, tx *Tx, storeID string) error {
	if db.queue == nil {
		return nil
	}
	pending, err := tx.WebhookDelivery.Query().
		Where(webhookdelivery.StoreID(storeID), webhookdelivery.Status(webhooks.StatusPending)).
		Order(ent.Asc(webhookdelivery.FieldID)).All(ctx)
	if err != nil || len(pending) == 0 {
		return err
	}
	work := &printWork{}
	uids := make([]string, len(pending))
	for i, d := range pending {
		uids[i] = d.UID
		if d.JobID != nil {
			work.cancel = append(work.cancel, *d.JobID)
		}
	}
	if err := db.enqueue(ctx, tx, work); err != nil {
		return err
	}
	jobs, err := db.queue.EnqueueDeliveries(ctx, tx.SQL, uids)
	if err != nil {
		return err
	}
	tx.wakeAfterCommit(webhooks.Queue)
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
	if q.Status != "" {
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
	if s.db.queue == nil {
		return nil, errors.New("resend needs the job queue of platen serve")
	}
	var out *webhooks.LogEntry
	err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		d, err := tx.WebhookDelivery.Query().
			Where(webhookdelivery.UID(uid), webhookdelivery.StoreID(storeID)).Only(ctx)
		if err != nil {
			return notFound(err, "webhook delivery %q not found", uid)
		}
		work := &printWork{}
		if d.JobID != nil && d.Status == webhooks.StatusPending {
			work.cancel = []int64{*d.JobID}
		}
		if err := s.db.enqueue(ctx, tx, work); err != nil {
			return err
		}
		jobs, err := s.db.queue.EnqueueDeliveries(ctx, tx.SQL, []string{uid})
		if err != nil {
			return err
		}
		tx.wakeAfterCommit(webhooks.Queue)
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
	}
}
