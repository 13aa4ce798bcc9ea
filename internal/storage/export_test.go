package storage

import (
	"context"
	"database/sql"
	"time"

	"github.com/platen-print/platen/internal/batches"
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
func (db *DB) Orders() *Orders {
	q, err := queue.New(db.writePool, db.dialect, nil, queue.Config{})
	if err != nil {
		panic(err)
	}
	stores, err := NewStores(db, insertOnly{renderjobs.NewJobs(q), webhooks.NewDeliveryJobs(q), batches.NewQueue(q)})
	if err != nil {
		panic(err)
	}
	return stores.Orders()
}

// insertOnly is the stores' job queue on q (see server.JobQueue, which
// this package's tests cannot import).
type insertOnly struct {
	*renderjobs.Jobs
	*webhooks.DeliveryJobs
	*batches.Queue
}
