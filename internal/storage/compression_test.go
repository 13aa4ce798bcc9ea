package storage_test

import (
	"context"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/storage"
)

// TestDesignsCompressFast: on PostgreSQL, design documents are stored with
// LZ4 (or uncompressed), not pglz, which spent 25-30 ms of a 1 MB order's
// insert failing to compress its image; SQLite stores text as it is.
func TestDesignsCompressFast(t *testing.T) {
	for _, b := range platentest.Backends() {
		if b.Name != "postgres" {
			continue
		}
		db, err := storage.Open(b.NewDatabaseURL(t), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		ctx := context.Background()
		for range 2 { // and again, as every process's start does
			if err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for _, table := range []string{"item_designs", "design_versions"} {
			var compression, storage string
			err := db.JobPool().QueryRow(`SELECT attcompression::text, attstorage::text FROM pg_attribute
				WHERE attrelid = to_regclass($1) AND attname = 'template_config'`, table).Scan(&compression, &storage)
			if err != nil {
				t.Fatal(err)
			}
			if compression != "l" && storage != "e" {
				t.Errorf("%s.template_config: compression %q, storage %q; want lz4 (l) or external (e)", table, compression, storage)
			}
		}
	}
}
