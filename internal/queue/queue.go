// Package queue runs Platen's durable jobs (renders, webhook deliveries)
// on River, in the same database as the data: SQLite or PostgreSQL, both
// through database/sql. So a job is inserted in the same transaction as
// the change that causes it, and a crash or restart loses neither.
package queue

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
)

// Config tunes the queue.
type Config struct {
	// Workers is how many jobs run at once in this process; 0 makes an
	// insert-only queue.
	Workers int
	// PollInterval is how often idle workers look for new jobs: neither
	// database/sql driver can listen for them, so this bounds the delay
	// between a commit and its job starting.
	PollInterval time.Duration
	Logger       *slog.Logger
}

// Queue is a River client over database/sql transactions.
type Queue struct {
	client *river.Client[*sql.Tx]
}

func driver(pool *sql.DB, dialect string) (riverdriver.Driver[*sql.Tx], error) {
	switch dialect {
	case "sqlite3", "sqlite":
		return riversqlite.New(pool), nil
	case "postgres":
		return riverdatabasesql.New(pool), nil
	}
	return nil, fmt.Errorf("queue: no River driver for %q", dialect)
}

// Migrate applies River's schema; it is safe on every start.
func Migrate(ctx context.Context, pool *sql.DB, dialect string) error {
	drv, err := driver(pool, dialect)
	if err != nil {
		return err
	}
	m, err := rivermigrate.New(drv, nil)
	if err != nil {
		return fmt.Errorf("queue: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("queue: migrate: %w", err)
	}
	return nil
}

// New returns a queue on pool running the workers' kinds.
func New(pool *sql.DB, dialect string, workers *river.Workers, cfg Config) (*Queue, error) {
	drv, err := driver(pool, dialect)
	if err != nil {
		return nil, err
	}
	rc := &river.Config{Workers: workers, Logger: cfg.Logger, FetchPollInterval: cfg.PollInterval}
	if cfg.PollInterval > 0 {
		rc.FetchCooldown = min(cfg.PollInterval, 100*time.Millisecond)
	}
	if cfg.Workers > 0 {
		rc.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.Workers}}
	}
	client, err := river.NewClient(drv, rc)
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	return &Queue{client: client}, nil
}

// Start starts working jobs; it returns at once.
func (q *Queue) Start(ctx context.Context) error { return q.client.Start(ctx) }

// Stop lets running jobs finish (until ctx ends) and stops.
func (q *Queue) Stop(ctx context.Context) error { return q.client.Stop(ctx) }

// InsertTx adds a job inside tx: it exists only if tx commits.
func (q *Queue) InsertTx(ctx context.Context, tx *sql.Tx, args river.JobArgs, opts *river.InsertOpts) error {
	_, err := q.client.InsertTx(ctx, tx, args, opts)
	return err
}

// Client is the River client, for what the wrappers here do not cover.
func (q *Queue) Client() *river.Client[*sql.Tx] { return q.client }
