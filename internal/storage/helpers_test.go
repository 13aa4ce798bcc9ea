package storage_test

import (
	"context"
	"testing"

	"github.com/platen-print/platen/internal/storage"
)

// migrated opens the database at databaseURL (the SQLite file in a
// temporary folder when empty), applies the schema, and closes it when
// the test ends.
func migrated(t *testing.T, databaseURL string) *storage.DB {
	t.Helper()
	db, err := storage.Open(databaseURL, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}
