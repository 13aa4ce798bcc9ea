package storage_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/prints"
	"github.com/platen-print/platen/internal/shop"
	"github.com/platen-print/platen/internal/storage"
)

// TestStatesFilterAsTheyRead: for a print of each family in every status,
// with and without each operator's stop, started or not, the list
// filtered by a state finds exactly the prints whose state (as the list
// reads it, prints.State) is that state, and the counts agree.
func TestStatesFilterAsTheyRead(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		ctx := context.Background()
		db := migrated(t, b.NewDatabaseURL(t))
		statuses := map[string][]string{
			prints.FamilyA: {orders.PrintReceived, orders.PrintProcessing, orders.PrintProcessingFailed, orders.PrintReady},
			prints.FamilyB: {shop.PrintProcessing, shop.PrintReady, shop.PrintFailed, shop.PrintCancelled},
		}
		n := 0
		for _, family := range []string{prints.FamilyA, prints.FamilyB} {
			for _, status := range statuses[family] {
				for _, stop := range []prints.Stop{prints.StopNone, prints.StopFlagged, prints.StopCancelled} {
					for _, started := range []bool{false, true} {
						n++
						uid := fmt.Sprintf("p%02d", n)
						if err := storage.InsertPrint(ctx, db, family, uid, status, prints.Stage{Stop: stop, Started: started}); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		}
		store := db.PrintsToRead()
		all, _, err := store.ListPrints(ctx, prints.Query{TeamID: 1, PageSize: 500})
		if err != nil || len(all) != n {
			t.Fatalf("list: %d prints, %v; want %d", len(all), err, n)
		}
		want := map[string][]string{}
		for _, p := range all {
			want[p.State()] = append(want[p.State()], p.ID)
		}
		if got := slices.Sorted(maps.Keys(want)); !slices.Equal(got, slices.Sorted(slices.Values(prints.States))) {
			t.Fatalf("the prints are in states %v, want every one of %v", got, prints.States)
		}
		counts, err := store.CountPrints(ctx, prints.Query{TeamID: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, state := range prints.States {
			list, _, err := store.ListPrints(ctx, prints.Query{TeamID: 1, State: state, PageSize: 500})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range list {
				got = append(got, p.ID)
			}
			slices.Sort(got)
			slices.Sort(want[state])
			if !slices.Equal(got, want[state]) {
				t.Errorf("state %s lists %v, want %v", state, got, want[state])
			}
			if counts[state] != len(want[state]) {
				t.Errorf("state %s counts %d, want %d", state, counts[state], len(want[state]))
			}
		}
	})
}

// TestCountsStopAtTheCap: a state with more prints than the cap counts
// the cap, whichever family holds them; one under it counts exactly.
func TestCountsStopAtTheCap(t *testing.T) {
	restore := storage.LowerCountCap(3)
	defer restore()
	ctx := context.Background()
	db := migrated(t, "")
	for i, family := range []string{"A", "A", "B", "B", "A"} {
		if err := storage.InsertPrint(ctx, db, family, fmt.Sprintf("r%d", i), "ready", prints.Stage{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := storage.InsertPrint(ctx, db, "B", "f", "failed", prints.Stage{}); err != nil {
		t.Fatal(err)
	}
	counts, err := db.PrintsToRead().CountPrints(ctx, prints.Query{TeamID: 1})
	if err != nil {
		t.Fatal(err)
	}
	if counts["ready"] != 3 || counts["failed"] != 1 || counts["queued"] != 0 {
		t.Errorf("counts %v, want ready at the cap (3), failed 1", counts)
	}
}
