package storage

import (
	"entgo.io/ent/dialect/sql"

	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"time"
	"unsafe"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/batchitem"
	"github.com/platen-print/platen/ent/batchorder"
	"github.com/platen-print/platen/ent/order"
	"github.com/platen-print/platen/ent/orderitem"
	"github.com/platen-print/platen/ent/predicate"
	"github.com/platen-print/platen/ent/schema"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/batches"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/renderjobs"
	"github.com/platen-print/platen/internal/templates"
	"github.com/platen-print/platen/internal/webhooks"
)

// DesignHash is an order item's design_hash: the hex SHA-256 of its
// template_config as stored.
func DesignHash(templateConfig string) string {
	// Hashed where it lies: a design can be megabytes, and SHA-256 only
	// reads what it is given.
	sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(templateConfig), len(templateConfig)))
	return hex.EncodeToString(sum[:])
}

// Batches keeps batch orders.
type Batches struct {
	db   *DB
	jobs *LinkedStores
}

var _ batches.Store = (*Batches)(nil)

// itemChunk bounds the uids of one IN (…) query.
const itemChunk = 1000

// Items returns the items of uids that p may act on.
func (s *Batches) Items(ctx context.Context, p auth.Principal, uids []string) (map[string]*batches.Item, error) {
	found := make(map[string]*batches.Item, len(uids))
	for chunk := range slices.Chunk(uids, itemChunk) {
		query := s.db.read.OrderItem.Query().Where(orderitem.TeamID(p.TeamID), orderitem.UIDIn(chunk...))
		if p.StoreID != "" {
			query = query.Where(orderitem.StoreID(p.StoreID))
		}
		rows, err := query.Select(orderitem.FieldUID, orderitem.FieldOrderID, orderitem.FieldStoreID,
			orderitem.FieldEcommerceOrderItemID, orderitem.FieldEcommerceVariantID, orderitem.FieldQuantity, orderitem.FieldDesignHash, orderitem.FieldDesignBytes).
			WithOrder(func(q *ent.OrderQuery) { q.Select(order.FieldUID, order.FieldEcommerceOrderID) }).
			All(ctx)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			it := &batches.Item{
				UID: r.UID, OrderUID: r.Edges.Order.UID, StoreID: r.StoreID,
				EcommerceOrderID: r.Edges.Order.EcommerceOrderID, EcommerceOrderItemID: r.EcommerceOrderItemID,
				EcommerceVariantID: r.EcommerceVariantID, Quantity: r.Quantity, DesignKey: "item:" + r.UID,
			}
			if r.DesignHash != nil && r.DesignBytes != nil {
				it.DesignKey, it.DesignBytes = *r.DesignHash, *r.DesignBytes
			} else if err := s.legacySize(ctx, it); err != nil {
				return nil, err
			}
			found[r.UID] = it
		}
	}
	return found, nil
}

// legacySize sets the size of an item written before design_bytes, which
// is its own design.
func (s *Batches) legacySize(ctx context.Context, it *batches.Item) error {
	design, err := s.itemDesign(ctx, s.db.read.OrderItem.Query().Where(orderitem.UID(it.UID)))
	if err != nil {
		return notFound(err, "order item %q not found", it.UID)
	}
	it.DesignBytes = len(design)
	return nil
}

// Designs reads each distinct design of items once: by hash, from any of
// the team's items that carry it, or by the item itself.
func (s *Batches) Designs(ctx context.Context, teamID int, items []*batches.Item) (map[string]string, error) {
	designs := map[string]string{}
	for _, it := range items {
		if _, ok := designs[it.DesignKey]; ok {
			continue
		}
		query := s.db.read.OrderItem.Query().Where(orderitem.TeamID(teamID), orderitem.UID(it.UID))
		if it.DesignKey != "item:"+it.UID {
			query = s.db.read.OrderItem.Query().Where(orderitem.TeamID(teamID), orderitem.DesignHash(it.DesignKey)).Limit(1)
		}
		design, err := s.itemDesign(ctx, query)
		if err != nil {
			return nil, notFound(err, "order item %q not found", it.UID)
		}
		designs[it.DesignKey] = design
	}
	return designs, nil
}

// itemDesign reads the design of the first item query finds.
func (s *Batches) itemDesign(ctx context.Context, query *ent.OrderItemQuery) (string, error) {
	id, err := query.FirstID(ctx)
	if err != nil {
		return "", err
	}
	return itemDesign(ctx, s.db.read.ItemDesign, id)
}

// Template returns a print template of any team.
func (s *Batches) Template(ctx context.Context, uid string) (*templates.Template, error) {
	return s.db.Templates().GetTemplate(ctx, uid)
}

// CreateBatch stores b and queues its job, which starts at once.
func (s *Batches) CreateBatch(ctx context.Context, b *batches.Batch) error {
	err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		create := tx.BatchOrder.Create().SetUID(b.UID).SetTeamID(b.TeamID).SetStoreIds(b.StoreIDs).
			SetStatus(b.Status).SetOrderItems(b.OrderItems).SetPrintTemplates(b.PrintTemplates).
			SetItemTemplates(b.ItemTemplates).SetFiles([]schema.BatchFile{}).
			SetNillableIdempotencyToken(nonEmpty(b.IdempotencyToken))
		id, err := s.jobs.queue.EnqueueBatch(ctx, tx.SQL, b.TeamID, b.UID, len(b.PrintTemplates))
		if err != nil {
			return err
		}
		b.JobID = &id
		create.SetJobID(id)
		tx.wakeAfterCommit(s.jobs.queue, renderjobs.RenderQueue)
		row, err := create.Save(ctx)
		if err != nil {
			return err
		}
		b.CreatedAt, b.UpdatedAt = row.CreatedAt.UTC(), row.UpdatedAt.UTC()
		return writeBatchItems(ctx, tx.BatchItem, row.ID, b.OrderItems)
	})
	return err
}

// writeBatchItems records that batch holds items.
func writeBatchItems(ctx context.Context, c *ent.BatchItemClient, batch int, items []string) error {
	rows := make([]*ent.BatchItemCreate, len(items))
	for i, uid := range items {
		rows[i] = c.Create().SetBatchID(batch).SetItemUID(uid)
	}
	return c.CreateBulk(rows...).Exec(ctx)
}

// LiveBatches finds, of the order items uids, those a live batch (one
// Batching or Ready) holds, with the newest such batch's uid.
func (s *Batches) LiveBatches(ctx context.Context, uids []string) (map[string]string, error) {
	return s.db.liveBatches(ctx, uids)
}

func (db *DB) liveBatches(ctx context.Context, uids []string) (map[string]string, error) {
	out := map[string]string{}
	if len(uids) == 0 {
		return out, nil
	}
	b := sql.Dialect(db.dialect)
	items, batchOrders := b.Table(batchitem.Table).As("i"), b.Table(batchorder.Table).As("b")
	wanted := make([]any, len(uids))
	for i, uid := range uids {
		wanted[i] = uid
	}
	query, args := b.Select(items.C(batchitem.FieldItemUID), batchOrders.C(batchorder.FieldUID)).From(items).
		Join(batchOrders).On(items.C(batchitem.FieldBatchID), batchOrders.C(batchorder.FieldID)).
		Where(sql.And(sql.In(items.C(batchitem.FieldItemUID), wanted...), sql.NEQ(batchOrders.C(batchorder.FieldStatus), batches.StatusFailed))).
		OrderBy(batchOrders.C(batchorder.FieldID)).Query()
	rows, err := db.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() { // oldest first: the newest stays
		var item, batch string
		if err := rows.Scan(&item, &batch); err != nil {
			return nil, err
		}
		out[item] = batch
	}
	return out, rows.Err()
}

// indexBatchItems records the items of batches made before their items
// were kept apart (see BatchItem). It returns how many batches it did.
func (db *DB) indexBatchItems(ctx context.Context) (int, error) {
	rows, err := db.write.BatchOrder.Query().Where(func(s *sql.Selector) {
		b := sql.Dialect(s.Dialect())
		i := b.Table(batchitem.Table)
		s.Where(sql.NotExists(b.Select(i.C("id")).From(i).Where(sql.ColumnsEQ(i.C(batchitem.FieldBatchID), s.C("id")))))
	}).Select(batchorder.FieldID, batchorder.FieldOrderItems).All(ctx)
	if err != nil || len(rows) == 0 {
		return 0, err
	}
	return len(rows), db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		for _, row := range rows {
			if err := writeBatchItems(ctx, tx.BatchItem, row.ID, row.OrderItems); err != nil {
				return err
			}
		}
		return nil
	})
}

// Batch returns a batch of any team.
func (s *Batches) Batch(ctx context.Context, uid string) (*batches.Batch, error) {
	return s.db.batch(ctx, uid)
}

// batch returns a batch of any team.
func (db *DB) batch(ctx context.Context, uid string) (*batches.Batch, error) {
	row, err := db.read.BatchOrder.Query().Where(batchorder.UID(uid)).Only(ctx)
	if err != nil {
		return nil, notFound(err, "batch order %q not found", uid)
	}
	return batchFromRow(row), nil
}

// BatchByToken returns the team's batch made by the request token names.
func (s *Batches) BatchByToken(ctx context.Context, teamID int, token string) (*batches.Batch, error) {
	row, err := s.db.read.BatchOrder.Query().
		Where(batchorder.TeamID(teamID), batchorder.IdempotencyToken(token)).Only(ctx)
	if err != nil {
		return nil, notFound(err, "no batch order of this request")
	}
	return batchFromRow(row), nil
}

// ListBatches returns a page of batches, newest first.
func (s *Batches) ListBatches(ctx context.Context, q batches.Query) ([]*batches.Batch, bool, error) {
	query := s.db.read.BatchOrder.Query()
	if q.TeamID != 0 {
		query = query.Where(batchorder.TeamID(q.TeamID))
	}
	if q.Status != "" {
		query = query.Where(batchorder.Status(q.Status))
	}
	rows, err := query.Where(after[predicate.BatchOrder](q.After, batchorder.FieldUID)).Order(ent.Desc(batchorder.FieldCreatedAt), ent.Desc(batchorder.FieldUID)).Limit(q.PageSize + 1).All(ctx)
	if err != nil {
		return nil, false, err
	}
	more := len(rows) > q.PageSize
	if more {
		rows = rows[:q.PageSize]
	}
	out := make([]*batches.Batch, len(rows))
	for i, r := range rows {
		out[i] = batchFromRow(r)
	}
	return out, more, nil
}

func batchFromRow(row *ent.BatchOrder) *batches.Batch {
	b := &batches.Batch{
		UID: row.UID, TeamID: row.TeamID, StoreIDs: row.StoreIds, Status: row.Status,
		OrderItems: row.OrderItems, PrintTemplates: row.PrintTemplates, ItemTemplates: row.ItemTemplates,
		JobID: row.JobID, CreatedAt: row.CreatedAt.UTC(), UpdatedAt: row.UpdatedAt.UTC(),
	}
	if row.Error != nil {
		b.Error = *row.Error
	}
	for _, f := range row.Files {
		b.Files = append(b.Files, batches.File{TemplateUID: f.TemplateUID, Key: f.Key, Pages: f.Pages,
			Digest: files.Digest{Size: f.Size, SHA256: f.SHA256}})
	}
	return b
}

// FinishBatch makes the batch Ready with files and tells its stores.
func (s *Batches) FinishBatch(ctx context.Context, uid string, jobID int64, stored []batches.File) (bool, error) {
	rows := make([]schema.BatchFile, len(stored))
	for i, f := range stored {
		rows[i] = schema.BatchFile{TemplateUID: f.TemplateUID, Key: f.Key, Pages: f.Pages, Size: f.Digest.Size, SHA256: f.Digest.SHA256}
	}
	return s.settle(ctx, uid, jobID, func(u *ent.BatchOrderUpdate) *ent.BatchOrderUpdate {
		return u.SetStatus(batches.StatusReady).SetFiles(rows).ClearError()
	})
}

// FailBatch makes the batch Failed with the reason and tells its stores.
func (s *Batches) FailBatch(ctx context.Context, uid string, jobID int64, reason string) (bool, error) {
	return s.settle(ctx, uid, jobID, func(u *ent.BatchOrderUpdate) *ent.BatchOrderUpdate {
		return u.SetStatus(batches.StatusFailed).SetError(reason).SetFiles([]schema.BatchFile{})
	})
}

// settle ends a Batching batch that jobID owns with change, and records
// its event for each of its stores, in one transaction.
func (s *Batches) settle(ctx context.Context, uid string, jobID int64, change func(*ent.BatchOrderUpdate) *ent.BatchOrderUpdate) (bool, error) {
	return s.db.update(ctx, func(ctx context.Context, tx *Tx) (int, error) {
		n, err := change(tx.BatchOrder.Update().Where(batchorder.UID(uid), batchorder.JobID(jobID),
			batchorder.Status(batches.StatusBatching))).Save(ctx)
		if err != nil || n == 0 {
			return n, err
		}
		row, err := tx.BatchOrder.Query().Where(batchorder.UID(uid)).Only(ctx)
		if err != nil {
			return 0, err
		}
		return n, s.notifyBatch(ctx, tx, batchFromRow(row))
	})
}

// notifyBatch records batch_order.ready or .failed for every store whose
// items b holds.
func (s *Batches) notifyBatch(ctx context.Context, tx *Tx, b *batches.Batch) error {
	event := webhooks.EventBatchReady
	if b.Status == batches.StatusFailed {
		event = webhooks.EventBatchFailed
	}
	body := webhooks.BatchOrder{Event: event, BatchUID: b.UID, Status: b.Status, Files: []webhooks.BatchFile{}, SentAt: webhooks.SentAt(time.Now())}
	for i, f := range b.Files {
		file := webhooks.BatchFile{PrintTemplateUID: f.TemplateUID, Pages: f.Pages}
		if d := f.KnownDigest(); d != nil {
			file.Size, file.SHA256 = &d.Size, &d.SHA256
		}
		u := s.jobs.links.BatchFileURL(b.UID, i+1)
		file.URL = &u
		body.Files = append(body.Files, file)
	}
	if b.Error != "" {
		body.Error = &b.Error
	}
	data := webhooks.Body(body)
	for _, store := range b.StoreIDs {
		if err := s.jobs.notify(ctx, tx, renderjobs.Notice{TeamID: b.TeamID, StoreID: store, Event: event, Body: data}); err != nil {
			return err
		}
	}
	return nil
}
