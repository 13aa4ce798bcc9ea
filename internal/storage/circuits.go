package storage

import (
	"context"
	"time"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/webhookcircuit"
	"github.com/platen-print/platen/ent/webhookdelivery"
	"github.com/platen-print/platen/internal/webhooks"
)

// Circuit returns the store's endpoint health; zero when it never failed.
func (s *Deliveries) Circuit(ctx context.Context, storeID string) (webhooks.Circuit, error) {
	row, err := s.db.read.WebhookCircuit.Get(ctx, storeID)
	if ent.IsNotFound(err) {
		return webhooks.Circuit{}, nil
	}
	if err != nil {
		return webhooks.Circuit{}, err
	}
	return circuitOf(row), nil
}

func circuitOf(row *ent.WebhookCircuit) webhooks.Circuit {
	return webhooks.Circuit{
		Failures: row.Failures, OpenUntil: row.OpenUntil, ProbeUntil: row.ProbeUntil,
		OpenFor: time.Duration(row.OpenForMs) * time.Millisecond,
	}
}

// clearCircuit forgets the store's failures after a success. A store whose
// endpoint has no failures on record has no row, so this writes nothing.
func clearCircuit(ctx context.Context, tx *Tx, storeID string) error {
	return tx.WebhookCircuit.Update().
		Where(webhookcircuit.ID(storeID), webhookcircuit.Or(webhookcircuit.FailuresGT(0),
			webhookcircuit.OpenUntilNotNil(), webhookcircuit.ProbeUntilNotNil())).
		SetFailures(0).ClearOpenUntil().SetOpenForMs(0).ClearProbeUntil().
		Exec(ctx)
}

// countFailure adds a failure to the store's circuit and keeps what failed
// makes of it; paused reports a new pause. The increment comes first, as
// one statement: on PostgreSQL it locks the row until commit, so that the
// failures of concurrent attempts (of any process) are counted and judged
// one after the other.
func countFailure(ctx context.Context, tx *Tx, storeID string, failed func(webhooks.Circuit) webhooks.Circuit) (c webhooks.Circuit, paused bool, err error) {
	err = tx.WebhookCircuit.Create().SetID(storeID).SetFailures(1).
		OnConflictColumns(webhookcircuit.FieldID).AddFailures(1).
		Exec(ctx)
	if err != nil {
		return c, false, err
	}
	row, err := tx.WebhookCircuit.Get(ctx, storeID)
	if err != nil {
		return c, false, err
	}
	before := circuitOf(row)
	if c = failed(before); c.OpenUntil == before.OpenUntil {
		return c, false, nil
	}
	until := dbTime(*c.OpenUntil)
	c.OpenUntil = &until
	err = row.Update().SetOpenUntil(until).SetOpenForMs(c.OpenFor.Milliseconds()).ClearProbeUntil().Exec(ctx)
	return c, err == nil, err
}

// holdPending shows, in the log, the store's pending deliveries due before
// a pause ends as due at its end: none is tried before, and each one's
// own time comes when its job is next fetched (and postponed).
func holdPending(ctx context.Context, tx *Tx, storeID string, until time.Time) error {
	return tx.WebhookDelivery.Update().
		Where(webhookdelivery.StoreID(storeID), webhookdelivery.Status(webhooks.StatusPending),
			webhookdelivery.NextAttemptAtLT(until)).
		SetNextAttemptAt(until).
		Exec(ctx)
}

// Postpone moves the delivery's next attempt to at while jobID owns it.
func (s *Deliveries) Postpone(ctx context.Context, uid string, jobID int64, at time.Time) error {
	_, err := s.db.update(ctx, func(ctx context.Context, tx *Tx) (int, error) {
		return tx.WebhookDelivery.Update().
			Where(webhookdelivery.UID(uid), webhookdelivery.JobID(jobID), webhookdelivery.Status(webhooks.StatusPending)).
			SetNextAttemptAt(dbTime(at)).
			Save(ctx)
	})
	return err
}

// ClaimProbe takes the probe's turn of the store's paused endpoint, in one
// statement, so that of the deliveries (of any process) that ask at once
// one gets it.
func (s *Deliveries) ClaimProbe(ctx context.Context, storeID string, now, until time.Time) (bool, error) {
	return s.db.update(ctx, func(ctx context.Context, tx *Tx) (int, error) {
		return tx.WebhookCircuit.Update().
			Where(webhookcircuit.ID(storeID), webhookcircuit.OpenUntilLTE(dbTime(now)),
				webhookcircuit.Or(webhookcircuit.ProbeUntilIsNil(), webhookcircuit.ProbeUntilLTE(dbTime(now)))).
			SetProbeUntil(dbTime(until)).
			Save(ctx)
	})
}

// resetCircuit forgets the store's endpoint health: a new endpoint, or the
// same one set again by its owner, starts unpaused.
func resetCircuit(ctx context.Context, tx *Tx, storeID string) error {
	_, err := tx.WebhookCircuit.Delete().Where(webhookcircuit.ID(storeID)).Exec(ctx)
	return err
}

// dbTime is t as rows keep times (see the schema's now).
func dbTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }
