package storage

import (
	"context"
	"database/sql/driver"
	"errors"
	"reflect"
	"strings"

	"modernc.org/sqlite"
)

// maxCachedStatements bounds each connection's cache. Ent's queries come in
// a few dozen shapes, but a bulk insert or an IN list has a text of its own
// for every length: those (more than maxCachedParams placeholders) are not
// cached, so the cache holds the fixed shapes only.
const (
	maxCachedStatements = 256
	maxCachedParams     = 40
)

// sqliteConnector opens modernc SQLite connections that keep their prepared
// statements. modernc compiles every query again on each Exec or Query; the
// profile of order creation put a fifth of the single writer's time there.
// Ent's SQL text is stable for a given shape of query, so caching by text
// makes each shape compile once per connection.
type sqliteConnector struct {
	dsn    string
	driver *sqlite.Driver
}

func (c *sqliteConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.driver.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	inner, ok := conn.(innerConn)
	if !ok {
		conn.Close()
		return nil, errors.New("storage: the sqlite driver's connection lacks the context interfaces")
	}
	return &cachingConn{innerConn: inner, stmts: make(map[string]*cachedStmt)}, nil
}

func (c *sqliteConnector) Driver() driver.Driver { return c.driver }

// innerConn is what modernc's connection implements and database/sql uses.
type innerConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// cachingConn is one connection with its statements. database/sql hands a
// connection to one goroutine at a time, so the map needs no lock.
type cachingConn struct {
	innerConn
	stmts map[string]*cachedStmt
}

type cachedStmt struct {
	stmt driver.Stmt
	// busy is set while rows of the statement are open; a query needing
	// the same statement meanwhile takes the uncached path.
	busy bool
}

// acquire returns the statement for query, preparing it on first use, or
// nil when it cannot be cached (scripts, a busy statement, a full cache,
// or text that does not prepare: the uncached path then reports the error).
func (c *cachingConn) acquire(ctx context.Context, query string) *cachedStmt {
	if s, ok := c.stmts[query]; ok {
		if s.busy {
			return nil
		}
		s.busy = true
		return s
	}
	if len(c.stmts) >= maxCachedStatements || strings.Contains(query, ";") || strings.Count(query, "?") > maxCachedParams {
		return nil
	}
	stmt, err := c.innerConn.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	s := &cachedStmt{stmt: stmt, busy: true}
	c.stmts[query] = s
	return s
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	s := c.acquire(ctx, query)
	if s == nil {
		return c.innerConn.ExecContext(ctx, query, args)
	}
	defer func() { s.busy = false }()
	return s.stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	s := c.acquire(ctx, query)
	if s == nil {
		return c.innerConn.QueryContext(ctx, query, args)
	}
	rows, err := s.stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		s.busy = false
		return nil, err
	}
	return &releasingRows{Rows: rows, stmt: s}, nil
}

func (c *cachingConn) Close() error {
	var errs []error
	for _, s := range c.stmts {
		errs = append(errs, s.stmt.Close())
	}
	c.stmts = nil
	return errors.Join(append(errs, c.innerConn.Close())...)
}

// releasingRows frees its statement for reuse when closed, and passes on
// the column type information the driver's rows offer.
type releasingRows struct {
	driver.Rows
	stmt *cachedStmt
}

func (r *releasingRows) Close() error {
	err := r.Rows.Close()
	r.stmt.busy = false
	return err
}

func (r *releasingRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *releasingRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}

func (r *releasingRows) ColumnTypeNullable(i int) (nullable, ok bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *releasingRows) ColumnTypeLength(i int) (int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeLength); ok {
		return t.ColumnTypeLength(i)
	}
	return 0, false
}
