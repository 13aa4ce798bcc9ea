package storage

import (
	"context"
	"database/sql"
	"errors"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
)

// The bounded driver (bounded.go) bounds every call to PostgreSQL, but
// not the wait for a connection of the pool, which database/sql does
// before any call. Under a silent database every connection hangs in a
// call for the bound, the queue's workers take each one freed, and a
// request queued behind them waited as long as the silence lasted (12 s
// of a 12 s partition in the cluster test), then succeeded: a hang, not
// the 503 the bound promises. So a request takes its connection within
// the bound too, or fails as the database being unreachable.

// acquire takes a connection of pool for one call or transaction,
// waiting at most the bound; the caller closes it, which gives it back.
func (b *bound) acquire(ctx context.Context, pool *sql.DB) (*sql.Conn, error) {
	waitCtx, done := b.call(ctx)
	defer done()
	conn, err := pool.Conn(waitCtx)
	if err != nil {
		return nil, b.tag(ctx, waitCtx, err)
	}
	return conn, nil
}

// acquiringDriver is an Ent driver on a pool whose calls take their
// connection through bound.acquire.
type acquiringDriver struct {
	*entsql.Driver
	pool  *sql.DB
	bound *bound
}

func newAcquiringDriver(name string, pool *sql.DB, b *bound) dialect.Driver {
	return acquiringDriver{Driver: entsql.OpenDB(name, pool), pool: pool, bound: b}
}

// Exec runs a statement on a connection of its own.
func (d acquiringDriver) Exec(ctx context.Context, query string, args, v any) error {
	conn, err := d.bound.acquire(ctx, d.pool)
	if err != nil {
		return err
	}
	err = entsql.Conn{ExecQuerier: conn}.Exec(ctx, query, args, v)
	return errors.Join(err, conn.Close())
}

// Query runs a query on a connection of its own, given back when its rows
// are closed.
func (d acquiringDriver) Query(ctx context.Context, query string, args, v any) error {
	conn, err := d.bound.acquire(ctx, d.pool)
	if err != nil {
		return err
	}
	if err := (entsql.Conn{ExecQuerier: conn}).Query(ctx, query, args, v); err != nil {
		return errors.Join(err, conn.Close())
	}
	rows := v.(*entsql.Rows) // Conn.Query took it as one
	rows.ColumnScanner = connRows{ColumnScanner: rows.ColumnScanner, conn: conn}
	return nil
}

// connRows gives its connection back when closed.
type connRows struct {
	entsql.ColumnScanner
	conn *sql.Conn
}

func (r connRows) Close() error { return errors.Join(r.ColumnScanner.Close(), r.conn.Close()) }
