package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/order"
	"github.com/platen-print/platen/ent/orderitem"
	"github.com/platen-print/platen/ent/predicate"
	"github.com/platen-print/platen/ent/store"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/prints"
)

// Orders implements orders.Store.
type Orders struct {
	db   *DB
	jobs *Stores
}

var _ orders.Store = (*Orders)(nil)

// StoreTeam returns the team owning storeID.
func (s *Orders) StoreTeam(ctx context.Context, storeID string) (int, error) {
	return s.db.storeTeam(ctx, storeID)
}

// storeTeam returns the team owning storeID.
func (db *DB) storeTeam(ctx context.Context, storeID string) (int, error) {
	st, err := db.read.Store.Query().Where(store.ID(storeID)).Select(store.FieldTeamID).Only(ctx)
	if err != nil {
		return 0, notFound(err, "store %q not found", storeID)
	}
	return st.TeamID, nil
}

// CreateOrder inserts the order and its items in one transaction. Once
// begun, the insert runs to its end even if the client goes away (see
// txFunc).
func (s *Orders) CreateOrder(ctx context.Context, o *orders.Order) error {
	o.UID = uuid.NewString()
	o.PrintFilesRequested = o.CreatePrintFiles
	now := time.Now().UTC().Truncate(time.Microsecond)
	err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		row, err := setOrderFields(tx.Order.Create().
			SetUID(o.UID).
			SetCreatedAt(now).
			SetUpdatedAt(now).
			SetTeamID(o.TeamID).
			SetStoreID(o.StoreID).
			SetEcommerceOrderID(o.EcommerceOrderID).
			SetCreatePrintFiles(o.CreatePrintFiles).
			SetPrintFilesRequested(o.PrintFilesRequested).
			SetNillableIdempotencyToken(nonEmpty(o.IdempotencyToken)), o).Save(ctx)
		if err != nil {
			return err
		}
		o.ID, o.CreatedAt, o.UpdatedAt = row.ID, row.CreatedAt, row.UpdatedAt
		if err := registerItemDesigns(ctx, tx, o.TeamID, o.Items); err != nil {
			return err
		}
		if err := s.insertItems(ctx, tx, o); err != nil {
			return err
		}
		return writeOrderKeys(ctx, tx, o)
	})
	if ent.IsConstraintError(err) {
		return s.explainConflict(ctx, o)
	}
	return err
}

// nonEmpty is s, or nil when s is empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func setOrderFields(b *ent.OrderCreate, o *orders.Order) *ent.OrderCreate {
	return b.SetNillableEcommerceOrderNumber(o.EcommerceOrderNumber).
		SetNillableTotalPrice(o.TotalPrice).
		SetNillableSubtotalPrice(o.SubtotalPrice).
		SetNillableCurrencyCode(o.CurrencyCode).
		SetNillableNote(o.Note).
		SetCustomer(mustJSON(o.Customer)).
		SetAddresses(mustJSON(o.Addresses)).
		SetShippings(mustJSON(o.Shippings))
}

// updateOrderFields writes every mutable field; a nil value clears the
// column (Ent's SetNillable would leave it as it was).
func updateOrderFields(u *ent.OrderUpdateOne, o *orders.Order) *ent.OrderUpdateOne {
	setOrClear(o.EcommerceOrderNumber, u.SetEcommerceOrderNumber, u.ClearEcommerceOrderNumber)
	setOrClear(o.TotalPrice, u.SetTotalPrice, u.ClearTotalPrice)
	setOrClear(o.SubtotalPrice, u.SetSubtotalPrice, u.ClearSubtotalPrice)
	setOrClear(o.CurrencyCode, u.SetCurrencyCode, u.ClearCurrencyCode)
	setOrClear(o.Note, u.SetNote, u.ClearNote)
	return u.SetCustomer(mustJSON(o.Customer)).
		SetAddresses(mustJSON(o.Addresses)).
		SetShippings(mustJSON(o.Shippings))
}

func setOrClear[T, B any](v *T, set func(T) B, clear func() B) {
	if v == nil {
		clear()
	} else {
		set(*v)
	}
}

// mustJSON encodes the order's plain structs, which cannot fail to encode.
func mustJSON(v any) json.RawMessage {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("storage: encode %T: %v", v, err))
	}
	return raw
}

// insertItems inserts the order's items that have no id yet, with their
// render jobs when the order's print files are wanted.
func (s *Orders) insertItems(ctx context.Context, tx *Tx, o *orders.Order) error {
	var fresh []*orders.Item
	var positions []int
	var work printWork
	for i := range o.Items {
		it := &o.Items[i]
		if it.ID != 0 {
			continue
		}
		it.UID = uuid.NewString()
		fresh, positions = append(fresh, it), append(positions, i)
		if o.PrintFilesRequested {
			work.queueRender(o, it)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	if err := s.jobs.enqueue(ctx, tx, &work); err != nil {
		return err
	}
	builders := make([]*ent.OrderItemCreate, len(fresh))
	for n, it := range fresh {
		builders[n] = tx.OrderItem.Create().
			SetUID(it.UID).
			SetOrderID(o.ID).
			SetTeamID(o.TeamID).
			SetStoreID(o.StoreID).
			SetPosition(positions[n]).
			SetEcommerceOrderItemID(it.EcommerceOrderItemID).
			SetEcommerceVariantID(it.EcommerceVariantID).
			SetQuantity(it.Quantity).
			SetNillablePrice(it.Price).
			SetProperties(it.Properties).
			SetDesignHash(DesignHash(it.TemplateConfig)).SetDesignBytes(len(it.TemplateConfig)).
			SetThumbnails(it.Thumbnails).
			SetNillableDesignVersionID(it.DesignVersionID).
			SetPrintStatus(it.Print.Status).
			SetNillablePrintError(it.Print.Error).
			SetNillablePrintFileKey(it.Print.FileKey).
			SetNillablePrintJobID(it.Print.JobID)
		size, sha := digestColumns(it.Print.Digest)
		builders[n].SetNillablePrintFileSize(size).SetNillablePrintFileSha256(sha)
	}
	rows, err := tx.OrderItem.CreateBulk(builders...).Save(ctx)
	if err != nil {
		return err
	}
	for i, row := range rows {
		fresh[i].ID = row.ID
	}
	return writeItemDesigns(ctx, tx, fresh)
}

// explainConflict names what clashed after a uniqueness violation: the
// order's ecommerce_order_id, or one of its item ids, with the order that
// already holds it.
func (s *Orders) explainConflict(ctx context.Context, o *orders.Order) error {
	existing, err := s.db.read.Order.Query().
		Where(order.StoreID(o.StoreID), order.EcommerceOrderID(o.EcommerceOrderID), order.UIDNEQ(o.UID)).
		Select(order.FieldUID, order.FieldIdempotencyToken).Only(ctx)
	if err == nil && o.IdempotencyToken != "" && existing.IdempotencyToken != nil && *existing.IdempotencyToken == o.IdempotencyToken {
		return &orders.CreatedBeforeError{UID: existing.UID}
	}
	if err == nil {
		return apierr.Conflict("ecommerce_order_id", "an order with ecommerce_order_id %q already exists in store %q: %s",
			o.EcommerceOrderID, o.StoreID, existing.UID)
	}
	return s.explainItemConflict(ctx, o)
}

func (s *Orders) explainItemConflict(ctx context.Context, o *orders.Order) error {
	ids := make([]string, len(o.Items))
	for i, it := range o.Items {
		ids[i] = it.EcommerceOrderItemID
	}
	clashes, err := s.db.read.OrderItem.Query().
		Where(orderitem.StoreID(o.StoreID), orderitem.EcommerceOrderItemIDIn(ids...), orderitem.HasOrderWith(order.UIDNEQ(o.UID))).
		WithOrder(func(q *ent.OrderQuery) { q.Select(order.FieldUID) }).
		All(ctx)
	if err != nil || len(clashes) == 0 {
		return apierr.Conflict("", "the order conflicts with another order of store %q; retry", o.StoreID)
	}
	for i, it := range o.Items {
		if it.EcommerceOrderItemID == clashes[0].EcommerceOrderItemID {
			return apierr.Conflict(fmt.Sprintf("items[%d].ecommerce_order_item_id", i),
				"ecommerce_order_item_id %q already belongs to order %s in store %q",
				it.EcommerceOrderItemID, clashes[0].Edges.Order.UID, o.StoreID)
		}
	}
	return apierr.Conflict("items", "an item id already belongs to another order of store %q", o.StoreID)
}

func scopePredicates(scope orders.Scope, uid string) []predicate.Order {
	ps := []predicate.Order{order.UID(uid), order.TeamID(scope.TeamID)}
	if scope.StoreID != "" {
		ps = append(ps, order.StoreID(scope.StoreID))
	}
	return ps
}

// GetOrder returns the order with its items.
func (s *Orders) GetOrder(ctx context.Context, scope orders.Scope, uid string) (*orders.Order, error) {
	return getOrder(ctx, s.db.read, scope, uid)
}

func getOrder(ctx context.Context, client *ent.Client, scope orders.Scope, uid string) (*orders.Order, error) {
	row, err := client.Order.Query().
		Where(scopePredicates(scope, uid)...).
		WithItems(func(q *ent.OrderItemQuery) { q.Order(ent.Asc(orderitem.FieldPosition)) }).
		Only(ctx)
	if err != nil {
		return nil, notFound(err, "order %q not found", uid)
	}
	designs, err := orderDesigns(ctx, client.ItemDesign, row)
	if err != nil {
		return nil, err
	}
	return orderFromRow(row, designs)
}

// ListOrders returns a page of orders, newest first. Orders can be large
// (a design document per item), so their items' sizes are summed in the
// database first and items are loaded only for the orders that fit the
// page's byte budget: a page never holds more than about the budget.
func (s *Orders) ListOrders(ctx context.Context, q orders.ListQuery) ([]*orders.Order, bool, error) {
	query := s.db.read.Order.Query().Where(order.TeamID(q.TeamID))
	if q.Scope.StoreID != "" {
		query = query.Where(order.StoreID(q.Scope.StoreID))
	}
	if q.StoreID != "" {
		query = query.Where(order.StoreID(q.StoreID))
	}
	rows, err := query.Where(after[predicate.Order](q.After, order.FieldUID)).Order(ent.Desc(order.FieldCreatedAt), ent.Desc(order.FieldUID)).Limit(q.PageSize + 1).All(ctx)
	if err != nil {
		return nil, false, err
	}
	more := len(rows) > q.PageSize
	if more {
		rows = rows[:q.PageSize]
	}
	if fit, err := s.withinBudget(ctx, rows, q.ByteBudget); err != nil {
		return nil, false, err
	} else if fit < len(rows) {
		rows, more = rows[:fit], true
	}
	if err := s.loadItems(ctx, rows); err != nil {
		return nil, false, err
	}
	designs, err := orderDesigns(ctx, s.db.read.ItemDesign, rows...)
	if err != nil {
		return nil, false, err
	}
	out := make([]*orders.Order, len(rows))
	for i, row := range rows {
		if out[i], err = orderFromRow(row, designs); err != nil {
			return nil, false, err
		}
	}
	return out, more, nil
}

// itemOverhead is what an item weighs in a page besides its design
// document and properties.
const itemOverhead = 512

// withinBudget is how many of rows fit budget bytes of items (at least one;
// all when budget is 0).
func (s *Orders) withinBudget(ctx context.Context, rows []*ent.Order, budget int) (int, error) {
	if budget <= 0 || len(rows) == 0 {
		return len(rows), nil
	}
	var sizes []struct {
		OrderID int `json:"order_id"`
		Size    int `json:"size"`
	}
	err := s.db.read.OrderItem.Query().Where(orderitem.OrderIDIn(orderIDs(rows)...)).
		GroupBy(orderitem.FieldOrderID).
		Aggregate(func(sel *entsql.Selector) string {
			return entsql.As(fmt.Sprintf("SUM(COALESCE(%s, 0) + COALESCE(LENGTH(CAST(%s AS TEXT)), 0) + %d)",
				sel.C(orderitem.FieldDesignBytes), sel.C(orderitem.FieldProperties), itemOverhead), "size")
		}).
		Scan(ctx, &sizes)
	if err != nil {
		return 0, err
	}
	byOrder := make(map[int]int, len(sizes))
	for _, sz := range sizes {
		byOrder[sz.OrderID] = sz.Size
	}
	total := 0
	for i, row := range rows {
		if total += byOrder[row.ID]; total > budget && i > 0 {
			return i, nil
		}
	}
	return len(rows), nil
}

// loadItems fills in the items of rows in one query.
func (s *Orders) loadItems(ctx context.Context, rows []*ent.Order) error {
	if len(rows) == 0 {
		return nil
	}
	items, err := s.db.read.OrderItem.Query().Where(orderitem.OrderIDIn(orderIDs(rows)...)).
		Order(ent.Asc(orderitem.FieldOrderID), ent.Asc(orderitem.FieldPosition)).All(ctx)
	if err != nil {
		return err
	}
	byOrder := make(map[int][]*ent.OrderItem, len(rows))
	for _, it := range items {
		byOrder[it.OrderID] = append(byOrder[it.OrderID], it)
	}
	for _, row := range rows {
		row.Edges.Items = byOrder[row.ID]
	}
	return nil
}

func orderIDs(rows []*ent.Order) []int {
	ids := make([]int, len(rows))
	for i, row := range rows {
		ids[i] = row.ID
	}
	return ids
}

// lockOrder takes the order row's lock for the rest of the transaction on
// PostgreSQL; on SQLite the single writer already serialises transactions.
func (db *DB) lockOrder(ctx context.Context, tx *Tx, uid string) error {
	if db.dialect != dialect.Postgres {
		return nil
	}
	rows, err := tx.QueryContext(ctx, "SELECT id FROM "+order.Table+" WHERE "+order.FieldUID+" = $1 FOR UPDATE", uid)
	if err != nil {
		return err
	}
	return rows.Close()
}

// UpdateOrder loads, changes and writes the order in one transaction. The
// order's row is locked first (on PostgreSQL; SQLite has one writer), so two
// concurrent PUTs apply one after the other, each to what the other wrote.
func (s *Orders) UpdateOrder(ctx context.Context, scope orders.Scope, uid string, apply func(*orders.Order) error) (*orders.Order, error) {
	o, err := s.db.changeOrder(ctx, scope, uid, func(ctx context.Context, tx *Tx, o *orders.Order) error {
		before := itemPrints(o.Items)
		if err := apply(o); err != nil {
			return err
		}
		return s.writeUpdate(ctx, tx, o, before)
	})
	if ent.IsConstraintError(err) {
		return nil, s.explainItemConflict(ctx, o)
	}
	if err != nil {
		return nil, err
	}
	return o, nil
}

// itemPrint is an item's uid and print file, and its design as stored.
type itemPrint struct {
	uid    string
	print  orders.PrintFile
	design string
}

// itemPrints maps the ids of items to their print files.
func itemPrints(items []orders.Item) map[int]itemPrint {
	prints := make(map[int]itemPrint, len(items))
	for _, it := range items {
		prints[it.ID] = itemPrint{it.UID, it.Print, it.TemplateConfig}
	}
	return prints
}

// writeUpdate stores o: its fields, its kept items, and the diff of items.
// A kept item whose print was reset (a new template_config) loses its old
// job and file, and renders again when the order's print files are wanted;
// items that went lose theirs.
func (s *Orders) writeUpdate(ctx context.Context, tx *Tx, o *orders.Order, before map[int]itemPrint) error {
	row, err := updateOrderFields(tx.Order.UpdateOneID(o.ID), o).Save(ctx)
	if err != nil {
		return err
	}
	o.UpdatedAt = row.UpdatedAt
	kept := itemPrints(o.Items)
	var gone []int
	var work printWork
	for id, p := range before {
		if _, ok := kept[id]; !ok {
			gone = append(gone, id)
			work.dropItem(o.UID, p.uid, p.print)
		}
	}
	for i := range o.Items {
		it := &o.Items[i]
		if it.ID == 0 || it.Print.JobID != nil {
			continue
		}
		work.dropItem(o.UID, it.UID, before[it.ID].print)
		if o.PrintFilesRequested {
			work.queueRender(o, it)
		}
	}
	if err := s.jobs.enqueue(ctx, tx, &work); err != nil {
		return err
	}
	if len(gone) > 0 {
		if _, err := tx.OrderItem.Delete().Where(orderitem.IDIn(gone...)).Exec(ctx); err != nil {
			return err
		}
		if err := dropItemDesigns(ctx, tx, gone); err != nil {
			return err
		}
	}
	for i, it := range o.Items {
		if it.ID == 0 {
			continue
		}
		u := tx.OrderItem.UpdateOneID(it.ID).
			SetPosition(i).
			SetEcommerceVariantID(it.EcommerceVariantID).
			SetQuantity(it.Quantity).
			SetProperties(it.Properties).
			SetDesignHash(DesignHash(it.TemplateConfig)).SetDesignBytes(len(it.TemplateConfig)).
			SetThumbnails(it.Thumbnails).
			SetPrintStatus(it.Print.Status)
		setOrClear(it.Price, u.SetPrice, u.ClearPrice)
		setOrClear(it.DesignVersionID, u.SetDesignVersionID, u.ClearDesignVersionID)
		setOrClear(it.Print.Error, u.SetPrintError, u.ClearPrintError)
		setOrClear(it.Print.FileKey, u.SetPrintFileKey, u.ClearPrintFileKey)
		setItemDigest(u, it.Print.Digest)
		setOrClear(it.Print.JobID, u.SetPrintJobID, u.ClearPrintJobID)
		if it.Print.Status != orders.PrintProcessingFailed {
			u.ClearPrintStoppedBy() // queued again: no operator's action stops it now
		}
		if err := u.Exec(ctx); err != nil {
			return err
		}
		if it.TemplateConfig == before[it.ID].design {
			continue // unchanged: PostgreSQL would write the megabyte again
		}
		if err := replaceItemDesign(ctx, tx, &o.Items[i]); err != nil {
			return err
		}
	}
	if err := registerItemDesigns(ctx, tx, o.TeamID, o.Items); err != nil {
		return err
	}
	if err := s.insertItems(ctx, tx, o); err != nil {
		return err
	}
	return replaceOrderKeys(ctx, tx, o)
}

// changeOrder runs change on the order in one write transaction (see
// txFunc for its ctx), its row locked first (see lockOrder) so that
// concurrent changes apply one after the other. It returns the order as
// changed, also when change failed (nil when it could not be read).
func (db *DB) changeOrder(ctx context.Context, scope orders.Scope, uid string, change func(context.Context, *Tx, *orders.Order) error) (*orders.Order, error) {
	var o *orders.Order
	err := db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		if err := db.lockOrder(ctx, tx, uid); err != nil {
			return err
		}
		var err error
		if o, err = getOrder(ctx, tx.Client(), scope, uid); err != nil {
			return err
		}
		return change(ctx, tx, o)
	})
	return o, err
}

// RequestPrintFiles marks the order's print files as wanted and queues a
// render for every item that has none yet or whose render failed.
func (s *Orders) RequestPrintFiles(ctx context.Context, scope orders.Scope, uid string) (*orders.Order, error) {
	o, err := s.db.changeOrder(ctx, scope, uid, func(ctx context.Context, tx *Tx, o *orders.Order) error {
		o.PrintFilesRequested = true
		if err := tx.Order.UpdateOneID(o.ID).SetPrintFilesRequested(true).Exec(ctx); err != nil {
			return err
		}
		var work printWork
		for i := range o.Items {
			it := &o.Items[i]
			if it.Print.JobID == nil || it.Print.Status == orders.PrintProcessingFailed {
				work.dropItem(o.UID, it.UID, it.Print)
				work.queueRender(o, it)
			}
		}
		if err := s.jobs.enqueue(ctx, tx, &work); err != nil {
			return err
		}
		for _, it := range work.render {
			err := tx.OrderItem.UpdateOneID(it.ID).
				SetPrintStatus(it.Print.Status).
				ClearPrintError().ClearPrintStoppedBy().
				ClearPrintFileKey().ClearPrintFileSize().ClearPrintFileSha256().
				SetNillablePrintJobID(it.Print.JobID).
				Exec(ctx)
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// DeleteOrder removes the order and its items.
func (s *Orders) DeleteOrder(ctx context.Context, scope orders.Scope, uid string) error {
	return s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		if err := s.db.lockOrder(ctx, tx, uid); err != nil {
			return err
		}
		row, err := tx.Order.Query().Where(scopePredicates(scope, uid)...).Select(order.FieldID).Only(ctx)
		if err != nil {
			return notFound(err, "order %q not found", uid)
		}
		items, err := tx.OrderItem.Query().Where(orderitem.OrderID(row.ID)).
			Select(orderitem.FieldID, orderitem.FieldUID, orderitem.FieldPrintJobID, orderitem.FieldPrintFileKey).All(ctx)
		if err != nil {
			return err
		}
		var work printWork
		for _, it := range items {
			work.dropItem(uid, it.UID, orders.PrintFile{JobID: it.PrintJobID, FileKey: it.PrintFileKey})
		}
		if err := s.jobs.enqueue(ctx, tx, &work); err != nil {
			return err
		}
		if _, err := tx.OrderItem.Delete().Where(orderitem.OrderID(row.ID)).Exec(ctx); err != nil {
			return err
		}
		ids := make([]int, len(items))
		for i, it := range items {
			ids[i] = it.ID
		}
		if err := dropItemDesigns(ctx, tx, ids); err != nil {
			return err
		}
		if err := dropKeys(ctx, tx, prints.FamilyA, row.ID); err != nil {
			return err
		}
		return tx.Order.DeleteOneID(row.ID).Exec(ctx)
	})
}

// FindItemPrints returns the print state of the items with this e-commerce
// id; it is the hottest read, so it runs a prepared statement.
func (s *Orders) FindItemPrints(ctx context.Context, scope orders.Scope, storeID, ecommerceOrderItemID string) ([]orders.ItemPrint, error) {
	if scope.StoreID != "" {
		storeID = scope.StoreID
	}
	return s.db.hot.findItemPrints(ctx, scope.TeamID, storeID, ecommerceOrderItemID)
}

// orderFromRow is the order row holds, with its items' designs from
// designs by item id (none where the caller has no use for them).
func orderFromRow(row *ent.Order, designs map[int]string) (*orders.Order, error) {
	o := &orders.Order{
		ID: row.ID, UID: row.UID, TeamID: row.TeamID, StoreID: row.StoreID,
		EcommerceOrderID:     row.EcommerceOrderID,
		EcommerceOrderNumber: row.EcommerceOrderNumber,
		TotalPrice:           row.TotalPrice,
		SubtotalPrice:        row.SubtotalPrice,
		CurrencyCode:         row.CurrencyCode,
		Note:                 row.Note,
		CreatePrintFiles:     row.CreatePrintFiles,
		PrintFilesRequested:  row.PrintFilesRequested,
		CreatedAt:            row.CreatedAt.UTC(),
		UpdatedAt:            row.UpdatedAt.UTC(),
		Items:                make([]orders.Item, len(row.Edges.Items)),
	}
	if err := decodeJSON(row.Customer, &o.Customer); err != nil {
		return nil, fmt.Errorf("order %s customer: %w", row.UID, err)
	}
	if err := decodeJSON(row.Addresses, &o.Addresses); err != nil {
		return nil, fmt.Errorf("order %s addresses: %w", row.UID, err)
	}
	if err := decodeJSON(row.Shippings, &o.Shippings); err != nil {
		return nil, fmt.Errorf("order %s shippings: %w", row.UID, err)
	}
	for i, it := range row.Edges.Items {
		o.Items[i] = orders.Item{
			ID: it.ID, UID: it.UID,
			EcommerceOrderItemID: it.EcommerceOrderItemID,
			EcommerceVariantID:   it.EcommerceVariantID,
			Quantity:             it.Quantity,
			Price:                it.Price,
			Properties:           it.Properties,
			TemplateConfig:       designs[it.ID],
			Thumbnails:           it.Thumbnails,
			DesignVersionID:      it.DesignVersionID,
			Print: orders.PrintFile{Status: it.PrintStatus, Error: it.PrintError, FileKey: it.PrintFileKey,
				Digest: itemDigest(it.PrintFileSize, it.PrintFileSha256), JobID: it.PrintJobID, Warnings: it.PrintWarnings},
		}
	}
	return o, nil
}

func decodeJSON(raw json.RawMessage, into any) error {
	if len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, into)
}

// notFound maps Ent's not-found to apierr's with a readable message.
func notFound(err error, format string, args ...any) error {
	if ent.IsNotFound(err) {
		return apierr.NotFound(format, args...)
	}
	return err
}
