package storage_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/platen-print/platen/internal/storage"
)

// SQLite's readers run with a small page cache, read-only, while the writer
// keeps SQLite's default cache: what bounds the serve's memory outside the
// Go heap (see openSQLite).
func TestSQLiteConnectionSettings(t *testing.T) {
	db := openSQLite(t)
	ctx := context.Background()
	pragma := func(pool *sql.DB, name string) int {
		t.Helper()
		var v int
		if err := pool.QueryRowContext(ctx, "PRAGMA "+name).Scan(&v); err != nil {
			t.Fatalf("PRAGMA %s: %v", name, err)
		}
		return v
	}
	readers, writer := storage.ReadPool(db), db.JobPool()
	for _, c := range []struct {
		pool   *sql.DB
		name   string
		pragma string
		want   int
	}{
		{readers, "reader", "cache_size", -512},
		{readers, "reader", "query_only", 1},
		{writer, "writer", "cache_size", -2000},
		{writer, "writer", "query_only", 0},
	} {
		if got := pragma(c.pool, c.pragma); got != c.want {
			t.Errorf("%s: PRAGMA %s = %d, want %d", c.name, c.pragma, got, c.want)
		}
	}
	if _, err := readers.ExecContext(ctx, "CREATE TABLE t (x)"); err == nil {
		t.Error("a reader created a table")
	}
}
