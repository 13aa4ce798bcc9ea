package storage

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"entgo.io/ent/dialect/sql"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/designversion"
	"github.com/platen-print/platen/ent/order"
	"github.com/platen-print/platen/ent/orderitem"
	"github.com/platen-print/platen/ent/predicate"
	"github.com/platen-print/platen/ent/searchkey"
	"github.com/platen-print/platen/ent/shoporder"
	"github.com/platen-print/platen/ent/shopprint"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/prints"
	"github.com/platen-print/platen/internal/renderjobs"
	"github.com/platen-print/platen/internal/shop"
)

// Prints is the operator's view of the prints of both families: order
// items' print files and shop prints.
type Prints struct {
	db   *DB
	jobs *Stores
}

var _ prints.Store = (*Prints)(nil)

// Each family's words for its statuses.
var (
	statusesA = []string{orders.PrintReceived, orders.PrintProcessing, orders.PrintProcessingFailed, orders.PrintReady}
	statusesB = []string{shop.PrintProcessing, shop.PrintReady, shop.PrintFailed, shop.PrintCancelled}
)

// ListPrints reads a page of each family that the query admits and merges
// them, newest first.
func (s *Prints) ListPrints(ctx context.Context, q prints.Query) ([]*prints.Print, bool, error) {
	var all []*prints.Print
	if q.Family != prints.FamilyB && (q.Status == "" || slices.Contains(statusesA, q.Status)) {
		list, err := s.listA(ctx, q)
		if err != nil {
			return nil, false, err
		}
		all = append(all, list...)
	}
	if q.Family != prints.FamilyA && (q.Status == "" || slices.Contains(statusesB, q.Status)) {
		list, err := s.listB(ctx, q)
		if err != nil {
			return nil, false, err
		}
		all = append(all, list...)
	}
	slices.SortFunc(all, func(a, b *prints.Print) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
	})
	more := len(all) > q.PageSize
	if more {
		all = all[:q.PageSize]
	}
	return all, more, s.markBatched(ctx, all)
}

// markBatched sets the live batch of each Family A print of list that
// one holds.
func (s *Prints) markBatched(ctx context.Context, list []*prints.Print) error {
	var ids []string
	for _, p := range list {
		if p.Family == prints.FamilyA {
			ids = append(ids, p.ID)
		}
	}
	live, err := s.db.liveBatches(ctx, ids)
	if err != nil {
		return err
	}
	for _, p := range list {
		p.Batch = live[p.ID]
	}
	return nil
}

func (s *Prints) listA(ctx context.Context, q prints.Query) ([]*prints.Print, error) {
	where := teamStoreA(q)
	if q.Status != "" {
		where = append(where, orderitem.PrintStatus(q.Status))
	}
	if q.State != "" {
		where = append(where, stateA[q.State])
	}
	if !q.CreatedFrom.IsZero() {
		where = append(where, orderitem.CreatedAtGTE(q.CreatedFrom))
	}
	if !q.CreatedBefore.IsZero() {
		where = append(where, orderitem.CreatedAtLT(q.CreatedBefore))
	}
	where = append(where, after[predicate.OrderItem](q.After, orderitem.FieldUID))
	if q.Search != "" {
		where = append(where, searchA.matching(q.Search))
	}
	rows, err := s.db.read.OrderItem.Query().Where(where...).
		Order(ent.Desc(orderitem.FieldCreatedAt), ent.Desc(orderitem.FieldUID)).Limit(q.PageSize + 1).
		Select(itemPrintFields...).WithOrder(withOrderRefs).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*prints.Print, len(rows))
	for i, r := range rows {
		out[i] = printOfItem(r)
	}
	return out, nil
}

// searchFamily is where a family's search finds its prints: the keys of
// the family (see SearchKey), the prints' table with its column naming
// the order, and the orders' table when its orders have a uid of their
// own (Family A).
type searchFamily struct {
	family, table, orderColumn, orderTable string
}

var (
	searchA = searchFamily{family: prints.FamilyA, table: orderitem.Table, orderColumn: orderitem.FieldOrderID, orderTable: order.Table}
	searchB = searchFamily{family: prints.FamilyB, table: shopprint.Table, orderColumn: shopprint.FieldShopOrderID}
)

// matching is a predicate on the family's table: the print is one that
// text finds among its own keys or its order's, or whose uid, or whose
// order's, is text (in lower case, as uids are written: they are pasted
// whole, not typed in part, and keeping them as keys cost every order a
// third of its insert). It is written as its id among a UNION ALL of the
// lookups, each on an index, so that both databases find the few matches
// first and order only those. The plainer OR of the references had each
// planner walk the whole list newest first instead, testing every row:
// 150 ms (SQLite) and 40 ms (PostgreSQL) a search over 100,000 prints,
// against about 1 ms this way.
func (f searchFamily) matching(text string) func(*sql.Selector) {
	return func(s *sql.Selector) {
		b := sql.Dialect(s.Dialect())
		keys := func(column string, own bool) *sql.Selector {
			k := b.Table(searchkey.Table)
			mine := sql.IsNull(k.C(searchkey.FieldItemID))
			if own {
				mine = sql.NotNull(k.C(searchkey.FieldItemID))
			}
			return b.Select(k.C(column)).From(k).
				Where(sql.And(sql.EQ(k.C(searchkey.FieldFamily), f.family), mine, keyMatches(s.Dialect(), k, text)))
		}
		ofOrders := func(orders *sql.Selector) *sql.Selector {
			t := b.Table(f.table)
			return b.Select(t.C("id")).From(t).Where(sql.In(t.C(f.orderColumn), orders))
		}
		uid := strings.ToLower(strings.TrimSpace(text))
		t := b.Table(f.table)
		union := keys(searchkey.FieldItemID, true).UnionAll(ofOrders(keys(searchkey.FieldOrderID, false))).
			UnionAll(b.Select(t.C("id")).From(t).Where(sql.EQ(t.C("uid"), uid)))
		if f.orderTable != "" {
			o := b.Table(f.orderTable)
			union.UnionAll(ofOrders(b.Select(o.C("id")).From(o).Where(sql.EQ(o.C("uid"), uid))))
		}
		s.Where(sql.In(s.C("id"), union))
	}
}

// itemPrintFields are what a Family A print shows of its item.
var itemPrintFields = []string{orderitem.FieldOrderID, orderitem.FieldUID, orderitem.FieldTeamID, orderitem.FieldStoreID,
	orderitem.FieldEcommerceOrderItemID, orderitem.FieldQuantity, orderitem.FieldDesignVersionID, orderitem.FieldPrintStatus,
	orderitem.FieldPrintError, orderitem.FieldPrintFileKey, orderitem.FieldPrintFileSize, orderitem.FieldPrintFileSha256,
	orderitem.FieldPrintJobID, orderitem.FieldPrintWarnings, orderitem.FieldPrintStoppedBy, orderitem.FieldCreatedAt, orderitem.FieldUpdatedAt}

func withOrderRefs(q *ent.OrderQuery) {
	q.Select(order.FieldUID, order.FieldEcommerceOrderID, order.FieldPrintFilesRequested)
}

func printOfItem(r *ent.OrderItem) *prints.Print {
	p := &prints.Print{
		ID: r.UID, Family: prints.FamilyA, TeamID: r.TeamID, StoreID: r.StoreID, Status: r.PrintStatus, Error: r.PrintError,
		Stage:    prints.Stage{Stop: stopOf(r.PrintStoppedBy)},
		OrderUID: r.Edges.Order.UID, EcommerceOrderID: r.Edges.Order.EcommerceOrderID, EcommerceOrderItemID: r.EcommerceOrderItemID,
		DesignVersionID: r.DesignVersionID, Quantity: r.Quantity, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		Warnings: r.PrintWarnings,
	}
	if r.PrintFileKey != nil {
		p.Files = 1
		if d := itemDigest(r.PrintFileSize, r.PrintFileSha256); d != nil {
			p.Digests = []files.Digest{*d}
		}
	}
	return p
}

func (s *Prints) listB(ctx context.Context, q prints.Query) ([]*prints.Print, error) {
	where := teamStoreB(q)
	if q.Status != "" {
		where = append(where, shopprint.Status(q.Status))
	}
	if q.State != "" {
		where = append(where, stateB[q.State])
	}
	if !q.CreatedFrom.IsZero() {
		where = append(where, shopprint.CreatedAtGTE(q.CreatedFrom))
	}
	if !q.CreatedBefore.IsZero() {
		where = append(where, shopprint.CreatedAtLT(q.CreatedBefore))
	}
	where = append(where, after[predicate.ShopPrint](q.After, shopprint.FieldUID))
	if q.Search != "" {
		where = append(where, searchB.matching(q.Search))
	}
	rows, err := s.db.read.ShopPrint.Query().Where(where...).
		Order(ent.Desc(shopprint.FieldCreatedAt), ent.Desc(shopprint.FieldUID)).Limit(q.PageSize + 1).
		WithOrder(withShopOrderRefs).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*prints.Print, len(rows))
	for i, r := range rows {
		out[i] = printOfShop(r)
	}
	return out, nil
}

func withShopOrderRefs(q *ent.ShopOrderQuery) {
	q.Select(shoporder.FieldReferenceNumber, shoporder.FieldExternalID)
}

func printOfShop(r *ent.ShopPrint) *prints.Print {
	version := r.DesignVersionID
	return &prints.Print{
		ID: r.UID, Family: prints.FamilyB, TeamID: r.TeamID, StoreID: r.StoreID, Status: r.Status, Error: r.Error,
		Stage:           prints.Stage{Stop: stopOf(r.StoppedBy), Started: r.RenderStartedAt != nil},
		ReferenceNumber: r.Edges.Order.ReferenceNumber, ExternalID: r.Edges.Order.ExternalID, LineExternalID: r.LineExternalID,
		DesignVersionID: &version, Quantity: r.Quantity, Files: r.FileCount, Digests: shopDigests(r.FileDigests),
		Warnings: r.Warnings, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}

// GetPrint finds a print of either family by its id, with its history.
func (s *Prints) GetPrint(ctx context.Context, id string) (*prints.Print, error) {
	return s.getPrint(ctx, s.db.read, id)
}

// getPrint reads a print and its history through c: the read pool, or a
// transaction that has just changed it.
func (s *Prints) getPrint(ctx context.Context, c *ent.Client, id string) (*prints.Print, error) {
	p, err := s.find(ctx, c, id)
	if err != nil {
		return nil, err
	}
	if p.History, err = s.history(ctx, c, id); err != nil {
		return nil, err
	}
	return p, s.markBatched(ctx, []*prints.Print{p})
}

func (s *Prints) find(ctx context.Context, c *ent.Client, id string) (*prints.Print, error) {
	item, err := c.OrderItem.Query().Where(orderitem.UID(id)).Select(itemPrintFields...).WithOrder(withOrderRefs).Only(ctx)
	if err == nil {
		return printOfItem(item), nil
	}
	if !ent.IsNotFound(err) {
		return nil, err
	}
	p, err := c.ShopPrint.Query().Where(shopprint.UID(id)).WithOrder(withShopOrderRefs).Only(ctx)
	if err != nil {
		return nil, notFound(err, "print %q not found", id)
	}
	return printOfShop(p), nil
}

// GetPrintOrder finds the order of print id, with every print of it.
func (s *Prints) GetPrintOrder(ctx context.Context, id string) (*prints.Order, error) {
	c := s.db.read
	item, err := c.OrderItem.Query().Where(orderitem.UID(id)).Select(orderitem.FieldOrderID).Only(ctx)
	if err == nil {
		return s.orderA(ctx, item.OrderID)
	}
	if !ent.IsNotFound(err) {
		return nil, err
	}
	p, err := c.ShopPrint.Query().Where(shopprint.UID(id)).Select(shopprint.FieldShopOrderID).Only(ctx)
	if err != nil {
		return nil, notFound(err, "print %q not found", id)
	}
	row, err := c.ShopOrder.Get(ctx, p.ShopOrderID)
	if err != nil {
		return nil, err
	}
	lines, err := c.ShopPrint.Query().Where(shopprint.ShopOrderID(row.ID)).Order(ent.Asc(shopprint.FieldPosition)).
		WithOrder(withShopOrderRefs).All(ctx)
	if err != nil {
		return nil, err
	}
	o := &prints.Order{Family: prints.FamilyB, TeamID: row.TeamID, StoreID: row.StoreID, CreatedAt: row.CreatedAt.UTC(),
		ReferenceNumber: row.ReferenceNumber, ExternalID: row.ExternalID}
	for _, l := range lines {
		o.Prints = append(o.Prints, printOfShop(l))
	}
	return o, nil
}

// orderA reads the Family A order id and its items' prints.
func (s *Prints) orderA(ctx context.Context, id int) (*prints.Order, error) {
	row, err := s.db.read.Order.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	a, err := orderFromRow(row, nil)
	if err != nil {
		return nil, err
	}
	items, err := s.db.read.OrderItem.Query().Where(orderitem.OrderID(id)).Order(ent.Asc(orderitem.FieldPosition)).
		Select(itemPrintFields...).WithOrder(withOrderRefs).All(ctx)
	if err != nil {
		return nil, err
	}
	o := &prints.Order{Family: prints.FamilyA, TeamID: row.TeamID, StoreID: row.StoreID, CreatedAt: row.CreatedAt.UTC(), A: a}
	for _, it := range items {
		o.Prints = append(o.Prints, printOfItem(it))
	}
	return o, s.markBatched(ctx, o.Prints)
}

// RetryPrint renders a failed print again.
func (s *Prints) RetryPrint(ctx context.Context, id string, operatorID int, check func(*prints.Print) error) (*prints.Print, error) {
	return s.act(ctx, id, prints.Retry(), operatorID, check)
}

// FlagPrint fails a print with the operator's reason.
func (s *Prints) FlagPrint(ctx context.Context, id, reason string, operatorID int, check func(*prints.Print) error) (*prints.Print, error) {
	return s.act(ctx, id, prints.Flag(reason), operatorID, check)
}

// CancelPrint cancels a print (see prints.Cancel).
func (s *Prints) CancelPrint(ctx context.Context, id string, operatorID int, check func(*prints.Print) error) (*prints.Print, error) {
	return s.act(ctx, id, prints.Cancel(), operatorID, check)
}

// act records the operator's action a on print id in a transaction,
// applies it and returns the print as it is then.
func (s *Prints) act(ctx context.Context, id string, a prints.Action, operatorID int, check func(*prints.Print) error) (*prints.Print, error) {
	var out *prints.Print
	err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		if err := record(ctx, tx, a.Kind, a.Reason, &operatorID, id); err != nil {
			return err
		}
		if err := s.apply(ctx, tx, id, a, check); err != nil {
			return err
		}
		// The answer is the print as this action left it, read before the
		// commit: once committed, a woken render may change it at once.
		var err error
		out, err = s.getPrint(ctx, tx.Client(), id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// apply finds print id in tx, lets check refuse it, and writes what a
// makes of it (see prints.Action.On).
func (s *Prints) apply(ctx context.Context, tx *Tx, id string, a prints.Action, check func(*prints.Print) error) error {
	item, err := tx.OrderItem.Query().Where(orderitem.UID(id)).WithOrder(withOrderRefs).Only(ctx)
	if err == nil {
		outcome, err := decide(printOfItem(item), a, check)
		if err != nil {
			return err
		}
		return s.writeItem(ctx, tx, item, outcome)
	}
	if !ent.IsNotFound(err) {
		return err
	}
	p, err := tx.ShopPrint.Query().Where(shopprint.UID(id)).WithOrder(withShopOrderRefs).Only(ctx)
	if err != nil {
		return notFound(err, "print %q not found", id)
	}
	outcome, err := decide(printOfShop(p), a, check)
	if err != nil {
		return err
	}
	return s.writeShop(ctx, tx, p, outcome)
}

// decide lets check refuse p, then returns the outcome of a on it.
func decide(p *prints.Print, a prints.Action, check func(*prints.Print) error) (prints.Outcome, error) {
	if err := check(p); err != nil {
		return prints.Outcome{}, err
	}
	return a.On(p.Family, p.Status)
}

// writeItem writes outcome o on an item's print (read with its order, see
// withOrderRefs): the print loses its file and its job, and gets the
// render o queues; its dropped job and files, and its store's notice, go
// in the same transaction.
func (s *Prints) writeItem(ctx context.Context, tx *Tx, it *ent.OrderItem, o prints.Outcome) error {
	work := &printWork{team: it.TeamID}
	if o.Drop {
		work.DropItem(itemPrintOf(it))
	}
	if o.Render {
		work.render = []*orders.Item{{UID: it.UID}}
	}
	if err := s.jobs.enqueue(ctx, tx, work); err != nil {
		return err
	}
	u := it.Update().SetPrintStatus(o.Status).ClearPrintFileKey().ClearPrintFileSize().ClearPrintFileSha256()
	setOrClear(o.Error, u.SetPrintError, u.ClearPrintError)
	setOrClear(stopColumn(o.Stop), u.SetPrintStoppedBy, u.ClearPrintStoppedBy)
	var job *int64
	if o.Render {
		job = work.render[0].Print.JobID
	}
	setOrClear(job, u.SetPrintJobID, u.ClearPrintJobID)
	if err := u.Exec(ctx); err != nil {
		return err
	}
	if !o.Notify {
		return nil
	}
	notice, ok := renderjobs.ItemFailed(noticeItem(it), *o.Error)
	if !ok {
		return nil
	}
	return s.jobs.notify(ctx, tx, notice)
}

// writeShop writes outcome o on a shop print (read with its order's
// references, see withShopOrderRefs): the print loses its files and its
// job, and gets the render o queues; its dropped job and files go in the
// same transaction.
func (s *Prints) writeShop(ctx context.Context, tx *Tx, p *ent.ShopPrint, o prints.Outcome) error {
	if o.Drop {
		var c renderjobs.Cleanup
		c.DropShop(shopPrintOf(p, p.UID))
		if err := s.jobs.clean(ctx, tx, &c); err != nil {
			return err
		}
	}
	u := p.Update().SetStatus(o.Status).ClearFileKeys().ClearFileDigests().SetFileCount(0).ClearRenderStartedAt()
	// One assignment to each column: PostgreSQL refuses an UPDATE that
	// sets a column twice (SQLite takes the last).
	setOrClear(o.Error, u.SetError, u.ClearError)
	setOrClear(stopColumn(o.Stop), u.SetStoppedBy, u.ClearStoppedBy)
	var job *int64
	if o.Render {
		jobs, err := s.jobs.enqueueShopRenders(ctx, tx, p.TeamID, []string{p.UID})
		if err != nil {
			return err
		}
		job = &jobs[0]
	}
	setOrClear(job, u.SetJobID, u.ClearJobID)
	return u.Exec(ctx)
}

// CancelShopPrint cancels a Family B print for `platen admin print
// cancel`, as CancelPrint does but for no operator: its pending render is
// cancelled, its files are removed, and its status is cancelled for good
// (a render still running then finds it no longer owns the print). A
// print cancelled already stays as it is.
func (s *Prints) CancelShopPrint(ctx context.Context, printUID string) (status string, err error) {
	err = s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		p, err := tx.ShopPrint.Query().Where(shopprint.UID(printUID)).WithOrder(withShopOrderRefs).Only(ctx)
		if err != nil {
			return notFound(err, "print %q not found", printUID)
		}
		status = p.Status
		if prints.Final(prints.FamilyB, p.Status) {
			return nil
		}
		a := prints.Cancel()
		outcome, err := a.On(prints.FamilyB, p.Status)
		if err != nil {
			return err
		}
		if err := record(ctx, tx, a.Kind, nil, nil, printUID); err != nil {
			return err
		}
		status = outcome.Status
		return s.writeShop(ctx, tx, p, outcome)
	})
	return status, err
}

// itemPrintOf is an item's print as renderjobs.Cleanup reads it; it is
// read with its order's uid.
func itemPrintOf(it *ent.OrderItem) renderjobs.ItemPrint {
	return renderjobs.ItemPrint{OrderUID: it.Edges.Order.UID, ItemUID: it.UID, JobID: it.PrintJobID, FileKey: it.PrintFileKey}
}

// noticeItem is what an item's notice names; it is read with its order's
// references (see withOrderRefs).
func noticeItem(it *ent.OrderItem) renderjobs.Item {
	return renderjobs.Item{
		TeamID: it.TeamID, StoreID: it.StoreID, OrderUID: it.Edges.Order.UID,
		EcommerceOrderID: it.Edges.Order.EcommerceOrderID, EcommerceOrderItemID: it.EcommerceOrderItemID,
		ItemUID: it.UID, FilesRequested: it.Edges.Order.PrintFilesRequested,
	}
}

// shopPrintOf is the shop print uid (read with its order's
// reference_number) as renderjobs.Cleanup reads it.
func shopPrintOf(p *ent.ShopPrint, uid string) renderjobs.ShopPrint {
	return renderjobs.ShopPrint{Reference: p.Edges.Order.ReferenceNumber, PrintUID: uid, JobID: p.JobID, FileKeys: p.FileKeys}
}

var _ prints.DesignSource = (*Prints)(nil)

// PrintDesign returns the key of a print's design (its item's
// design_hash, or its design version's config_hash), its team and its
// reader.
func (s *Prints) PrintDesign(ctx context.Context, id string) (string, int, func(context.Context) (string, error), error) {
	item, err := s.db.read.OrderItem.Query().Where(orderitem.UID(id)).Select(orderitem.FieldDesignHash, orderitem.FieldTeamID).Only(ctx)
	if err == nil {
		load := func(ctx context.Context) (string, error) {
			design, err := itemDesign(ctx, s.db.read.ItemDesign, item.ID)
			return design, notFound(err, "print %q not found", id)
		}
		if item.DesignHash == nil { // written before design_hash
			config, err := load(ctx)
			return DesignHash(config), item.TeamID, load, err
		}
		return *item.DesignHash, item.TeamID, load, nil
	}
	if !ent.IsNotFound(err) {
		return "", 0, nil, err
	}
	p, err := s.db.read.ShopPrint.Query().Where(shopprint.UID(id)).Select(shopprint.FieldTeamID, shopprint.FieldDesignVersionID).Only(ctx)
	if err != nil {
		return "", 0, nil, notFound(err, "print %q not found", id)
	}
	v, err := s.db.read.DesignVersion.Query().
		Where(designversion.TeamID(p.TeamID), designversion.VersionID(p.DesignVersionID)).Select(designversion.FieldConfigHash).Only(ctx)
	if err != nil {
		return "", 0, nil, notFound(err, "design version %q not found", p.DesignVersionID)
	}
	load := func(ctx context.Context) (string, error) {
		return s.db.Catalog().DesignVersionConfig(ctx, p.TeamID, p.DesignVersionID)
	}
	return "version:" + v.ConfigHash, p.TeamID, load, nil
}
