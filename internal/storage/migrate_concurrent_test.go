package storage_test

import (
	"sync"
	"testing"

	"github.com/platen-print/platen/internal/storage"
)

// TestMigrationsAtOnceInOneProcess: four databases migrated at the same
// time in one process (as tests running side by side do) all migrate.
// Ent plans a migration in package-level table descriptions, so without
// storage holding one at a time this died with "concurrent map writes"
// (and -race, which make test-race runs here, reports the race).
func TestMigrationsAtOnceInOneProcess(t *testing.T) {
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		db, err := storage.Open("", t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		wg.Go(func() { errs[i] = db.Migrate(t.Context()) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("database %d: %v", i, err)
		}
	}
}
