package storage_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/prints"
	"github.com/platen-print/platen/internal/shop"
	"github.com/platen-print/platen/internal/storage"
)

// TestSearchFindsPrefixesInAnyCase: a search finds the prints whose
// references, or whose order's references and customer, begin with its
// text, whatever the case and accents; a text shorter than three
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
		finds(adaPrint[:8], adaPrint)
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
		finds("straight")
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		finds("straight", "Straight-In")
	})
}
