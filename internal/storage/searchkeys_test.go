package storage_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/prints"
	"github.com/platen-print/platen/internal/shop"
	"github.com/platen-print/platen/internal/storage"
)

// TestSearchFindsPrefixesInAnyCase: a search finds the prints whose
// references, or whose order's references and customer, begin with its
// text, whatever the case and accents, and those whose uid, or whose
// order's, is the text; a text shorter than three
// characters finds only equal references; a changed order is found by
// what it now says, not by what it said; a deleted one is not found; and
// orders written straight into the tables are found once the database
// is migrated again.
func TestSearchFindsPrefixesInAnyCase(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		ctx := context.Background()
		db := migrated(t, b.NewDatabaseURL(t))
		str := func(s string) *string { return &s }
		create := func(ecommerceID, itemID string, customer *orders.Customer) *orders.Order {
			t.Helper()
			o := &orders.Order{TeamID: 1, StoreID: "s", EcommerceOrderID: ecommerceID, EcommerceOrderNumber: str("N" + ecommerceID),
				Customer: customer, Items: []orders.Item{{EcommerceOrderItemID: itemID, EcommerceVariantID: "v", Quantity: 1,
					TemplateConfig: "{}", Thumbnails: []string{}, Print: orders.PrintFile{Status: orders.PrintReceived}}}}
			if err := db.Orders().CreateOrder(ctx, o); err != nil {
				t.Fatal(err)
			}
			return o
		}
		ada := create("ORD-4010", "Line-7", &orders.Customer{Email: str("Ada.Lovelace@Example.com"), Name: str("Zoë"), Surname: str("Lovelace")})
		bob := create("ORD-5000", "7", &orders.Customer{Name: str("Bob")})
		if err := storage.InsertVersionAt(ctx, db, 1, "dv-1", time.Now()); err != nil {
			t.Fatal(err)
		}
		shopOrder := &shop.Order{TeamID: 1, StoreID: "s", ExternalID: "Shop-Ext-1", LinesHash: "h",
			Lines: []shop.Line{{ExternalID: "Mug-Left", DesignVersionID: "dv-1", Quantity: 2}}}
		if _, err := db.ShopOrders().CreateOrder(ctx, shopOrder); err != nil {
			t.Fatal(err)
		}
		adaPrint, bobPrint, shopPrint := ada.Items[0].UID, bob.Items[0].UID, shopOrder.Lines[0].Print.UID

		finds := func(text string, want ...string) {
			t.Helper()
			list, _, err := db.PrintsToRead().ListPrints(ctx, prints.Query{TeamID: 1, Search: text, PageSize: 50})
			if err != nil {
				t.Fatalf("search %q: %v", text, err)
			}
			var got []string
			for _, p := range list {
				got = append(got, p.ID)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("search %q finds %v, want %v", text, got, want)
			}
		}
		finds("ord-", adaPrint, bobPrint)
		finds("ORD-401", adaPrint)
		finds("n ord-40")
		finds("nord-40", adaPrint)
		finds("ada.LOVE", adaPrint)
		finds("zoe", adaPrint)
		finds("ZOË  lovelace", adaPrint)
		finds("lovel", adaPrint)
		finds("line-", adaPrint)
		finds("7", bobPrint) // short: equal only, so not Line-7
		finds("li")
		finds(strings.ToUpper(adaPrint), adaPrint) // a uid whole, in any case
		finds(" "+ada.UID, adaPrint)               // an order's uid: its prints
		finds(shopPrint, shopPrint)
		finds(adaPrint[:8]) // uids are not prefixes
		finds(shopOrder.ReferenceNumber[:4], shopPrint)
		finds("shop-ext", shopPrint)
		finds("mug-l", shopPrint)
		finds("DV-1", shopPrint)
		finds("nobody")

		_, err := db.Orders().UpdateOrder(ctx, orders.Scope{TeamID: 1}, ada.UID, func(o *orders.Order) error {
			o.Customer.Email = str("grace@example.org")
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		finds("ada.love")
		finds("grace@", adaPrint)
		finds("line-7", adaPrint)

		if err := db.Orders().DeleteOrder(ctx, orders.Scope{TeamID: 1}, bob.UID); err != nil {
			t.Fatal(err)
		}
		finds("ord-5")

		if err := storage.InsertPrint(ctx, db, prints.FamilyA, "Straight-In", orders.PrintReceived, prints.Stage{}); err != nil {
			t.Fatal(err)
		}
		if err := storage.InsertPrint(ctx, db, prints.FamilyB, "Straight-Shop", shop.PrintProcessing, prints.Stage{}); err != nil {
			t.Fatal(err)
		}
		finds("straight")
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		finds("straight", "Straight-In", "Straight-Shop")
		finds("ref-straight-s", "Straight-Shop")

		// A reference longer than a key keeps: its start finds it, and so
		// does the whole of it (the search is cut as the key is).
		long := strings.Repeat("Žluťoučký kůň ", 12) // 168 characters, 192 bytes
		longOrder := create(long, "long-1", nil)
		finds(strings.ToUpper(long[:40]), longOrder.Items[0].UID)
		finds(long, longOrder.Items[0].UID)
		finds("zlutoucky kun zlutoucky", longOrder.Items[0].UID)
	})
}

// TestAPrintsOrderHoldsEveryPrint: the order of a print of either family
// is its order, with every print of it in order; a print that does not
// exist is not found.
func TestAPrintsOrderHoldsEveryPrint(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		ctx := context.Background()
		db := migrated(t, b.NewDatabaseURL(t))
		if err := storage.InsertVersionAt(ctx, db, 1, "dv-1", time.Now()); err != nil {
			t.Fatal(err)
		}
		o := &shop.Order{TeamID: 1, StoreID: "s", ExternalID: "SO-9", LinesHash: "h", Lines: []shop.Line{
			{ExternalID: "front", DesignVersionID: "dv-1", Quantity: 1}, {ExternalID: "back", DesignVersionID: "dv-1", Quantity: 3}}}
		if _, err := db.ShopOrders().CreateOrder(ctx, o); err != nil {
			t.Fatal(err)
		}
		got, err := db.PrintsToRead().GetPrintOrder(ctx, o.Lines[1].Print.UID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Family != prints.FamilyB || got.ExternalID != "SO-9" || got.ReferenceNumber != o.ReferenceNumber || got.A != nil ||
			len(got.Prints) != 2 || got.Prints[0].LineExternalID != "front" || got.Prints[1].Quantity != 3 {
			t.Errorf("the shop order: %+v", got)
		}
		a := &orders.Order{TeamID: 1, StoreID: "s", EcommerceOrderID: "A-1", Items: []orders.Item{
			{EcommerceOrderItemID: "A-1-1", EcommerceVariantID: "v", Quantity: 1, TemplateConfig: "{}", Thumbnails: []string{}, Print: orders.PrintFile{Status: orders.PrintReceived}},
			{EcommerceOrderItemID: "A-1-2", EcommerceVariantID: "v", Quantity: 2, TemplateConfig: "{}", Thumbnails: []string{}, Print: orders.PrintFile{Status: orders.PrintReceived}}}}
		if err := db.Orders().CreateOrder(ctx, a); err != nil {
			t.Fatal(err)
		}
		got, err = db.PrintsToRead().GetPrintOrder(ctx, a.Items[0].UID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Family != prints.FamilyA || got.A == nil || got.A.EcommerceOrderID != "A-1" || len(got.Prints) != 2 || got.Prints[1].EcommerceOrderItemID != "A-1-2" {
			t.Errorf("the order: %+v", got)
		}
		if _, err := db.PrintsToRead().GetPrintOrder(ctx, "no-such-print"); !errors.Is(err, apierr.ErrNotFound) {
			t.Errorf("no such print: %v", err)
		}
	})
}

// TestBatchesMadeBeforeTheirItemsWereKeptHoldThem: a batch written before
// batch items were kept holds its items once the database is migrated
// again; a failed batch holds none, and of two live ones the newest is
// named.
func TestBatchesMadeBeforeTheirItemsWereKeptHoldThem(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		ctx := context.Background()
		db := migrated(t, b.NewDatabaseURL(t))
		for _, batch := range []struct{ uid, status string }{{"old", "Ready"}, {"newer", "Batching"}, {"failed", "Failed"}} {
			if err := storage.InsertBatch(ctx, db, batch.uid, batch.status, []string{"item-1", "item-" + batch.uid}); err != nil {
				t.Fatal(err)
			}
		}
		if live, err := storage.LiveBatches(ctx, db, []string{"item-1"}); err != nil || len(live) != 0 {
			t.Fatalf("before the migration: %v, %v", live, err)
		}
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		live, err := storage.LiveBatches(ctx, db, []string{"item-1", "item-old", "item-failed", "item-none"})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]string{"item-1": "newer", "item-old": "old"}; !maps.Equal(live, want) {
			t.Errorf("live batches %v, want %v", live, want)
		}
	})
}
