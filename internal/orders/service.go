package orders

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/idempotency"
	"github.com/platen-print/platen/internal/pagination"
)

// Service implements platenv1.OrderServiceServer on a Store.
type Service struct {
	platenv1.UnimplementedOrderServiceServer
	store Store

	// storeTeams caches store id → team id; a store never changes team, so
	// an entry never goes stale and order creation skips a read.
	storeTeams sync.Map

	links PrintLinks
}

// PrintLinks signs the download links of ready print files.
type PrintLinks interface {
	// ItemURL is a fresh link to the print file of item itemUID of order
	// orderUID.
	ItemURL(orderUID, itemUID string) string
}

// NewService returns the order service backed by store; links signs the
// url of ready items (nil leaves it null).
func NewService(store Store, links PrintLinks) *Service {
	return &Service{store: store, links: links}
}

func scopeOf(ctx context.Context) (Scope, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return Scope{}, err
	}
	return Scope{TeamID: p.TeamID, StoreID: p.StoreID}, nil
}

// CreateOrder checks the order, that the caller may use its store, and
// stores it with its items in one transaction.
func (s *Service) CreateOrder(ctx context.Context, req *platenv1.CreateOrderRequest) (*platenv1.Order, error) {
	scope, err := scopeOf(ctx)
	if err != nil {
		return nil, err
	}
	o, err := newOrder(req)
	if err != nil {
		return nil, err
	}
	if err := s.checkStore(ctx, scope, o.StoreID); err != nil {
		return nil, err
	}
	o.TeamID = scope.TeamID
	o.IdempotencyToken = idempotency.Token(ctx)
	err = s.store.CreateOrder(ctx, o)
	var before *CreatedBeforeError
	if errors.As(err, &before) {
		return s.createdBefore(ctx, scope, before.UID)
	}
	if err != nil {
		return nil, err
	}
	return s.toProto(o), nil
}

// createdBefore answers a create whose earlier run (same Idempotency-Key,
// same body) made the order but stopped before its key's record got the
// answer: the order as it is now, marked as a replay.
func (s *Service) createdBefore(ctx context.Context, scope Scope, uid string) (*platenv1.Order, error) {
	o, err := s.store.GetOrder(ctx, scope, uid)
	if err != nil {
		return nil, err
	}
	if err := idempotency.MarkReplayed(ctx); err != nil {
		return nil, err
	}
	return s.toProto(o), nil
}

// checkStore answers 403 for a store of another team, one that does not
// exist (existence does not leak), or one the token is not bound to.
func (s *Service) checkStore(ctx context.Context, scope Scope, storeID string) error {
	teamID, err := s.storeTeam(ctx, storeID)
	if errors.Is(err, apierr.ErrNotFound) || (err == nil && teamID != scope.TeamID) {
		return apierr.PermissionDenied("store_id", "store %q is not assigned to your team", storeID)
	}
	if err != nil {
		return err
	}
	if scope.StoreID != "" && scope.StoreID != storeID {
		return apierr.PermissionDenied("store_id", "this token is bound to store %q and cannot act for store %q", scope.StoreID, storeID)
	}
	return nil
}

func (s *Service) storeTeam(ctx context.Context, storeID string) (int, error) {
	if v, ok := s.storeTeams.Load(storeID); ok {
		return v.(int), nil
	}
	teamID, err := s.store.StoreTeam(ctx, storeID)
	if err != nil {
		return 0, err
	}
	s.storeTeams.Store(storeID, teamID)
	return teamID, nil
}

// GetOrder returns the order details.
func (s *Service) GetOrder(ctx context.Context, req *platenv1.GetOrderRequest) (*platenv1.Order, error) {
	scope, err := scopeOf(ctx)
	if err != nil {
		return nil, err
	}
	o, err := s.store.GetOrder(ctx, scope, req.OrderUid)
	if err != nil {
		return nil, err
	}
	return s.toProto(o), nil
}

// ListOrders pages through the caller's orders, newest first.
func (s *Service) ListOrders(ctx context.Context, req *platenv1.ListOrdersRequest) (*platenv1.ListOrdersResponse, error) {
	scope, err := scopeOf(ctx)
	if err != nil {
		return nil, err
	}
	page, err := pagination.Parse(req.PageSize, req.PageToken)
	if err != nil {
		return nil, err
	}
	if req.StoreId != "" {
		if err := s.checkStore(ctx, scope, req.StoreId); err != nil {
			return nil, err
		}
	}
	list, more, err := s.store.ListOrders(ctx, ListQuery{Scope: scope, StoreID: req.StoreId, After: page.After, PageSize: page.Size, ByteBudget: pageBudget})
	if err != nil {
		return nil, err
	}
	resp := &platenv1.ListOrdersResponse{}
	resp.Orders, resp.NextPageToken = pagination.Answer(list, more, s.toProto, func(o *Order) pagination.Cursor {
		return pagination.Cursor{CreatedAt: o.CreatedAt, UID: o.UID}
	})
	return resp, nil
}

// pageBudget bounds one page's bulk: orders can be large (a design document
// per item), and a page of 500 of them would not fit an answer, nor memory.
// A page is cut short at the order that passes the budget;
// next_page_token goes on from there.
const pageBudget = 4 << 20

// UpdateOrder applies a PUT: present fields replace the stored ones.
func (s *Service) UpdateOrder(ctx context.Context, req *platenv1.UpdateOrderRequest) (*platenv1.Order, error) {
	scope, err := scopeOf(ctx)
	if err != nil {
		return nil, err
	}
	u, err := newOrderUpdate(req)
	if err != nil {
		// An order the caller cannot see is 404 whatever the body says.
		if _, getErr := s.store.GetOrder(ctx, scope, req.OrderUid); getErr != nil {
			return nil, getErr
		}
		return nil, err
	}
	o, err := s.store.UpdateOrder(ctx, scope, req.OrderUid, u.apply)
	if err != nil {
		return nil, err
	}
	return s.toProto(o), nil
}

// DeleteOrder removes the order.
func (s *Service) DeleteOrder(ctx context.Context, req *platenv1.DeleteOrderRequest) (*platenv1.DeleteOrderResponse, error) {
	scope, err := scopeOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.store.DeleteOrder(ctx, scope, req.OrderUid); err != nil {
		return nil, err
	}
	return &platenv1.DeleteOrderResponse{Message: DeletedMessage, OrderUid: req.OrderUid}, nil
}

// CreatePrintFiles asks for the print files of an order created with
// create_print_files false: every item not yet rendered or rendering (and
// every failed one, which is tried again) is queued. Asking again is
// harmless.
func (s *Service) CreatePrintFiles(ctx context.Context, req *platenv1.CreatePrintFilesRequest) (*platenv1.Order, error) {
	scope, err := scopeOf(ctx)
	if err != nil {
		return nil, err
	}
	o, err := s.store.RequestPrintFiles(ctx, scope, req.OrderUid)
	if err != nil {
		return nil, err
	}
	return s.toProto(o), nil
}

// GetOrderItemPrint returns one item's print status. The id is unique per
// store; when two of the team's stores hold it, store_id must choose.
func (s *Service) GetOrderItemPrint(ctx context.Context, req *platenv1.GetOrderItemPrintRequest) (*platenv1.OrderItemPrint, error) {
	scope, err := scopeOf(ctx)
	if err != nil {
		return nil, err
	}
	if req.StoreId != "" {
		if err := s.checkStore(ctx, scope, req.StoreId); err != nil {
			return nil, err
		}
	}
	found, err := s.store.FindItemPrints(ctx, scope, req.StoreId, req.EcommerceOrderItemId)
	if err != nil {
		return nil, err
	}
	switch len(found) {
	case 0:
		return nil, apierr.NotFound("order item %q not found", req.EcommerceOrderItemId)
	case 1:
		p := found[0]
		it := &Item{UID: p.ItemUID, Print: p.Print}
		return &platenv1.OrderItemPrint{
			EcommerceOrderItemId: p.EcommerceOrderItemID,
			Status:               p.Print.Status,
			Url:                  s.printURL(p.OrderUID, it),
			Error:                stringValue(p.Print.Error), // set only while processingfailed
			Size:                 files.SizeProto(readyDigest(p.Print)),
			Sha256:               files.SHA256Proto(readyDigest(p.Print)),
			Warnings:             files.WarningsProto(p.Print.Status == PrintReady, p.Print.Warnings),
		}, nil
	default:
		return nil, apierr.Conflict("store_id", "order item %q exists in stores %s: add ?store_id= to choose one",
			req.EcommerceOrderItemId, storeList(found))
	}
}

func storeList(list []ItemPrint) string {
	ids := make([]string, len(list))
	for i, p := range list {
		ids[i] = fmt.Sprintf("%q", p.StoreID)
	}
	sort.Strings(ids)
	return strings.Join(ids, ", ")
}
