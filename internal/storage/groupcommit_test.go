package storage_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/storage"
)

func openSQLite(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open("", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

func newOrder(teamID int, store, id string, itemIDs ...string) *orders.Order {
	o := &orders.Order{TeamID: teamID, StoreID: store, EcommerceOrderID: id}
	for _, it := range itemIDs {
		o.Items = append(o.Items, orders.Item{EcommerceOrderItemID: it, EcommerceVariantID: "v", Quantity: 1,
			TemplateConfig: "%7B%7D", Thumbnails: []string{"t"}, Print: orders.PrintFile{Status: orders.PrintReceived}})
	}
	return o
}

// Many concurrent creates share commits; those that clash with another
// (same order id, or an item id of another order) fail alone, and every
// success is really stored with all its items.
func TestGroupCommitIsolatesFailures(t *testing.T) {
	db := openSQLite(t)
	ctx := context.Background()
	boot, err := db.Bootstrap(ctx, "acme", "s1", nil)
	if err != nil {
		t.Fatal(err)
	}
	store := db.Orders()
	const n = 200
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// Every fourth order reuses the order id of its predecessor, and
			// every fifth an item id of order 0.
			id := fmt.Sprint(i)
			if i%4 == 3 {
				id = fmt.Sprint(i - 1)
			}
			item := "item-" + fmt.Sprint(i)
			if i%5 == 4 {
				item = "item-0"
			}
			errs[i] = store.CreateOrder(ctx, newOrder(boot.TeamID, "s1", id, item, item+"-b"))
		}(i)
	}
	wg.Wait()
	if shared := storage.SharedCommits(db); shared == 0 {
		t.Errorf("%d concurrent creates, none shared a commit", n)
	}
	created := 0
	for i, err := range errs {
		switch {
		case err == nil:
			created++
		case errors.Is(err, apierr.ErrConflict):
		default:
			t.Errorf("order %d: unexpected error %v", i, err)
		}
	}
	page, _, err := store.ListOrders(ctx, orders.ListQuery{Scope: orders.Scope{TeamID: boot.TeamID}, PageSize: 500})
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != created {
		t.Errorf("%d orders stored, %d creates succeeded", len(page), created)
	}
	if created < n/2 || created == n {
		t.Errorf("created %d of %d: the clashes did not happen as planned", created, n)
	}
	for _, o := range page {
		if len(o.Items) != 2 {
			t.Errorf("order %s has %d items, want 2", o.EcommerceOrderID, len(o.Items))
		}
	}
}

// After Close, writes are refused with an error, not a panic.
func TestWriteAfterClose(t *testing.T) {
	db, err := storage.Open("", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Bootstrap(context.Background(), "acme", "s1", nil); err == nil {
		t.Fatal("a write after Close succeeded")
	}
}
