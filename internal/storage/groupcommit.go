package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"entgo.io/ent/dialect"
)

// maxGroup bounds how many write transactions share one commit.
const maxGroup = 64

// groupCommitter runs SQLite's write transactions. SQLite has one writer at
// a time, and the profile of order creation showed a quarter of the
// writer's time in COMMIT; so transactions that arrive while another
// commits are run together in one database transaction, each in a SAVEPOINT
// of its own. A transaction that fails rolls back to its savepoint, alone:
// the others commit. Each caller learns its own outcome only after the
// shared COMMIT, so nothing is reported written that is not.
type groupCommitter struct {
	pool  *sql.DB
	queue chan *writeOp

	// mu guards closed; queued counts ops accepted and not yet answered,
	// so that close can wait for them before the database goes.
	mu     sync.RWMutex
	closed bool
	queued sync.WaitGroup
	done   chan struct{}

	// sharedCommits counts the commits that carried more than one
	// transaction; tests read it to see that group commit happens.
	sharedCommits atomic.Int64
	// committed runs after each commit, with the transaction (its wakes).
	committed func(*Tx)
}

// errClosed answers writes that arrive after shutdown began.
var errClosed = errors.New("storage: the database is closing")

type writeOp struct {
	ctx  context.Context
	fn   txFunc
	done chan error
}

func newGroupCommitter(pool *sql.DB, committed func(*Tx)) *groupCommitter {
	g := &groupCommitter{pool: pool, queue: make(chan *writeOp, maxGroup), done: make(chan struct{}), committed: committed}
	go g.run()
	return g
}

// do runs fn in a write transaction (shared with others) and returns its
// outcome once committed or rolled back. fn is given ctx without its
// cancellation (see txFunc): SQLite answers an interrupted write by rolling
// back the whole transaction, which would take the group's other writes
// with it. Whether the caller still waits is checked before fn runs.
func (g *groupCommitter) do(ctx context.Context, fn txFunc) error {
	op := &writeOp{ctx: ctx, fn: fn, done: make(chan error, 1)}
	g.mu.RLock()
	if g.closed {
		g.mu.RUnlock()
		return errClosed
	}
	g.queued.Add(1)
	g.mu.RUnlock()
	defer g.queued.Done()
	select {
	case g.queue <- op:
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once queued the op runs to its end even if ctx ends meanwhile, so the
	// caller always learns whether its write happened.
	return <-op.done
}

// close refuses new writes, lets the accepted ones finish and stops the
// committer; the database may be closed after it returns.
func (g *groupCommitter) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.queued.Wait()
	close(g.queue)
	<-g.done
}

func (g *groupCommitter) run() {
	defer close(g.done)
	for op := range g.queue {
		group := []*writeOp{op}
	gather:
		for len(group) < maxGroup {
			select {
			case next, ok := <-g.queue:
				if !ok {
					break gather
				}
				group = append(group, next)
			default:
				break gather
			}
		}
		g.commit(group)
	}
}

func (g *groupCommitter) commit(group []*writeOp) {
	results := make([]error, len(group))
	err := g.runGroup(group, results)
	for i, op := range group {
		if results[i] == nil && err != nil {
			results[i] = err
		}
		op.done <- results[i]
	}
}

// runGroup runs every op in one transaction; results gets each op's own
// error, and the returned error is the transaction's (begin or commit).
func (g *groupCommitter) runGroup(group []*writeOp, results []error) error {
	tx, err := begin(context.Background(), g.pool, nil, dialect.SQLite)
	if err != nil {
		return err
	}
	if len(group) == 1 {
		// Alone, an op needs no savepoint: its failure is the transaction's.
		if results[0] = runOp(group[0], tx); results[0] != nil {
			_ = tx.Rollback()
			return nil
		}
	} else {
		for i, op := range group {
			if results[i], err = runInSavepoint(op, tx); err != nil {
				_ = tx.Rollback()
				return err
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if g.committed != nil {
		g.committed(tx)
	}
	if len(group) > 1 {
		g.sharedCommits.Add(1)
	}
	return nil
}

// runInSavepoint runs op so that its failure undoes only its own writes.
// The second result is a failure of the savepoint statements themselves,
// which ends the whole group.
func runInSavepoint(op *writeOp, tx *Tx) (opErr, txErr error) {
	ctx := context.Background()
	if _, err := tx.ExecContext(ctx, "SAVEPOINT platen_op"); err != nil {
		return nil, err
	}
	if opErr = runOp(op, tx); opErr != nil {
		if _, err := tx.ExecContext(ctx, "ROLLBACK TO platen_op"); err != nil {
			return opErr, err
		}
	}
	_, txErr = tx.ExecContext(ctx, "RELEASE platen_op")
	return opErr, txErr
}

// runOp runs one op's function, turning a panic into its error so that
// one bad op cannot take down the committer and everyone queued behind it.
func runOp(op *writeOp, tx *Tx) (err error) {
	if err := op.ctx.Err(); err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("write transaction panicked: %v", p)
		}
	}()
	return op.fn(context.WithoutCancel(op.ctx), tx)
}
