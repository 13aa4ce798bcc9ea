package storage

import (
	"context"
	"time"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/idempotencykey"
	"github.com/platen-print/platen/internal/idempotency"
)

// Idempotency implements idempotency.Store.
type Idempotency struct{ db *DB }

// Idempotency returns the idempotency record store.
func (db *DB) Idempotency() *Idempotency { return &Idempotency{db: db} }

var _ idempotency.Store = (*Idempotency)(nil)

// Begin records the request, or returns the live record already there. A
// record still without an answer after idempotency.Lease was left by a
// request that died (a crash, a kill): it is replaced.
func (s *Idempotency) Begin(ctx context.Context, teamID int, key, attempt, method string, hash []byte) (*idempotency.Record, int, error) {
	var existing *idempotency.Record
	var id int
	err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		row, err := tx.IdempotencyKey.Query().
			Where(idempotencykey.TeamID(teamID), idempotencykey.Key(key)).Only(ctx)
		switch {
		case err == nil && len(row.Response) == 0 && time.Since(row.CreatedAt) > idempotency.Lease:
			if err := tx.IdempotencyKey.DeleteOneID(row.ID).Exec(ctx); err != nil {
				return err
			}
		case err == nil && time.Since(row.CreatedAt) < idempotency.TTL:
			existing = idempotencyRecord(row)
			return nil
		case err == nil:
			if err := tx.IdempotencyKey.DeleteOneID(row.ID).Exec(ctx); err != nil {
				return err
			}
		case !ent.IsNotFound(err):
			return err
		}
		created, err := tx.IdempotencyKey.Create().
			SetTeamID(teamID).SetKey(key).SetAttempt(attempt).SetMethod(method).SetRequestHash(hash).Save(ctx)
		if err != nil {
			return err
		}
		id = created.ID
		return nil
	})
	if ent.IsConstraintError(err) {
		// Another request with this key got in first (PostgreSQL runs
		// writers side by side): its record is the key's.
		row, err := s.db.write.IdempotencyKey.Query().
			Where(idempotencykey.TeamID(teamID), idempotencykey.Key(key)).Only(ctx)
		if ent.IsNotFound(err) {
			// Gone again already: that request is as good as in progress.
			return &idempotency.Record{Method: method, RequestHash: hash}, 0, nil
		}
		if err != nil {
			return nil, 0, err
		}
		return idempotencyRecord(row), 0, nil
	}
	return existing, id, err
}

func idempotencyRecord(row *ent.IdempotencyKey) *idempotency.Record {
	return &idempotency.Record{ID: row.ID, Attempt: row.Attempt, Method: row.Method,
		RequestHash: row.RequestHash, Response: row.Response, HTTPCode: row.HTTPCode}
}

// Complete stores the answer.
func (s *Idempotency) Complete(ctx context.Context, id int, response []byte, httpCode int) error {
	return s.db.write.IdempotencyKey.UpdateOneID(id).SetResponse(response).SetHTTPCode(httpCode).Exec(ctx)
}

// Abandon forgets the record attempt wrote, unless it has an answer.
func (s *Idempotency) Abandon(ctx context.Context, teamID int, key, attempt string) error {
	_, err := s.db.write.IdempotencyKey.Delete().Where(idempotencykey.TeamID(teamID), idempotencykey.Key(key),
		idempotencykey.Attempt(attempt), idempotencykey.ResponseIsNil()).Exec(ctx)
	return err
}

// PurgeIdempotencyKeys deletes the records older than the TTL.
func (db *DB) PurgeIdempotencyKeys(ctx context.Context) (int, error) {
	return db.write.IdempotencyKey.Delete().
		Where(idempotencykey.CreatedAtLT(time.Now().UTC().Add(-idempotency.TTL))).Exec(ctx)
}
