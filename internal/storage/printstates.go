package storage

import (
	"context"

	"github.com/platen-print/platen/ent"
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
// prints.States: one grouped count per family, on the status index.
func (s *Prints) CountPrints(ctx context.Context, q prints.Query) (map[string]int, error) {
	counts := make(map[string]int, len(prints.States))
	for _, state := range prints.States {
		counts[state] = 0
	}
	if q.Family != prints.FamilyB {
		if err := s.countA(ctx, q, counts); err != nil {
			return nil, err
		}
	}
	if q.Family != prints.FamilyA {
		if err := s.countB(ctx, q, counts); err != nil {
			return nil, err
		}
	}
	return counts, nil
}

func (s *Prints) countA(ctx context.Context, q prints.Query, counts map[string]int) error {
	var where []predicate.OrderItem
	if q.TeamID != 0 {
		where = append(where, orderitem.TeamID(q.TeamID))
	}
	if q.StoreID != "" {
		where = append(where, orderitem.StoreID(q.StoreID))
	}
	var rows []struct {
		Status  string  `json:"print_status"`
		Stopped *string `json:"print_stopped_by"`
		Count   int     `json:"count"`
	}
	err := s.db.read.OrderItem.Query().Where(where...).
		GroupBy(orderitem.FieldPrintStatus, orderitem.FieldPrintStoppedBy).Aggregate(ent.Count()).Scan(ctx, &rows)
	if err != nil {
		return err
	}
	for _, r := range rows {
		counts[prints.State(prints.FamilyA, r.Status, prints.Stage{Stop: stopOf(r.Stopped)})] += r.Count
	}
	return nil
}

// countB counts as countA does; a processing print's state also depends
// on whether its render started, which a second count of the few
// processing prints tells.
func (s *Prints) countB(ctx context.Context, q prints.Query, counts map[string]int) error {
	var where []predicate.ShopPrint
	if q.TeamID != 0 {
		where = append(where, shopprint.TeamID(q.TeamID))
	}
	if q.StoreID != "" {
		where = append(where, shopprint.StoreID(q.StoreID))
	}
	var rows []struct {
		Status  string  `json:"status"`
		Stopped *string `json:"stopped_by"`
		Count   int     `json:"count"`
	}
	err := s.db.read.ShopPrint.Query().Where(where...).
		GroupBy(shopprint.FieldStatus, shopprint.FieldStoppedBy).Aggregate(ent.Count()).Scan(ctx, &rows)
	if err != nil {
		return err
	}
	processing := 0
	for _, r := range rows {
		if r.Status == shop.PrintProcessing {
			processing += r.Count
			continue
		}
		counts[prints.State(prints.FamilyB, r.Status, prints.Stage{Stop: stopOf(r.Stopped)})] += r.Count
	}
	if processing == 0 {
		return nil
	}
	started, err := s.db.read.ShopPrint.Query().Where(append(where, stateB[prints.StateRendering])...).Count(ctx)
	if err != nil {
		return err
	}
	counts[prints.StateRendering] += started
	counts[prints.StateQueued] += processing - started
	return nil
}
