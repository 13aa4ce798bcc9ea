package shop

import (
	"context"
	"net/http"

	"google.golang.org/protobuf/types/known/wrapperspb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/httpstatus"
)

// FileLinks signs the download links of ready prints' files.
type FileLinks interface {
	// ShopFileURLs returns fresh links to the files of the order with that
	// reference_number: file index (from 1) of a print.
	ShopFileURLs(reference string) func(printUID string, index int) string
}

// Service implements platenv1.ShopServiceServer on a Store.
type Service struct {
	platenv1.UnimplementedShopServiceServer
	store Store
	links FileLinks
}

// NewService returns the shop service backed by store, signing file links
// with links.
func NewService(store Store, links FileLinks) *Service {
	return &Service{store: store, links: links}
}

// storeOf is the caller's store: Family B needs a token bound to one.
func storeOf(ctx context.Context) (auth.Principal, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return p, err
	}
	if p.StoreID == "" {
		return p, apierr.PermissionDenied("", "shop orders need a token bound to a store; this token is team-wide")
	}
	return p, nil
}

// CreateShopOrder records the order and queues a render per line: 201. The
// same external_id again answers the existing order (200) when its lines
// are the same, and 409 when they are not; nothing is created twice.
func (s *Service) CreateShopOrder(ctx context.Context, req *platenv1.CreateShopOrderRequest) (*platenv1.ShopOrderResponse, error) {
	p, err := storeOf(ctx)
	if err != nil {
		return nil, err
	}
	o, err := newOrder(req)
	if err != nil {
		return nil, err
	}
	o.TeamID, o.StoreID = p.TeamID, p.StoreID
	existing, err := s.store.CreateOrder(ctx, o)
	switch {
	case err != nil:
		return nil, err
	case existing == nil:
		if err := httpstatus.Set(ctx, http.StatusCreated); err != nil {
			return nil, err
		}
		return s.toProto(o), nil
	case existing.LinesHash != o.LinesHash:
		return nil, apierr.Conflict("external_id",
			"order %q exists in this store (reference_number %s) with other lines; an order cannot change once created",
			o.ExternalID, existing.ReferenceNumber)
	}
	return s.toProto(existing), nil
}

// GetShopOrder answers the order with fresh download links.
func (s *Service) GetShopOrder(ctx context.Context, req *platenv1.GetShopOrderRequest) (*platenv1.ShopOrderResponse, error) {
	p, err := storeOf(ctx)
	if err != nil {
		return nil, err
	}
	o, err := s.store.GetOrder(ctx, p.StoreID, req.OrderRef)
	if err != nil {
		return nil, err
	}
	return s.toProto(o), nil
}

func (s *Service) toProto(o *Order) *platenv1.ShopOrderResponse {
	out := &platenv1.ShopOrder{
		ReferenceNumber: o.ReferenceNumber,
		ExternalId:      o.ExternalID,
		Lines:           make([]*platenv1.ShopOrderLine, len(o.Lines)),
	}
	fileURL := s.links.ShopFileURLs(o.ReferenceNumber)
	for i, l := range o.Lines {
		out.Lines[i] = &platenv1.ShopOrderLine{
			ExternalId:      l.ExternalID,
			DesignVersionId: l.DesignVersionID,
			Quantity:        int32(l.Quantity),
			Prints: []*platenv1.ShopPrint{{
				Id:       l.Print.UID,
				Status:   l.Print.Status,
				Files:    printFiles(l, fileURL),
				Error:    failure(l.Print),
				Warnings: files.WarningsProto(l.Print.Status == PrintReady, l.Print.Warnings),
			}},
		}
	}
	return &platenv1.ShopOrderResponse{Data: out}
}

// failure is why a failed print failed; null for any other status.
func failure(p Print) *wrapperspb.StringValue {
	if p.Status != PrintFailed || p.Error == nil {
		return nil
	}
	return wrapperspb.String(*p.Error)
}

// files lists a ready print's files with their links; none otherwise.
func printFiles(l Line, fileURL func(printUID string, index int) string) []*platenv1.ShopPrintFile {
	if l.Print.Status != PrintReady {
		return []*platenv1.ShopPrintFile{}
	}
	out := make([]*platenv1.ShopPrintFile, l.Print.Files)
	for i := range out {
		d := files.DigestAt(l.Print.Digests, i)
		out[i] = &platenv1.ShopPrintFile{
			Index:  int32(i + 1),
			Type:   "single_file",
			Copies: int32(l.Quantity),
			Url:    fileURL(l.Print.UID, i+1),
			Size:   files.SizeProto(d),
			Sha256: files.SHA256Proto(d),
		}
	}
	return out
}
