package storage

import (
	"context"
	"database/sql"
	"fmt"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/platen-print/platen/ent"
)

// Tx is a write transaction seen two ways: through Ent, and as the
// database/sql transaction under it, which River needs to insert jobs in
// the same transaction as the change that causes them.
type Tx struct {
	*ent.Tx
	SQL *sql.Tx
	// dialect is the database's, for the statements written by hand.
	dialect string
	// conn is the connection the transaction took (bound.acquire), given
	// back when it ends; nil when it came from the pool itself.
	conn *sql.Conn
	// wakes are the queues this transaction gave jobs, by name, each with
	// the job queue that wakes its workers: once it commits, they are
	// woken rather than left to their next poll.
	wakes map[string]JobQueue
}

// wakeAfterCommit asks for the workers of the queue name to be woken
// through q once tx has committed (see wakeQueues).
func (t *Tx) wakeAfterCommit(q JobQueue, name string) {
	if t.wakes == nil {
		t.wakes = map[string]JobQueue{}
	}
	t.wakes[name] = q
}

// wakeQueues wakes the workers of the queues tx gave jobs, now that it has
// committed: a render or a webhook starts at once, not at the queue's next
// poll, up to 100 ms later.
func wakeQueues(tx *Tx) {
	for name, q := range tx.wakes {
		q.WakeSoon(name)
	}
}

// boundDriver is an Ent driver on a transaction this package begins and
// ends itself: its Tx hands out that transaction, and Commit and Rollback
// are left to the owner of the *sql.Tx.
type boundDriver struct {
	entsql.Conn
	dialect string
}

func (d boundDriver) Dialect() string                        { return d.dialect }
func (d boundDriver) Tx(context.Context) (dialect.Tx, error) { return d, nil }
func (d boundDriver) Commit() error                          { return nil }
func (d boundDriver) Rollback() error                        { return nil }
func (d boundDriver) Close() error                           { return nil }

// uncancellable runs a transaction's statements without their context's
// cancellation, whatever context a caller handed Ent: a statement that
// captured a request's context still cannot be interrupted halfway, which
// on SQLite would roll back the whole transaction, shared with other
// writers by the group commit (see txFunc).
type uncancellable struct{ tx *sql.Tx }

func (u uncancellable) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return u.tx.ExecContext(context.WithoutCancel(ctx), query, args...)
}

func (u uncancellable) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return u.tx.QueryContext(context.WithoutCancel(ctx), query, args...)
}

// begin starts a write transaction on pool; with b (PostgreSQL's bound),
// on a connection taken within the bound (see acquire.go).
func begin(ctx context.Context, pool *sql.DB, b *bound, dialectName string) (*Tx, error) {
	var conn *sql.Conn
	var sqlTx *sql.Tx
	var err error
	if b != nil {
		if conn, err = b.acquire(ctx, pool); err != nil {
			return nil, fmt.Errorf("begin: %w", err)
		}
		sqlTx, err = conn.BeginTx(ctx, nil)
	} else {
		sqlTx, err = pool.BeginTx(ctx, nil)
	}
	if err != nil {
		closeConn(conn)
		return nil, fmt.Errorf("begin: %w", err)
	}
	client := ent.NewClient(ent.Driver(boundDriver{Conn: entsql.Conn{ExecQuerier: uncancellable{sqlTx}}, dialect: dialectName}))
	entTx, err := client.Tx(ctx)
	if err != nil {
		_ = sqlTx.Rollback()
		closeConn(conn)
		return nil, fmt.Errorf("begin: %w", err)
	}
	return &Tx{Tx: entTx, SQL: sqlTx, conn: conn, dialect: dialectName}, nil
}

func closeConn(c *sql.Conn) {
	if c != nil {
		_ = c.Close()
	}
}

// Commit commits the transaction.
func (t *Tx) Commit() error {
	defer closeConn(t.conn)
	return t.SQL.Commit()
}

// Rollback abandons the transaction.
func (t *Tx) Rollback() error {
	defer closeConn(t.conn)
	return t.SQL.Rollback()
}
