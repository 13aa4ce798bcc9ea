package storage

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/designversion"
	"github.com/platen-print/platen/ent/schema"
	"github.com/platen-print/platen/ent/shoporder"
	"github.com/platen-print/platen/ent/shopprint"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/prints"
	"github.com/platen-print/platen/internal/renderjobs"
	"github.com/platen-print/platen/internal/shop"
)

// ShopOrders implements shop.Store.
type ShopOrders struct {
	db   *DB
	jobs *Stores
}

var _ shop.Store = (*ShopOrders)(nil)

// referenceAttempts bounds the retries of a reference_number that another
// order drew first (1 chance in about 10^11 each).
const referenceAttempts = 3

// CreateOrder stores the order, its prints and their render jobs in one
// transaction, unless the store holds the external_id already.
func (s *ShopOrders) CreateOrder(ctx context.Context, o *shop.Order) (*shop.Order, error) {
	// A retried create, the common repeat, costs one read.
	if existing, err := s.find(ctx, s.db.read, o.StoreID, o.ExternalID); !errors.Is(err, apierr.ErrNotFound) {
		return existing, err
	}
	for attempt := 1; ; attempt++ {
		err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error { return s.insert(ctx, tx, o) })
		if !ent.IsConstraintError(err) {
			return nil, err
		}
		// A concurrent create of the same external_id won, or the
		// reference_number was taken.
		existing, ferr := s.find(ctx, s.db.write, o.StoreID, o.ExternalID)
		if !errors.Is(ferr, apierr.ErrNotFound) || attempt == referenceAttempts {
			return existing, ferr
		}
	}
}

// insert writes the order and queues a render per print.
func (s *ShopOrders) insert(ctx context.Context, tx *Tx, o *shop.Order) error {
	if err := checkDesignVersions(ctx, tx, o); err != nil {
		return err
	}
	o.ReferenceNumber = newReference()
	row, err := tx.ShopOrder.Create().
		SetTeamID(o.TeamID).SetStoreID(o.StoreID).SetExternalID(o.ExternalID).
		SetReferenceNumber(o.ReferenceNumber).SetLinesHash(o.LinesHash).Save(ctx)
	if err != nil {
		return err
	}
	o.ID = row.ID
	uids := make([]string, len(o.Lines))
	for i := range o.Lines {
		uids[i] = uuid.NewString()
		o.Lines[i].Print = shop.Print{UID: uids[i], Status: shop.PrintProcessing}
	}
	jobs, err := s.jobs.enqueueShopRenders(ctx, tx, o.TeamID, uids)
	if err != nil {
		return err
	}
	creates := make([]*ent.ShopPrintCreate, len(o.Lines))
	for i, l := range o.Lines {
		creates[i] = tx.ShopPrint.Create().
			SetUID(uids[i]).SetShopOrderID(row.ID).SetTeamID(o.TeamID).SetStoreID(o.StoreID).
			SetPosition(i).SetLineExternalID(l.ExternalID).SetDesignVersionID(l.DesignVersionID).
			SetQuantity(l.Quantity).SetStatus(shop.PrintProcessing).SetJobID(jobs[i])
	}
	rows, err := tx.ShopPrint.CreateBulk(creates...).Save(ctx)
	if err != nil {
		return err
	}
	ids := make([]int, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return writeShopOrderKeys(ctx, tx, o, ids)
}

// checkDesignVersions refuses lines whose design version the team lacks.
func checkDesignVersions(ctx context.Context, tx *Tx, o *shop.Order) error {
	ids := make([]string, 0, len(o.Lines))
	for _, l := range o.Lines {
		ids = append(ids, l.DesignVersionID)
	}
	found, err := tx.DesignVersion.Query().
		Where(designversion.TeamID(o.TeamID), designversion.VersionIDIn(ids...)).
		Select(designversion.FieldVersionID).Strings(ctx)
	if err != nil {
		return err
	}
	have := make(map[string]bool, len(found))
	for _, id := range found {
		have[id] = true
	}
	var vs apierr.Violations
	for i, l := range o.Lines {
		if !have[l.DesignVersionID] {
			vs.Add(fmt.Sprintf("lines[%d].design_version_id", i), "design version %q not found: register it first (POST /api/v1/design-versions)", l.DesignVersionID)
		}
	}
	return vs.Err()
}

// referenceAlphabet has no letters that read like digits (I, L, O, U), so
// a reference read out on the phone is understood.
const referenceAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// newReference is a reference_number: eight random characters of
// referenceAlphabet in two groups, such as "K7QM-3XD9" (40 bits).
func newReference() string {
	var raw [8]byte
	_, _ = rand.Read(raw[:]) // crypto/rand.Read never fails
	out := make([]byte, 0, 9)
	for i, b := range raw {
		if i == 4 {
			out = append(out, '-')
		}
		out = append(out, referenceAlphabet[b%32])
	}
	return string(out)
}

// GetOrder finds the store's order by reference_number, else external_id
// (the polled read: a prepared statement, see hotStatements).
func (s *ShopOrders) GetOrder(ctx context.Context, storeID, ref string) (*shop.Order, error) {
	return s.db.hot.findShopOrder(ctx, storeID, ref)
}

// find loads the store's order with external_id ref, with its lines in
// order.
func (s *ShopOrders) find(ctx context.Context, c *ent.Client, storeID, ref string) (*shop.Order, error) {
	row, err := c.ShopOrder.Query().Where(shoporder.StoreID(storeID), shoporder.ExternalID(ref)).
		WithPrints(func(q *ent.ShopPrintQuery) { q.Order(ent.Asc(shopprint.FieldPosition)) }).
		Only(ctx)
	if err != nil {
		return nil, notFound(err, "shop order %q not found", ref)
	}
	return shopOrderFromRow(row), nil
}

func shopOrderFromRow(row *ent.ShopOrder) *shop.Order {
	o := &shop.Order{
		ID: row.ID, TeamID: row.TeamID, StoreID: row.StoreID, ExternalID: row.ExternalID,
		ReferenceNumber: row.ReferenceNumber, LinesHash: row.LinesHash,
		Lines: make([]shop.Line, len(row.Edges.Prints)),
	}
	for i, p := range row.Edges.Prints {
		o.Lines[i] = shop.Line{
			ExternalID: p.LineExternalID, DesignVersionID: p.DesignVersionID, Quantity: p.Quantity,
			Print: shop.Print{UID: p.UID, Status: p.Status, Files: p.FileCount, Error: p.Error, Digests: shopDigests(p.FileDigests),
				Warnings: p.Warnings},
		}
	}
	return o
}

// ShopPrints implements renderjobs.Store for Family B prints.
type ShopPrints struct {
	db   *DB
	jobs *LinkedStores
}

var _ renderjobs.Store = (*ShopPrints)(nil)

// Task returns what a render of the print needs: its design version's
// document, one PDF per surface.
func (s *ShopPrints) Task(ctx context.Context, printUID string) (*renderjobs.Task, error) {
	p, err := s.db.read.ShopPrint.Query().Where(shopprint.UID(printUID)).
		WithOrder(func(q *ent.ShopOrderQuery) { q.Select(shoporder.FieldReferenceNumber) }).
		Only(ctx)
	if err != nil {
		return nil, notFound(err, "print %q not found", printUID)
	}
	version, err := s.db.read.DesignVersion.Query().
		Where(designversion.TeamID(p.TeamID), designversion.VersionID(p.DesignVersionID)).
		Select(designversion.FieldTemplateConfig).Only(ctx)
	if err != nil {
		return nil, notFound(err, "design version %q not found", p.DesignVersionID)
	}
	return &renderjobs.Task{
		UID:            p.UID,
		KeyPrefix:      renderjobs.ShopKeyPrefix(p.Edges.Order.ReferenceNumber, p.UID),
		PerSurface:     true,
		TeamID:         p.TeamID,
		TemplateConfig: version.TemplateConfig,
		JobID:          p.JobID,
		Finished:       p.Status == shop.PrintReady,
	}, nil
}

// ownedPrint selects the print while jobID owns it.
func ownedPrint(tx *Tx, printUID string, jobID int64) *ent.ShopPrintUpdate {
	return tx.ShopPrint.Update().Where(shopprint.UID(printUID), shopprint.JobID(jobID))
}

// Start notes when the render began, as the history's rendering event
// (the print is processing from its creation: its status does not
// change).
func (s *ShopPrints) Start(ctx context.Context, printUID string, jobID int64) (bool, error) {
	return s.db.update(ctx, func(ctx context.Context, tx *Tx) (int, error) {
		n, err := ownedPrint(tx, printUID, jobID).SetRenderStartedAt(now()).Save(ctx)
		if err != nil || n == 0 {
			return n, err
		}
		return n, record(ctx, tx, prints.EventRendering, nil, nil, printUID)
	})
}

// Finish makes the print ready with its files and their sizes and
// SHA-256s, and queues the removal of those it had before.
func (s *ShopPrints) Finish(ctx context.Context, printUID string, jobID int64, stored []renderjobs.StoredFile, warnings []files.Warning) (bool, error) {
	keys := make([]string, len(stored))
	digests := make([]schema.FileDigest, len(stored))
	for i, f := range stored {
		keys[i], digests[i] = f.Key, schema.FileDigest{Size: f.Size, SHA256: f.SHA256}
	}
	return s.db.update(ctx, func(ctx context.Context, tx *Tx) (int, error) {
		p, err := tx.ShopPrint.Query().Where(shopprint.UID(printUID), shopprint.JobID(jobID)).
			WithOrder(func(q *ent.ShopOrderQuery) {
				q.Select(shoporder.FieldReferenceNumber, shoporder.FieldExternalID)
			}).Only(ctx)
		if ent.IsNotFound(err) {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		var c renderjobs.Cleanup
		c.ShopReady(shopPrintOf(p, printUID), keys)
		if err := s.jobs.clean(ctx, tx, &c); err != nil {
			return 0, err
		}
		n, err := ownedPrint(tx, printUID, jobID).SetStatus(shop.PrintReady).ClearError().SetFileKeys(keys).SetFileDigests(digests).
			SetFileCount(len(keys)).SetWarnings(warnings).Save(ctx)
		if err != nil || n == 0 {
			return n, err
		}
		if err := record(ctx, tx, prints.EventReady, nil, nil, printUID); err != nil {
			return 0, err
		}
		return n, s.jobs.notify(ctx, tx, renderjobs.ShopReady(noticeLine(p), stored, s.jobs.links))
	})
}

// Fail moves the print to failed, keeping the reason for operators.
func (s *ShopPrints) Fail(ctx context.Context, printUID string, jobID int64, reason string) (bool, error) {
	return s.db.update(ctx, func(ctx context.Context, tx *Tx) (int, error) {
		p, err := tx.ShopPrint.Query().Where(shopprint.UID(printUID), shopprint.JobID(jobID)).Select(shopprint.FieldFileKeys).
			WithOrder(withShopOrderRefs).Only(ctx)
		if ent.IsNotFound(err) {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		var c renderjobs.Cleanup
		c.ShopFailed(shopPrintOf(p, printUID), jobID)
		if err := s.jobs.clean(ctx, tx, &c); err != nil {
			return 0, err
		}
		n, err := ownedPrint(tx, printUID, jobID).SetStatus(shop.PrintFailed).SetError(reason).ClearFileKeys().ClearFileDigests().ClearWarnings().
			SetFileCount(0).Save(ctx)
		if err != nil || n == 0 {
			return n, err
		}
		return n, record(ctx, tx, prints.EventFailed, &reason, nil, printUID)
	})
}

// noticeLine is what a shop print's notice names; it is read with its
// order's references (see withShopOrderRefs).
func noticeLine(p *ent.ShopPrint) renderjobs.Line {
	return renderjobs.Line{
		TeamID: p.TeamID, StoreID: p.StoreID, Reference: p.Edges.Order.ReferenceNumber, OrderExternalID: p.Edges.Order.ExternalID,
		PrintUID: p.UID, LineExternalID: p.LineExternalID, DesignVersionID: p.DesignVersionID, Quantity: p.Quantity,
	}
}
