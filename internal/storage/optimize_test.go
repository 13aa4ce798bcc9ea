package storage_test

import (
	"context"
	"sort"
	"testing"

	"github.com/platen-print/platen/internal/storage"
)

// TestOptimizeForgetsTinyStatistics: statistics gathered while a table
// held a row or two are dropped (they made the status read's join walk
// every order), and those of a table of real size are kept.
func TestOptimizeForgetsTinyStatistics(t *testing.T) {
	db, err := storage.Open("", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	pool := db.JobPool()
	if _, err := pool.Exec(`ANALYZE`); err != nil { // makes sqlite_stat1
		t.Fatal(err)
	}
	if _, err := pool.Exec(`DELETE FROM sqlite_stat1; INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
		('orders', 'orders_uid_key', '1 1'), ('order_items', 'orderitem_order_id_position', '2 1 1'),
		('order_items', 'order_items_uid_key', '250000 1')`); err != nil {
		t.Fatal(err)
	}
	if err := db.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(`SELECT idx FROM sqlite_stat1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var kept []string
	for rows.Next() {
		var idx string
		if err := rows.Scan(&idx); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, idx)
	}
	sort.Strings(kept)
	if len(kept) != 1 || kept[0] != "order_items_uid_key" {
		t.Errorf("statistics kept: %v; want only the 250,000-row table's", kept)
	}
}
