package storage

import (
	"context"

	"github.com/platen-print/platen/ent/orderitem"
	"github.com/platen-print/platen/ent/predicate"
	"github.com/platen-print/platen/ent/shopprint"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/prints"
	"github.com/platen-print/platen/internal/shop"
)

// stateA and stateB select each family's prints in one of prints.States:
// prints.State's rules as predicates (TestStatesFilterAsTheyRead holds
// them together).
var (
	stateA = map[string]predicate.OrderItem{
		prints.StateQueued:    orderitem.PrintStatus(orders.PrintReceived),
		prints.StateRendering: orderitem.PrintStatus(orders.PrintProcessing),
		prints.StateReady:     orderitem.PrintStatus(orders.PrintReady),
		prints.StateFailed:    orderitem.And(orderitem.PrintStatus(orders.PrintProcessingFailed), orderitem.PrintStoppedByIsNil()),
		prints.StateFlagged:   orderitem.And(orderitem.PrintStatus(orders.PrintProcessingFailed), orderitem.PrintStoppedBy(string(prints.StopFlagged))),
		prints.StateCancelled: orderitem.And(orderitem.PrintStatus(orders.PrintProcessingFailed), orderitem.PrintStoppedBy(string(prints.StopCancelled))),
	}
	stateB = map[string]predicate.ShopPrint{
		prints.StateQueued:    shopprint.And(shopprint.Status(shop.PrintProcessing), shopprint.RenderStartedAtIsNil()),
		prints.StateRendering: shopprint.And(shopprint.Status(shop.PrintProcessing), shopprint.RenderStartedAtNotNil()),
		prints.StateReady:     shopprint.Status(shop.PrintReady),
		prints.StateFailed:    shopprint.And(shopprint.Status(shop.PrintFailed), shopprint.StoppedByIsNil()),
		prints.StateFlagged:   shopprint.And(shopprint.Status(shop.PrintFailed), shopprint.StoppedBy(string(prints.StopFlagged))),
		prints.StateCancelled: shopprint.Or(shopprint.Status(shop.PrintCancelled),
			shopprint.And(shopprint.Status(shop.PrintFailed), shopprint.StoppedBy(string(prints.StopCancelled)))),
	}
)

// stopOf reads a print's stop column.
func stopOf(column *string) prints.Stop {
	if column == nil {
		return prints.StopNone
	}
	return prints.Stop(*column)
}

// stopColumn is what a print's stop column keeps of stop: nil for none.
func stopColumn(stop prints.Stop) *string {
	if stop == prints.StopNone {
		return nil
	}
	s := string(stop)
	return &s
}

// CountPrints counts the prints of q's team, store and family in each of
// prints.States, each up to prints.CountCap: one query a state and family,
// each on the status index, reading at most CountCap+1 ids. An exact
// count of a whole list (100,000 prints, most of them ready) took 200 ms
// on SQLite, on every Prints page; the states that need attention are
// few, and exact.
func (s *Prints) CountPrints(ctx context.Context, q prints.Query) (map[string]int, error) {
	counts := make(map[string]int, len(prints.States))
	for _, state := range prints.States {
		n := 0
		if q.Family != prints.FamilyB {
			ids, err := s.db.read.OrderItem.Query().Where(append(teamStoreA(q), stateA[state])...).Limit(countCap + 1).IDs(ctx)
			if err != nil {
				return nil, err
			}
			n += len(ids)
		}
		if q.Family != prints.FamilyA {
			ids, err := s.db.read.ShopPrint.Query().Where(append(teamStoreB(q), stateB[state])...).Limit(countCap + 1).IDs(ctx)
			if err != nil {
				return nil, err
			}
			n += len(ids)
		}
		counts[state] = min(n, countCap)
	}
	return counts, nil
}

// countCap is prints.CountCap; a test lowers it.
var countCap = prints.CountCap

// teamStoreA and teamStoreB select the prints of q's team and store.
func teamStoreA(q prints.Query) []predicate.OrderItem {
	var where []predicate.OrderItem
	if q.TeamID != 0 {
		where = append(where, orderitem.TeamID(q.TeamID))
	}
	if q.StoreID != "" {
		where = append(where, orderitem.StoreID(q.StoreID))
	}
	return where
}

func teamStoreB(q prints.Query) []predicate.ShopPrint {
	var where []predicate.ShopPrint
	if q.TeamID != 0 {
		where = append(where, shopprint.TeamID(q.TeamID))
	}
	if q.StoreID != "" {
		where = append(where, shopprint.StoreID(q.StoreID))
	}
	return where
}
