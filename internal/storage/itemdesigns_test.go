package storage_test

import (
	"context"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/storage"
)

// TestItemDesignsMoveOutOfOrderItems: a database from before item_designs,
// its designs in order_items' template_config column (an item's
// design_bytes unset, as items written before that column), migrates when
// a newer process starts: every item reads back its own design (an order,
// an item's design for previews, a print's design), design_bytes is
// filled in, the column is gone, and a second start changes nothing.
// Deleting an order, and an update dropping an item, delete their designs.
func TestItemDesignsMoveOutOfOrderItems(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		ctx := context.Background()
		databaseURL, dir := b.NewDatabaseURL(t), t.TempDir()
		open := func() (*storage.DB, int) {
			t.Helper()
			db, err := storage.Open(databaseURL, dir)
			if err != nil {
				t.Fatal(err)
			}
			changes, err := db.MigrateCounting(ctx)
			if err != nil {
				db.Close()
				t.Fatal(err)
			}
			return db, changes
		}
		exec := func(db *storage.DB, statements ...string) {
			t.Helper()
			for _, s := range statements {
				if _, err := db.JobPool().ExecContext(ctx, s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
		}
		count := func(db *storage.DB, query string) int {
			t.Helper()
			var n int
			if err := db.JobPool().QueryRowContext(ctx, query).Scan(&n); err != nil {
				t.Fatalf("%s: %v", query, err)
			}
			return n
		}
		design := func(i int) string { return `{"n":` + strings.Repeat("1", 1000*i+1) + `}` }

		db, _ := open()
		o := &orders.Order{TeamID: 1, StoreID: "s", EcommerceOrderID: "ORD-1"}
		for i := range 3 {
			o.Items = append(o.Items, orders.Item{EcommerceOrderItemID: "line-" + string(rune('a'+i)), EcommerceVariantID: "v",
				Quantity: 1, TemplateConfig: design(i), Thumbnails: []string{}, Print: orders.PrintFile{Status: orders.PrintReceived}})
		}
		if err := db.Orders().CreateOrder(ctx, o); err != nil {
			t.Fatal(err)
		}
		// As the database of an older release: the designs inline, the
		// first item's size unknown.
		exec(db, "ALTER TABLE order_items ADD COLUMN template_config TEXT",
			"UPDATE order_items SET template_config = (SELECT d.template_config FROM item_designs d WHERE d.id = order_items.id)",
			"UPDATE order_items SET design_bytes = NULL WHERE position = 0",
			"DELETE FROM item_designs")
		db.Close()

		db, changes := open()
		if changes == 0 {
			t.Error("the migration reports no change; it moved the designs")
		}
		if n := count(db, "SELECT count(*) FROM item_designs"); n != 3 {
			t.Errorf("item_designs holds %d designs after the migration, want 3", n)
		}
		if n := count(db, "SELECT count(*) FROM order_items WHERE design_bytes IS NULL"); n != 0 {
			t.Errorf("%d items without design_bytes after the migration", n)
		}
		got, err := db.Orders().GetOrder(ctx, orders.Scope{TeamID: 1}, o.UID)
		if err != nil {
			t.Fatal(err)
		}
		for i, it := range got.Items {
			if it.TemplateConfig != design(i) {
				t.Errorf("item %d's design after the migration: %d bytes, want its own %d", i, len(it.TemplateConfig), len(design(i)))
			}
			doc, _, err := db.Catalog().OrderItemDesign(ctx, auth.Principal{TeamID: 1}, it.UID)
			if err != nil || doc != design(i) {
				t.Errorf("item %d's design for a preview: %d bytes, %v", i, len(doc), err)
			}
			_, _, load, err := db.PrintsToRead().PrintDesign(ctx, it.UID)
			if err != nil {
				t.Fatal(err)
			}
			if doc, err := load(ctx); err != nil || doc != design(i) {
				t.Errorf("print %d's design: %d bytes, %v", i, len(doc), err)
			}
		}
		exec(db, "SELECT id FROM order_items") // the table reads without the column
		db.Close()

		db, changes = open()
		defer db.Close()
		if changes != 0 {
			t.Errorf("a second start changed the schema %d times, want 0", changes)
		}
		if _, err := db.Orders().UpdateOrder(ctx, orders.Scope{TeamID: 1}, o.UID, func(o *orders.Order) error {
			o.Items = o.Items[1:]
			o.Items[0].TemplateConfig = design(5)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if n := count(db, "SELECT count(*) FROM item_designs"); n != 2 {
			t.Errorf("item_designs holds %d designs after an update dropped an item, want 2", n)
		}
		got, err = db.Orders().GetOrder(ctx, orders.Scope{TeamID: 1}, o.UID)
		if err != nil || len(got.Items) != 2 || got.Items[0].TemplateConfig != design(5) || got.Items[1].TemplateConfig != design(2) {
			t.Fatalf("the order after the update: %+v, %v", got, err)
		}
		if err := db.Orders().DeleteOrder(ctx, orders.Scope{TeamID: 1}, o.UID); err != nil {
			t.Fatal(err)
		}
		if n := count(db, "SELECT count(*) FROM item_designs"); n != 0 {
			t.Errorf("item_designs holds %d designs after the order was deleted, want 0", n)
		}
	})
}
