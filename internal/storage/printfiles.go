package storage

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/itemdesign"
	"github.com/platen-print/platen/ent/order"
	"github.com/platen-print/platen/ent/orderitem"
	"github.com/platen-print/platen/ent/servicekey"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/prints"
	"github.com/platen-print/platen/internal/renderjobs"
)

// PrintFiles implements renderjobs.Store for Family A order items.
type PrintFiles struct {
	db   *DB
	jobs *LinkedStores
}

var _ renderjobs.Store = (*PrintFiles)(nil)

// Task returns what a render of the item needs: the item, its order's
// uid and its design, in one read (Ent's would take three round trips).
func (s *PrintFiles) Task(ctx context.Context, itemUID string) (*renderjobs.Task, error) {
	b := entsql.Dialect(s.db.dialect)
	items, parents, designs := b.Table(orderitem.Table).As("i"), b.Table(order.Table).As("o"), b.Table(itemdesign.Table).As("d")
	query, args := b.Select(items.C(orderitem.FieldTeamID), items.C(orderitem.FieldEcommerceVariantID),
		items.C(orderitem.FieldPrintJobID), items.C(orderitem.FieldPrintStatus), parents.C(order.FieldUID),
		designs.C(itemdesign.FieldTemplateConfig)).
		From(items).
		Join(parents).On(items.C(orderitem.FieldOrderID), parents.C(order.FieldID)).
		Join(designs).On(designs.C(itemdesign.FieldID), items.C(orderitem.FieldID)).
		Where(entsql.EQ(items.C(orderitem.FieldUID), itemUID)).Query()
	rows, err := s.db.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, err
		}
		return nil, apierr.NotFound("order item %q not found", itemUID)
	}
	task := &renderjobs.Task{UID: itemUID}
	var jobID sql.NullInt64
	var status, orderUID string
	if err := rows.Scan(&task.TeamID, &task.EcommerceVariantID, &jobID, &status, &orderUID, &task.TemplateConfig); err != nil {
		return nil, err
	}
	if jobID.Valid {
		task.JobID = &jobID.Int64
	}
	task.KeyPrefix = renderjobs.ItemKeyPrefix(orderUID, itemUID)
	task.Finished = status == orders.PrintReady
	return task, rows.Err()
}

// owned selects the item while jobID owns its print.
func owned(tx *Tx, itemUID string, jobID int64) *ent.OrderItemUpdate {
	return tx.OrderItem.Update().Where(orderitem.UID(itemUID), orderitem.PrintJobID(jobID))
}

// Start moves the item to processing.
func (s *PrintFiles) Start(ctx context.Context, itemUID string, jobID int64) (bool, error) {
	return s.db.update(ctx, func(ctx context.Context, tx *Tx) (int, error) {
		n, err := owned(tx, itemUID, jobID).SetPrintStatus(orders.PrintProcessing).ClearPrintError().Save(ctx)
		if err != nil || n == 0 {
			return n, err
		}
		return n, record(ctx, tx, prints.EventRendering, nil, nil, itemUID)
	})
}

// Finish makes the item ready with its file (an item has one) and the
// file's size and SHA-256, and queues the removal of the file it had
// before, if any.
func (s *PrintFiles) Finish(ctx context.Context, itemUID string, jobID int64, stored []renderjobs.StoredFile, warnings []files.Warning) (bool, error) {
	if len(stored) != 1 {
		return false, fmt.Errorf("an order item has one print file, not %d", len(stored))
	}
	key, digest := stored[0].Key, stored[0].Digest
	return s.db.update(ctx, func(ctx context.Context, tx *Tx) (int, error) {
		it, err := ownedItem(ctx, tx, itemUID, jobID)
		if it == nil {
			return 0, err
		}
		var c renderjobs.Cleanup
		c.ItemReady(itemPrintOf(it), key)
		if err := s.jobs.clean(ctx, tx, &c); err != nil {
			return 0, err
		}
		n, err := owned(tx, itemUID, jobID).SetPrintStatus(orders.PrintReady).ClearPrintError().SetPrintFileKey(key).
			SetPrintFileSize(digest.Size).SetPrintFileSha256(digest.SHA256).SetPrintWarnings(warnings).Save(ctx)
		if err != nil || n == 0 {
			return n, err
		}
		if err := record(ctx, tx, prints.EventReady, nil, nil, itemUID); err != nil {
			return 0, err
		}
		notice, ok := renderjobs.ItemReady(noticeItem(it), digest, s.jobs.links)
		if !ok {
			return n, nil
		}
		return n, s.jobs.notify(ctx, tx, notice)
	})
}

// ownedItem reads what the end of a render needs of the item
// (itemPrintOf, noticeItem), with what its events need of its order (see
// withOrderRefs), while jobID owns its print; nil when it does not. Never
// its design: a design carrying a photo is a megabyte, which the ready
// transaction read back for nothing (7 ms of the heavy page's).
func ownedItem(ctx context.Context, tx *Tx, itemUID string, jobID int64) (*ent.OrderItem, error) {
	it, err := tx.OrderItem.Query().Where(orderitem.UID(itemUID), orderitem.PrintJobID(jobID)).
		Select(orderitem.FieldUID, orderitem.FieldPrintJobID, orderitem.FieldPrintFileKey, orderitem.FieldTeamID,
			orderitem.FieldStoreID, orderitem.FieldEcommerceOrderItemID, orderitem.FieldOrderID).
		WithOrder(withOrderRefs).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return it, err
}

// Fail moves the item to processingfailed with the reason.
func (s *PrintFiles) Fail(ctx context.Context, itemUID string, jobID int64, reason string) (bool, error) {
	return s.db.update(ctx, func(ctx context.Context, tx *Tx) (int, error) {
		it, err := ownedItem(ctx, tx, itemUID, jobID)
		if it == nil {
			return 0, err
		}
		var c renderjobs.Cleanup
		c.ItemFailed(itemPrintOf(it), jobID)
		if err := s.jobs.clean(ctx, tx, &c); err != nil {
			return 0, err
		}
		n, err := owned(tx, itemUID, jobID).SetPrintStatus(orders.PrintProcessingFailed).SetPrintError(reason).ClearPrintFileKey().ClearPrintWarnings().
			ClearPrintFileSize().ClearPrintFileSha256().Save(ctx)
		if err != nil || n == 0 {
			return n, err
		}
		if err := record(ctx, tx, prints.EventFailed, &reason, nil, itemUID); err != nil {
			return 0, err
		}
		notice, ok := renderjobs.ItemFailed(noticeItem(it), reason)
		if !ok {
			return n, nil
		}
		return n, s.jobs.notify(ctx, tx, notice)
	})
}

// update runs one status change in a write transaction and reports
// whether it changed a row.
func (db *DB) update(ctx context.Context, fn func(ctx context.Context, tx *Tx) (int, error)) (bool, error) {
	var n int
	err := db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		var err error
		n, err = fn(ctx, tx)
		return err
	})
	return n > 0, err
}

// PreviousKeySuffix names the key a rotation replaced: the replaced
// "download-links" is kept as "download-links.previous".
const PreviousKeySuffix = ".previous"

// ServiceKeys returns the key of that name (made the first time, as
// ServiceKey does) and the key it replaced at its last rotation, if any.
func (db *DB) ServiceKeys(ctx context.Context, name string) (current []byte, previous [][]byte, err error) {
	if current, err = db.ServiceKey(ctx, name); err != nil {
		return nil, nil, err
	}
	old, err := db.write.ServiceKey.Query().Where(servicekey.Name(name + PreviousKeySuffix)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return current, nil, nil
	case err != nil:
		return nil, nil, fmt.Errorf("service key %s: %w", name+PreviousKeySuffix, err)
	}
	return current, [][]byte{old.Value}, nil
}

// RotateServiceKey replaces the key of that name with a new random one,
// keeps the replaced one as the previous key (dropping the one before it),
// and returns when it did so. It is one transaction: every process reads
// either the keys before or the keys after.
func (db *DB) RotateServiceKey(ctx context.Context, name string) (time.Time, error) {
	if _, err := db.ServiceKey(ctx, name); err != nil {
		return time.Time{}, err
	}
	value := make([]byte, 32)
	if _, err := rand.Read(value); err != nil {
		return time.Time{}, err
	}
	now := time.Now().UTC()
	err := db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		current, err := tx.ServiceKey.Query().Where(servicekey.Name(name)).Only(ctx)
		if err != nil {
			return err
		}
		if _, err := tx.ServiceKey.Delete().Where(servicekey.NameIn(name, name+PreviousKeySuffix)).Exec(ctx); err != nil {
			return err
		}
		return tx.ServiceKey.CreateBulk(
			tx.ServiceKey.Create().SetName(name+PreviousKeySuffix).SetValue(current.Value).SetCreatedAt(now),
			tx.ServiceKey.Create().SetName(name).SetValue(value).SetCreatedAt(now),
		).Exec(ctx)
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("rotate service key %s: %w", name, err)
	}
	return now, nil
}

// ServiceKey returns the service's secret of that name, making it (32
// random bytes) the first time: every process sharing the database then
// signs and checks with the same key.
func (db *DB) ServiceKey(ctx context.Context, name string) ([]byte, error) {
	ctx = context.WithoutCancel(ctx)
	value := make([]byte, 32)
	if _, err := rand.Read(value); err != nil {
		return nil, err
	}
	err := db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		// A bulk insert of one, as the single one's DO NOTHING reports
		// the row it did not insert as an error.
		return tx.ServiceKey.CreateBulk(tx.ServiceKey.Create().SetName(name).SetValue(value)).
			OnConflictColumns(servicekey.FieldName).DoNothing().Exec(ctx)
	})
	if err != nil {
		return nil, fmt.Errorf("service key %s: %w", name, err)
	}
	key, err := db.write.ServiceKey.Query().Where(servicekey.Name(name)).Only(ctx)
	if err != nil {
		return nil, fmt.Errorf("service key %s: %w", name, err)
	}
	return key.Value, nil
}
