// Package storage is Platen's persistence on Ent: it opens the embedded
// SQLite file or PostgreSQL, applies the schema, and implements the store
// interfaces of the domain packages (orders, auth, idempotency, tenancy),
// mapping Ent's errors to apierr's. A DB's own stores only read and write
// rows; the stores whose writes set work going (renders, removals of
// files, webhooks) are made with the job queue that work goes to
// (NewStores). What a change does besides its rows is the domain's to say
// (prints.Action, renderjobs.Cleanup, renderjobs' notices); the stores
// write it in the change's transaction.
package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	atlas "ariga.io/atlas/sql/schema"
	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"entgo.io/ent/dialect/sql/schema"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/designversion"
	"github.com/platen-print/platen/ent/itemdesign"
	"github.com/platen-print/platen/ent/migrate"
	"github.com/platen-print/platen/internal/queue"
)

// DB is an open database: a client for writes and one for reads. On SQLite
// writes go through a single connection, so writers queue in Go instead of
// spinning on SQLite's busy lock, while reads use a pool beside it (WAL lets
// them run during a write). On PostgreSQL both are the same pool.
type DB struct {
	write   *ent.Client
	read    *ent.Client
	dialect string
	pools   []*sql.DB
	// writePool is the connection (SQLite) or pool (PostgreSQL) writes
	// take, where River's jobs live too.
	writePool *sql.DB
	// readPool serves the prepared statements of the hot read paths.
	readPool *sql.DB
	hot      *hotStatements
	// group runs SQLite's write transactions with group commit; nil on
	// PostgreSQL, whose writers run side by side.
	group *groupCommitter
	// checkpoints runs SQLite's WAL checkpoints off the commit path; nil
	// on PostgreSQL.
	checkpoints *checkpointer
	// bound limits each call to PostgreSQL; nil on SQLite.
	bound *bound
	// schema migrates: on PostgreSQL a client on the plain pool, since
	// Ent's migration reads its rows as database/sql's own, which the
	// bounded reads' rows (acquire.go) are not.
	schema *migrate.Schema
}

// SQLiteFile is the embedded database's file name inside the data dir.
const SQLiteFile = "platen.db"

// Open connects to databaseURL; an empty URL means the SQLite file in dataDir.
func Open(databaseURL, dataDir string) (*DB, error) {
	switch {
	case databaseURL == "":
		return openSQLite(filepath.Join(dataDir, SQLiteFile))
	case strings.HasPrefix(databaseURL, "postgres://"), strings.HasPrefix(databaseURL, "postgresql://"):
		return openPostgres(databaseURL)
	case strings.HasPrefix(databaseURL, "sqlite://"):
		return openSQLite(strings.TrimPrefix(databaseURL, "sqlite://"))
	case strings.HasPrefix(databaseURL, "file:"):
		return openSQLite(strings.TrimPrefix(databaseURL, "file:"))
	}
	return nil, fmt.Errorf("database url %q: want postgres://…, sqlite://PATH or empty for the SQLite file in the data dir", databaseURL)
}

// Describe names the database Open(databaseURL, dataDir) opens, for a
// person to read: "SQLite database PATH", or "PostgreSQL database URL"
// without the URL's password and parameters.
func Describe(databaseURL, dataDir string) string {
	switch {
	case databaseURL == "":
		return "SQLite database " + absPath(filepath.Join(dataDir, SQLiteFile))
	case strings.HasPrefix(databaseURL, "sqlite://"):
		return "SQLite database " + absPath(strings.TrimPrefix(databaseURL, "sqlite://"))
	case strings.HasPrefix(databaseURL, "file:"):
		return "SQLite database " + absPath(strings.TrimPrefix(databaseURL, "file:"))
	}
	u, err := url.Parse(databaseURL)
	if err != nil {
		return "PostgreSQL database"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	u.RawQuery, u.Fragment = "", ""
	return "PostgreSQL database " + u.String()
}

// absPath is path made absolute, or path as it is when it cannot be.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// sqlitePragmas: WAL so reads run beside the writer; synchronous NORMAL,
// which in WAL mode keeps every committed transaction across a crash of the
// process (only a power loss can take the last ones); a busy timeout for the
// other processes (admin commands) that share the file.
const sqlitePragmas = "_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)"

// A reader's memory is its page cache and its prepared statements, held in
// SQLite's own allocations outside the Go heap, whose allocator keeps what
// it once held for reuse: the serve's RSS follows the readers' peak, and
// with SQLite's default caches (2 MB each) it rose by 18% over a soak as
// bursts opened readers and their caches filled. A reader's cache is small
// because in WAL mode SQLite empties it whenever another connection has
// committed since the reader's last read, which on a serving database is
// nearly every read: a large cache was filled and thrown away, not reused.
// The writer keeps the default, since its own commits do not empty it. A
// reader idle for readerMaxIdle is closed, giving back its descriptors.
const (
	readerCacheKiB = "-512"
	readerMaxIdle  = time.Minute
)

func openSQLite(path string) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("create database directory: %w", err)
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + sqlitePragmas
	drv := &sqlite.Driver{}
	writer := sql.OpenDB(&sqliteConnector{dsn: dsn + "&_txlock=immediate&_pragma=wal_autocheckpoint(0)", driver: drv})
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxLifetime(0)
	reader := sql.OpenDB(&sqliteConnector{dsn: dsn + "&_pragma=query_only(1)&_pragma=cache_size(" + readerCacheKiB + ")", driver: drv})
	reader.SetMaxOpenConns(8)
	reader.SetMaxIdleConns(8)
	reader.SetConnMaxLifetime(0)
	reader.SetConnMaxIdleTime(readerMaxIdle)
	checkpoints := sql.OpenDB(&sqliteConnector{dsn: dsn, driver: drv})
	checkpoints.SetMaxOpenConns(1)
	write := ent.NewClient(ent.Driver(entsql.OpenDB(dialect.SQLite, writer)))
	db := &DB{
		write:       write,
		writePool:   writer,
		read:        ent.NewClient(ent.Driver(entsql.OpenDB(dialect.SQLite, reader))),
		dialect:     dialect.SQLite,
		pools:       []*sql.DB{writer, reader, checkpoints},
		readPool:    reader,
		checkpoints: newCheckpointer(checkpoints, path),
	}
	db.group = newGroupCommitter(writer, func(tx *Tx) {
		wakeQueues(tx)
		db.checkpoints.committed()
	})
	return db, nil
}

func openPostgres(databaseURL string) (*DB, error) {
	u, err := url.Parse(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("database url: %w", err)
	}
	// Sessions run in UTC, whatever the server's default, so that every
	// timestamp read back is in UTC as the API wants.
	q := u.Query()
	if q.Get("timezone") == "" {
		q.Set("timezone", "UTC")
	}
	// A database that cannot be reached answers a request within this,
	// rather than when the system gives up on the connection (minutes).
	if q.Get("connect_timeout") == "" {
		q.Set("connect_timeout", "5")
	}
	u.RawQuery = q.Encode()
	config, err := pgx.ParseConfig(u.String())
	if err != nil {
		return nil, fmt.Errorf("database url: %w", err)
	}
	config.DialFunc = dialPostgres
	// Platen's queries are short and indexed. PostgreSQL would run some of
	// them (a search matching a few thousand prints) with parallel
	// workers, whose start and cold caches cost more than they save: the
	// operator's search by a surname took 78 ms so and 12 ms without
	// (2 cores, 100,000 prints). A URL that sets it keeps its own.
	if _, set := config.RuntimeParams["max_parallel_workers_per_gather"]; !set {
		config.RuntimeParams["max_parallel_workers_per_gather"] = "0"
	}
	b := &bound{}
	pool := sql.OpenDB(boundedConnector{Connector: stdlib.GetConnector(*config), bound: b})
	pool.SetMaxOpenConns(32)
	pool.SetMaxIdleConns(32)
	client := ent.NewClient(ent.Driver(newAcquiringDriver(dialect.Postgres, pool, b)))
	migrations := ent.NewClient(ent.Driver(entsql.OpenDB(dialect.Postgres, pool)))
	return &DB{write: client, read: client, writePool: pool, dialect: dialect.Postgres, pools: []*sql.DB{pool}, readPool: pool, bound: b,
		schema: migrations.Schema}, nil
}

// BoundCalls bounds every later call to PostgreSQL (connect, statement,
// begin, commit) to d: past it the call fails as the database being
// unreachable (see bounded.go). Zero, the default, leaves them unbounded,
// as migrations need; `platen serve` sets --db-timeout after migrating.
// SQLite, a local file, is never cut off: nothing changes there.
func (db *DB) BoundCalls(d time.Duration) {
	if db.bound != nil {
		db.bound.d.Store(int64(d))
	}
}

// Dialect is "sqlite3" or "postgres".
func (db *DB) Dialect() string { return db.dialect }

// Ping checks that the database answers; /readyz uses it, with CheckWrites.
func (db *DB) Ping(ctx context.Context) error {
	for _, p := range db.pools {
		if err := p.PingContext(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Migrate applies the schema; it is safe to run on every start.
func (db *DB) Migrate(ctx context.Context) error {
	_, err := db.MigrateCounting(ctx)
	return err
}

// entSchemaMu holds one Ent migration at a time in the process: Ent's
// schema.Create writes the generated, package-level table descriptions
// (ent/migrate.Tables) as it plans, so two at once (two servers in one
// test process) race on them.
var entSchemaMu sync.Mutex

func createSchema(ctx context.Context, s *migrate.Schema, opts ...schema.MigrateOption) error {
	entSchemaMu.Lock()
	defer entSchemaMu.Unlock()
	return s.Create(ctx, opts...)
}

// MigrateCounting is Migrate, and returns how many changes it applied (0
// when the schema was up to date): the tables, columns and indexes Ent
// created or altered, the job queue's migrations, and the tables, indexes
// and column settings kept outside Ent that were missing.
func (db *DB) MigrateCounting(ctx context.Context) (int, error) {
	changes := 0
	counted := schema.WithDiffHook(func(next schema.Differ) schema.Differ {
		return schema.DiffFunc(func(current, desired *atlas.Schema) ([]atlas.Change, error) {
			planned, err := next.Diff(current, desired)
			changes += len(planned)
			return planned, err
		})
	})
	schema := db.schema
	if schema == nil {
		schema = db.write.Schema
	}
	// An index the schema no longer has is dropped: each costs every
	// write of its table (the operator's search's old indexes went when
	// search keys came).
	if err := createSchema(ctx, schema, counted, migrate.WithDropIndex(true)); err != nil {
		return 0, fmt.Errorf("apply schema: %w", err)
	}
	steps := []func(context.Context) (int, error){
		func(ctx context.Context) (int, error) { return queue.MigrateCounting(ctx, db.writePool, db.dialect) },
		db.migrateReadiness,
		db.moveItemDesigns,
		db.compressDesignsFast,
		db.indexSearch,
		db.indexBatchItems,
	}
	for _, step := range steps {
		n, err := step(ctx)
		if err != nil {
			return 0, err
		}
		changes += n
	}
	return changes, db.prepare(ctx)
}

// designColumns hold design documents: up to megabytes of base64 images,
// which barely compress.
var designColumns = []string{itemdesign.Table + "." + itemdesign.FieldTemplateConfig, designversion.Table + "." + designversion.FieldTemplateConfig}

// compressDesignsFast has PostgreSQL compress design documents with LZ4
// rather than its default pglz, which spent 25-30 ms of a 1 MB order's
// insert failing to compress the image in it (10 ms with LZ4). A server
// built without LZ4 stores them uncompressed instead. Only new values
// change; nothing is rewritten.
//
// It returns how many columns it changed.
func (db *DB) compressDesignsFast(ctx context.Context) (int, error) {
	if db.dialect != dialect.Postgres {
		return 0, nil
	}
	changed := 0
	for _, column := range designColumns {
		table, name, _ := strings.Cut(column, ".")
		// ALTER TABLE locks the table: every process starts with this, so
		// only the first to find the column unchanged alters it.
		var compression, storage string
		err := db.writePool.QueryRowContext(ctx, `SELECT attcompression::text, attstorage::text FROM pg_attribute
			WHERE attrelid = to_regclass($1) AND attname = $2`, table, name).Scan(&compression, &storage)
		if err != nil {
			return 0, fmt.Errorf("store %s: %w", column, err)
		}
		if compression == "l" || storage == "e" {
			continue
		}
		_, err = db.writePool.ExecContext(ctx, "ALTER TABLE "+table+" ALTER COLUMN "+name+" SET COMPRESSION lz4")
		if err != nil {
			_, err = db.writePool.ExecContext(ctx, "ALTER TABLE "+table+" ALTER COLUMN "+name+" SET STORAGE EXTERNAL")
		}
		if err != nil {
			return 0, fmt.Errorf("store %s: %w", column, err)
		}
		changed++
	}
	return changed, nil
}

// Optimize lets SQLite's query planner know the data: it gathers the
// statistics (ANALYZE, sampled) of every table never analyzed or grown
// well past its last count, as SQLite advises a long-lived process to do
// now and then. Without them the planner takes any equality as selective:
// the operator's search within a team walked the team's every print
// (50 ms at 100,000 prints) rather than the search's index. PostgreSQL
// keeps its own statistics (autovacuum); there it does nothing.
func (db *DB) Optimize(ctx context.Context) error {
	if db.dialect != dialect.SQLite {
		return nil
	}
	if _, err := db.writePool.ExecContext(ctx, "PRAGMA analysis_limit=1000; PRAGMA optimize=0x10002"); err != nil {
		return err
	}
	return db.forgetTinyStatistics(ctx)
}

// tinyTable is the row count under which a table's statistics are dropped.
const tinyTable = 1000

// forgetTinyStatistics drops the statistics of tables that held fewer than
// tinyTable rows when analyzed. A database just started has tables of a
// row or two; their statistics told the planner every lookup finds one row
// and outlived the tables' growth until the next hourly pass: the status
// read's join then walked every order for each item (16,000 → 200 reads a
// second). Without statistics the planner keeps its defaults, which suit a
// growing table; the next pass analyzes the table again.
func (db *DB) forgetTinyStatistics(ctx context.Context) error {
	var tables int
	if err := db.writePool.QueryRowContext(ctx,
		`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_stat1'`).Scan(&tables); err != nil || tables == 0 {
		return err
	}
	res, err := db.writePool.ExecContext(ctx, `DELETE FROM sqlite_stat1 WHERE CAST(stat AS INTEGER) < ?`, tinyTable)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	_, err = db.writePool.ExecContext(ctx, "ANALYZE sqlite_schema") // reloads what is left
	return err
}

// JobPool is the pool the job queue runs on: the one writes take, so that
// jobs are inserted in the transactions of the changes that cause them.
func (db *DB) JobPool() *sql.DB { return db.writePool }

// Close closes every pool.
func (db *DB) Close() error {
	var errs []error
	if db.group != nil {
		db.group.close()
	}
	if db.checkpoints != nil {
		db.checkpoints.close()
	}
	if db.hot != nil {
		errs = append(errs, db.hot.close())
	}
	for _, p := range db.pools {
		errs = append(errs, p.Close())
	}
	return errors.Join(errs...)
}

// txFunc is the body of a write transaction. Its ctx is the caller's
// without the cancellation, and its statements take it: once begun, a
// transaction runs to its end even if the caller goes away, so the caller
// always learns whether its write happened; on SQLite the transaction may
// be shared with other writers (group commit), and an interrupted write
// statement would roll back theirs too. It also spares database/sql and
// modernc a watcher goroutine per statement.
type txFunc func(ctx context.Context, tx *Tx) error

// inTx runs fn in a write transaction, committing when it returns nil. On
// SQLite the transaction may share its commit with others (group commit);
// fn sees only its own writes fail or succeed. A caller gone before its
// transaction begins gets ctx's error, and nothing is written.
func (db *DB) inTx(ctx context.Context, fn txFunc) error {
	if db.group != nil {
		return db.group.do(ctx, fn)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	ctx = context.WithoutCancel(ctx)
	tx, err := begin(ctx, db.writePool, db.bound, db.dialect)
	if err != nil {
		return err
	}
	if err := fn(ctx, tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	wakeQueues(tx)
	return nil
}

// cutPage turns the rows of a query limited to size+1 into a page of at
// most size converted rows, and whether more follow.
func cutPage[R, T any](rows []R, size int, convert func(R) T) ([]T, bool) {
	more := len(rows) > size
	if more {
		rows = rows[:size]
	}
	out := make([]T, len(rows))
	for i, row := range rows {
		out[i] = convert(row)
	}
	return out, more
}
