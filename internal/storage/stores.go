package storage

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/platen-print/platen/ent/store"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/prints"
	"github.com/platen-print/platen/internal/renderjobs"
	"github.com/platen-print/platen/internal/webhooks"
)

// Stores are the stores whose writes set work going: renders, removals of
// stored files and webhook deliveries, each queued on the job queue in the
// transaction of the change that causes it, so that the work exists
// exactly when the change commits. The DB's own stores set none going.
type Stores struct {
	db    *DB
	queue JobQueue
}

// NewStores returns the stores of db that queue their work on queue: the
// queue of `platen serve`, whose workers run it, or an insert-only one
// (admin commands), whose work a serve runs.
func NewStores(db *DB, queue JobQueue) (*Stores, error) {
	switch {
	case db == nil:
		return nil, errors.New("storage: the stores need a database")
	case queue == nil:
		return nil, errors.New("storage: the stores need a job queue")
	}
	return &Stores{db: db, queue: queue}, nil
}

// Orders returns the order store.
func (s *Stores) Orders() *Orders { return &Orders{db: s.db, jobs: s} }

// Prints returns the operator's print store.
func (s *Stores) Prints() *Prints { return &Prints{db: s.db, jobs: s} }

// ShopOrders returns the Family B order store.
func (s *Stores) ShopOrders() *ShopOrders { return &ShopOrders{db: s.db, jobs: s} }

// Deliveries returns the webhook delivery store.
func (s *Stores) Deliveries() *Deliveries { return &Deliveries{db: s.db, jobs: s} }

// LinkedStores are the stores through which render and batch jobs make
// files ready: the events that tell the stores of them carry download
// links, which links signs.
type LinkedStores struct {
	*Stores
	links EventLinks
}

// EventLinks signs the download links events carry (downloads.Links).
type EventLinks interface {
	renderjobs.ItemLinks
	renderjobs.ShopLinks
	BatchFileURL(batchUID string, index int) string
}

// WithLinks returns s whose events carry links signed by links.
func (s *Stores) WithLinks(links EventLinks) (*LinkedStores, error) {
	if links == nil {
		return nil, errors.New("storage: the stores of ready files need download links")
	}
	return &LinkedStores{Stores: s, links: links}, nil
}

// PrintFiles returns the store of order items' print files.
func (s *LinkedStores) PrintFiles() *PrintFiles { return &PrintFiles{db: s.db, jobs: s} }

// ShopPrints returns the Family B print store.
func (s *LinkedStores) ShopPrints() *ShopPrints { return &ShopPrints{db: s.db, jobs: s} }

// Batches returns the batch orders' store.
func (s *LinkedStores) Batches() *Batches { return &Batches{db: s.db, jobs: s} }

// printWork gathers what a write does to render jobs and stored files, so
// that it happens in the write's own transaction at its end.
type printWork struct {
	team   int
	render []*orders.Item // items of team to (re)render; their JobID is set
	renderjobs.Cleanup
}

// queueRender marks it, an item of o, as queued for rendering: received,
// with no error, file or job but the one enqueue gives it.
func (w *printWork) queueRender(o *orders.Order, it *orders.Item) {
	w.team = o.TeamID
	it.Print = orders.PrintFile{Status: orders.PrintReceived}
	w.render = append(w.render, it)
}

// dropItem is Cleanup.DropItem for item itemUID of the order orderUID,
// whose print was p.
func (w *printWork) dropItem(orderUID, itemUID string, p orders.PrintFile) {
	w.DropItem(renderjobs.ItemPrint{OrderUID: orderUID, ItemUID: itemUID, JobID: p.JobID, FileKey: p.FileKey})
}

// enqueue runs w in tx: the clean-up first, then the renders, whose items
// get their job ids (write them after this).
func (s *Stores) enqueue(ctx context.Context, tx *Tx, w *printWork) error {
	if err := s.clean(ctx, tx, &w.Cleanup); err != nil {
		return err
	}
	if len(w.render) == 0 {
		return nil
	}
	uids := make([]string, len(w.render))
	for i, it := range w.render {
		uids[i] = it.UID
	}
	ids, err := s.queue.EnqueueRenders(ctx, tx.SQL, w.team, uids)
	if err != nil {
		return err
	}
	if err := s.queued(ctx, tx, uids); err != nil {
		return err
	}
	for i, it := range w.render {
		it.Print.JobID = &ids[i]
	}
	return nil
}

// enqueueShopRenders queues a render per shop print uid of team in tx, and
// returns their job ids.
func (s *Stores) enqueueShopRenders(ctx context.Context, tx *Tx, team int, uids []string) ([]int64, error) {
	ids, err := s.queue.EnqueueShopRenders(ctx, tx.SQL, team, uids)
	if err != nil {
		return nil, err
	}
	return ids, s.queued(ctx, tx, uids)
}

// queued records that renders of the prints uids were queued in tx, and
// has the render workers woken once it commits.
func (s *Stores) queued(ctx context.Context, tx *Tx, uids []string) error {
	tx.wakeAfterCommit(s.queue, renderjobs.RenderQueue)
	return record(ctx, tx, prints.EventQueued, nil, nil, uids...)
}

// clean cancels c's jobs and queues the removal of its files, in tx.
func (s *Stores) clean(ctx context.Context, tx *Tx, c *renderjobs.Cleanup) error {
	if len(c.Cancel) > 0 {
		if err := s.queue.CancelJobs(ctx, tx.SQL, c.Cancel); err != nil {
			return err
		}
	}
	if len(c.Delete) > 0 || len(c.DeleteUnder) > 0 {
		return s.queue.EnqueueFileDeletes(ctx, tx.SQL, c.Delete, c.DeleteUnder)
	}
	return nil
}

// notify records n for its store's webhook endpoint, and queues its
// delivery, in tx: the event exists exactly when the change it reports
// commits. A store without a webhook URL gets no deliveries.
func (s *Stores) notify(ctx context.Context, tx *Tx, n renderjobs.Notice) error {
	st, err := tx.Store.Query().Where(store.ID(n.StoreID)).Select(store.FieldWebhookURL).Only(ctx)
	if err != nil || st.WebhookURL == nil || *st.WebhookURL == "" {
		return err
	}
	uid := uuid.NewString()
	jobs, err := s.queue.EnqueueDeliveries(ctx, tx.SQL, []string{uid})
	if err != nil {
		return err
	}
	tx.wakeAfterCommit(s.queue, webhooks.Queue)
	return tx.WebhookDelivery.Create().
		SetUID(uid).SetTeamID(n.TeamID).SetStoreID(n.StoreID).SetEvent(n.Event).SetBody(n.Body).
		SetStatus(webhooks.StatusPending).SetNextAttemptAt(now()).SetJobID(jobs[0]).
		Exec(ctx)
}
