package orders

import "context"

// Store is the persistence Platen's orders need. Implementations report
// missing orders with apierr.ErrNotFound and uniqueness violations with an
// apierr.Conflict naming the clashing field and the existing order.
type Store interface {
	// StoreTeam returns the team that owns storeID, or apierr.ErrNotFound.
	StoreTeam(ctx context.Context, storeID string) (teamID int, err error)
	// CreateOrder inserts o with its items in one transaction and fills in
	// the ids and timestamps.
	CreateOrder(ctx context.Context, o *Order) error
	// GetOrder returns the order uid visible in scope.
	GetOrder(ctx context.Context, scope Scope, uid string) (*Order, error)
	// ListOrders returns a page of orders, newest first, and whether more follow.
	ListOrders(ctx context.Context, q ListQuery) (page []*Order, more bool, err error)
	// UpdateOrder loads the order, lets apply change it, and writes the
	// result in one transaction: items kept by uid are updated, items
	// without an id are inserted, items no longer present are deleted.
	UpdateOrder(ctx context.Context, scope Scope, uid string, apply func(*Order) error) (*Order, error)
	// RequestPrintFiles marks the order's print files as wanted and queues
	// the renders of its items that have none (or failed), in one
	// transaction.
	RequestPrintFiles(ctx context.Context, scope Scope, uid string) (*Order, error)
	// DeleteOrder removes the order and its items, and cancels their renders.
	DeleteOrder(ctx context.Context, scope Scope, uid string) error
	// FindItemPrints returns the print state of every item visible in scope
	// with this e-commerce item id (one per store at most), in storeID only
	// when it is not empty (the scope's store, when it has one, wins).
	FindItemPrints(ctx context.Context, scope Scope, storeID, ecommerceOrderItemID string) ([]ItemPrint, error)
}
