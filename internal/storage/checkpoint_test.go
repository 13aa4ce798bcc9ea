package storage_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/storage"
)

// TestCheckpointsRunOffTheCommitPath: the SQLite writer never checkpoints
// in its commits (its automatic checkpoint is off), and once the WAL holds
// more than a thousand pages what it committed still reaches the database
// file soon after, by the checkpointer, with nothing else asking for it.
func TestCheckpointsRunOffTheCommitPath(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := storage.Open("", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var auto int
	if err := db.JobPool().QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&auto); err != nil || auto != 0 {
		t.Fatalf("the writer's automatic checkpoint: %d pages, %v; want 0 (off)", auto, err)
	}
	file := filepath.Join(dir, storage.SQLiteFile)
	size := func() int64 {
		info, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		return info.Size()
	}
	before, runs := size(), storage.Checkpoints(db)
	const designBytes = 5 << 20 // 1,280 pages: past checkpointFrames
	o := &orders.Order{TeamID: 1, StoreID: "s", EcommerceOrderID: "big", Items: []orders.Item{{EcommerceOrderItemID: "1",
		EcommerceVariantID: "v", Quantity: 1, TemplateConfig: `{"x":"` + strings.Repeat("a", designBytes) + `"}`,
		Thumbnails: []string{}, Print: orders.PrintFile{Status: orders.PrintReceived}}}}
	if err := db.Orders().CreateOrder(ctx, o); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for size() < before+designBytes || storage.Checkpoints(db) == runs {
		if time.Now().After(deadline) {
			t.Fatalf("the database file is %d bytes 10 s after a %d-byte design was committed (%d before); checkpoints: %d",
				size(), designBytes, before, storage.Checkpoints(db)-runs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
