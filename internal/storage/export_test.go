package storage

import (
	"context"
	"database/sql"
	"time"

	"github.com/platen-print/platen/internal/batches"
	"github.com/platen-print/platen/internal/prints"
	"github.com/platen-print/platen/internal/queue"
	"github.com/platen-print/platen/internal/renderjobs"
	"github.com/platen-print/platen/internal/webhooks"
)

// SharedCommits reports how many SQLite commits carried more than one write
// transaction (group commit); 0 on PostgreSQL, which has no group commit.
func SharedCommits(db *DB) int64 {
	if db.group == nil {
		return 0
	}
	return db.group.sharedCommits.Load()
}

// ReadPool is the pool of SQLite's read-only connections.
func ReadPool(db *DB) *sql.DB { return db.readPool }

// JobPool is the pool writes take (PostgreSQL's only pool).
func JobPool(db *DB) *sql.DB { return db.writePool }

// InsertVersionAt registers a design version created at at, so that a test
// can give rows the same creation time.
func InsertVersionAt(ctx context.Context, db *DB, teamID int, id string, at time.Time) error {
	return db.write.DesignVersion.Create().SetTeamID(teamID).SetVersionID(id).SetTemplateConfig("{}").
		SetConfigHash(id).SetThumbnails([]string{}).SetCreatedAt(at).Exec(ctx)
}

// Orders is the order store on an insert-only job queue, as admin
// commands have it: the jobs its writes queue wait for a serve.
func (db *DB) Orders() *Orders { return db.insertOnlyStores().Orders() }

// ShopOrders is the Family B order store as Orders is Family A's.
func (db *DB) ShopOrders() *ShopOrders { return db.insertOnlyStores().ShopOrders() }

func (db *DB) insertOnlyStores() *Stores {
	q, err := queue.New(db.writePool, db.dialect, nil, queue.Config{})
	if err != nil {
		panic(err)
	}
	stores, err := NewStores(db, insertOnly{renderjobs.NewJobs(q), webhooks.NewDeliveryJobs(q), batches.NewQueue(q)})
	if err != nil {
		panic(err)
	}
	return stores
}

// insertOnly is the stores' job queue on q (see server.JobQueue, which
// this package's tests cannot import).
type insertOnly struct {
	*renderjobs.Jobs
	*webhooks.DeliveryJobs
	*batches.Queue
}

// InsertPrint writes a print of family in status at stage straight into
// its table, in an order of its own of team 1, for tests of what reads
// prints whatever the way to that state.
func InsertPrint(ctx context.Context, db *DB, family, uid, status string, stage prints.Stage) error {
	stop := stopColumn(stage.Stop)
	if family == prints.FamilyA {
		o, err := db.write.Order.Create().SetUID("order-" + uid).SetTeamID(1).SetStoreID("s").SetEcommerceOrderID(uid).Save(ctx)
		if err != nil {
			return err
		}
		it, err := db.write.OrderItem.Create().SetUID(uid).SetOrderID(o.ID).SetTeamID(1).SetStoreID("s").SetPosition(0).
			SetEcommerceOrderItemID(uid).SetEcommerceVariantID("v").SetQuantity(1).
			SetThumbnails([]string{}).SetPrintStatus(status).SetNillablePrintStoppedBy(stop).Save(ctx)
		if err != nil {
			return err
		}
		return db.write.ItemDesign.Create().SetID(it.ID).SetTemplateConfig("{}").Exec(ctx)
	}
	o, err := db.write.ShopOrder.Create().SetTeamID(1).SetStoreID("s").SetExternalID(uid).SetReferenceNumber("ref-" + uid).
		SetLinesHash(uid).Save(ctx)
	if err != nil {
		return err
	}
	c := db.write.ShopPrint.Create().SetUID(uid).SetShopOrderID(o.ID).SetTeamID(1).SetStoreID("s").SetPosition(0).
		SetLineExternalID(uid).SetDesignVersionID("d").SetQuantity(1).SetStatus(status).SetNillableStoppedBy(stop)
	if stage.Started {
		c.SetRenderStartedAt(time.Now())
	}
	return c.Exec(ctx)
}

// PrintsToRead is the prints store for tests that only read it.
func (db *DB) PrintsToRead() *Prints { return &Prints{db: db} }

// LowerCountCap makes CountPrints stop counting at n, until restore.
func LowerCountCap(n int) (restore func()) {
	old := countCap
	countCap = n
	return func() { countCap = old }
}

// InsertBatch writes a batch of team 1 holding items, in status, straight
// into its table, as one made before its items were kept apart.
func InsertBatch(ctx context.Context, db *DB, uid, status string, items []string) error {
	return db.write.BatchOrder.Create().SetUID(uid).SetTeamID(1).SetStoreIds([]string{"s"}).SetStatus(status).
		SetOrderItems(items).SetPrintTemplates([]string{"t"}).SetItemTemplates(make([]int, len(items))).Exec(ctx)
}

// LiveBatches is the batches' store's LiveBatches.
func LiveBatches(ctx context.Context, db *DB, uids []string) (map[string]string, error) {
	return db.liveBatches(ctx, uids)
}

// Checkpoints reports how many WAL checkpoints the SQLite database's
// checkpointer has made.
func Checkpoints(db *DB) int64 { return db.checkpoints.runs.Load() }
