package storage

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/platen-print/platen/internal/apierr"
)

// A database cut off without a word (its packets dropped, the connections
// left open) answers nothing, and a call waiting on it would wait as long
// as the operating system keeps the connection: many minutes. The bounded
// driver gives every call to PostgreSQL (connect, begin, statement, the
// rows it reads, commit, rollback) at most the bound the operator set;
// past it pgx closes the connection and the call fails with
// apierr.ErrDatabaseTimeout, which the API answers as 503 with
// Retry-After. Zero leaves calls unbounded, as migrations need.

// bound is the connector's current bound, shared by its connections.
type bound struct{ d atomic.Int64 }

func (b *bound) get() time.Duration { return time.Duration(b.d.Load()) }

// boundedConnector opens pgx connections whose calls are bounded.
type boundedConnector struct {
	driver.Connector
	bound *bound
}

func (c boundedConnector) Connect(ctx context.Context) (driver.Conn, error) {
	callCtx, done := c.bound.call(ctx)
	defer done()
	conn, err := c.Connector.Connect(callCtx)
	if err != nil {
		return nil, c.bound.tag(ctx, callCtx, err)
	}
	pc, ok := conn.(pgxConn)
	if !ok {
		_ = conn.Close()
		return nil, fmt.Errorf("storage: a %T is not pgx's connection", conn)
	}
	return &boundedConn{conn: pc, bound: c.bound}, nil
}

// call derives the context of one call: the caller's, cut at the bound.
func (b *bound) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return b.callWithin(ctx, 0)
}

// pingBound caps the check of a pooled connection (see ResetSession).
const pingBound = time.Second

// callWithin is call cut at most, when positive, if that is shorter.
func (b *bound) callWithin(ctx context.Context, most time.Duration) (context.Context, context.CancelFunc) {
	d := b.get()
	if d <= 0 {
		return ctx, func() {}
	}
	if most > 0 && most < d {
		d = most
	}
	return context.WithTimeoutCause(ctx, d, apierr.ErrDatabaseTimeout)
}

// tag marks err as the database's silence when the call's deadline, not
// the caller's, ended it. A connect_timeout of the URL that fires first
// counts as the database's too.
func (b *bound) tag(caller, call context.Context, err error) error {
	if err == nil || caller.Err() != nil {
		return err
	}
	if context.Cause(call) == apierr.ErrDatabaseTimeout || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w (%s): %w", apierr.ErrDatabaseTimeout, b.get(), err)
	}
	return err
}

// pgxConn is what pgx's stdlib connection offers database/sql.
type pgxConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.NamedValueChecker
	Conn() *pgx.Conn
}

// boundedConn is a pgx connection whose calls are bounded.
type boundedConn struct {
	conn  pgxConn
	bound *bound
}

// Conn is the pgx connection under it, for the job queue's listener.
func (c *boundedConn) Conn() *pgx.Conn { return c.conn.Conn() }

func (c *boundedConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *boundedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	callCtx, done := c.bound.call(ctx)
	defer done()
	st, err := c.conn.PrepareContext(callCtx, query)
	if err != nil {
		return nil, c.bound.tag(ctx, callCtx, retryable(err))
	}
	return &boundedStmt{Stmt: st, conn: c}, nil
}

func (c *boundedConn) Close() error { return c.conn.Close() }

func (c *boundedConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx bounds the BEGIN, and later the COMMIT or ROLLBACK, each on its
// own: pgx ends the transaction with the context it began with, so that
// context's deadline is armed only while one of them runs.
func (c *boundedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	txCtx, cancel := context.WithCancelCause(ctx)
	t := &boundedTx{ctx: txCtx, caller: ctx, cancel: cancel, bound: c.bound}
	stop := t.arm()
	tx, err := c.conn.BeginTx(txCtx, opts)
	stop()
	if err != nil {
		cancel(nil)
		// A BEGIN that failed on a connection the network closed did
		// nothing: database/sql takes another connection for ErrBadConn.
		return nil, t.tag(retryable(err))
	}
	t.tx = tx
	return t, nil
}

// retryable turns a failure that pgx says happened before anything reached
// the server into driver.ErrBadConn, on which database/sql retries the call
// on another connection (a fresh one after two tries).
func retryable(err error) error {
	if pgconn.SafeToRetry(err) {
		return driver.ErrBadConn
	}
	return err
}

func (c *boundedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	callCtx, done := c.bound.call(ctx)
	defer done()
	res, err := c.conn.ExecContext(callCtx, query, args)
	return res, c.bound.tag(ctx, callCtx, err)
}

// QueryContext bounds the query and the reading of its rows: the call's
// deadline ends when the rows are closed.
func (c *boundedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	callCtx, done := c.bound.call(ctx)
	rows, err := c.conn.QueryContext(callCtx, query, args)
	if err != nil {
		done()
		return nil, c.bound.tag(ctx, callCtx, err)
	}
	return &boundedRows{rows: rows.(pgxRows), caller: ctx, call: callCtx, done: done, bound: c.bound}, nil
}

func (c *boundedConn) Ping(ctx context.Context) error {
	callCtx, done := c.bound.call(ctx)
	defer done()
	return c.bound.tag(ctx, callCtx, c.conn.Ping(callCtx))
}

// ResetSession checks a pooled connection before its reuse: pgx pings one
// idle for over a second. A ping answers in a round trip; one that takes
// pingBound is on a silent network, and database/sql tries the next
// connection, so it must not spend the caller's whole bound.
func (c *boundedConn) ResetSession(ctx context.Context) error {
	callCtx, done := c.bound.callWithin(ctx, pingBound)
	defer done()
	return c.bound.tag(ctx, callCtx, c.conn.ResetSession(callCtx))
}

func (c *boundedConn) CheckNamedValue(v *driver.NamedValue) error { return c.conn.CheckNamedValue(v) }

// boundedTx is a transaction whose commit and rollback are bounded.
type boundedTx struct {
	tx     driver.Tx
	ctx    context.Context // the one pgx began with, and ends with
	caller context.Context
	cancel context.CancelCauseFunc
	bound  *bound
}

// arm ends t's context at the bound from now, unless the returned stop
// is called first.
func (t *boundedTx) arm() (stop func()) {
	d := t.bound.get()
	if d <= 0 {
		return func() {}
	}
	timer := time.AfterFunc(d, func() { t.cancel(apierr.ErrDatabaseTimeout) })
	return func() { timer.Stop() }
}

func (t *boundedTx) tag(err error) error {
	if err == nil || t.caller.Err() != nil {
		return err
	}
	if context.Cause(t.ctx) == apierr.ErrDatabaseTimeout {
		return fmt.Errorf("%w (%s): %w", apierr.ErrDatabaseTimeout, t.bound.get(), err)
	}
	return err
}

func (t *boundedTx) Commit() error   { return t.end(t.tx.Commit) }
func (t *boundedTx) Rollback() error { return t.end(t.tx.Rollback) }

func (t *boundedTx) end(f func() error) error {
	stop := t.arm()
	err := f()
	stop()
	err = t.tag(err)
	t.cancel(nil)
	return err
}

// boundedStmt is a prepared statement whose executions are bounded.
type boundedStmt struct {
	driver.Stmt
	conn *boundedConn
}

func (s *boundedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	callCtx, done := s.conn.bound.call(ctx)
	defer done()
	res, err := s.Stmt.(driver.StmtExecContext).ExecContext(callCtx, args)
	return res, s.conn.bound.tag(ctx, callCtx, err)
}

func (s *boundedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	callCtx, done := s.conn.bound.call(ctx)
	rows, err := s.Stmt.(driver.StmtQueryContext).QueryContext(callCtx, args)
	if err != nil {
		done()
		return nil, s.conn.bound.tag(ctx, callCtx, err)
	}
	return &boundedRows{rows: rows.(pgxRows), caller: ctx, call: callCtx, done: done, bound: s.conn.bound}, nil
}

// pgxRows is what pgx's stdlib rows offer database/sql.
type pgxRows interface {
	driver.Rows
	driver.RowsColumnTypeDatabaseTypeName
	driver.RowsColumnTypeLength
	driver.RowsColumnTypePrecisionScale
	driver.RowsColumnTypeScanType
}

// boundedRows are a query's rows, read within the query's bound.
type boundedRows struct {
	rows   pgxRows
	caller context.Context
	call   context.Context
	done   context.CancelFunc
	bound  *bound
}

func (r *boundedRows) Columns() []string { return r.rows.Columns() }

func (r *boundedRows) Next(dest []driver.Value) error {
	err := r.rows.Next(dest)
	if err == io.EOF { // the end of the rows, which database/sql compares as is
		return err
	}
	return r.bound.tag(r.caller, r.call, err)
}

func (r *boundedRows) Close() error {
	err := r.rows.Close()
	r.done()
	return err
}

func (r *boundedRows) ColumnTypeDatabaseTypeName(i int) string {
	return r.rows.ColumnTypeDatabaseTypeName(i)
}

func (r *boundedRows) ColumnTypeLength(i int) (int64, bool) { return r.rows.ColumnTypeLength(i) }

func (r *boundedRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	return r.rows.ColumnTypePrecisionScale(i)
}

func (r *boundedRows) ColumnTypeScanType(i int) reflect.Type { return r.rows.ColumnTypeScanType(i) }
