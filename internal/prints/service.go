package prints

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/pagination"
)

// maxReason bounds a flag's reason, which the client reads as the error.
const maxReason = 1000

// Service is the print methods of the operator API.
type Service struct {
	store Store
	links Links
}

// NewService returns the service on store, signing links with links.
func NewService(store Store, links Links) *Service { return &Service{store: store, links: links} }

// ListPrints pages through the prints the caller may see, newest first.
func (s *Service) ListPrints(ctx context.Context, req *platenv1.ListPrintsRequest) (*platenv1.ListPrintsResponse, error) {
	p, err := auth.OperatorFromContext(ctx)
	if err != nil {
		return nil, err
	}
	page, err := pagination.Parse(req.PageSize, req.PageToken)
	if err != nil {
		return nil, err
	}
	q := Query{Status: req.Status, StoreID: req.StoreId, Search: strings.TrimSpace(req.Query), PageSize: page.Size, After: page.After}
	if q.CreatedFrom, q.CreatedBefore, err = createdRange(req); err != nil {
		return nil, err
	}
	if q.TeamID, err = p.ListTeam(req.TeamId); err != nil {
		return nil, err
	}
	if q.Family, err = family(req.Family); err != nil {
		return nil, err
	}
	if q.State, err = state(req.State); err != nil {
		return nil, err
	}
	list, more, err := s.store.ListPrints(ctx, q)
	if err != nil {
		return nil, err
	}
	resp := &platenv1.ListPrintsResponse{}
	resp.Prints, resp.NextPageToken = pagination.Answer(list, more, s.toProto,
		func(pr *Print) pagination.Cursor { return pagination.Cursor{CreatedAt: pr.CreatedAt, UID: pr.ID} })
	return resp, nil
}

// CountPrints counts the prints the caller may see in each state.
func (s *Service) CountPrints(ctx context.Context, req *platenv1.CountPrintsRequest) (*platenv1.PrintCounts, error) {
	p, err := auth.OperatorFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := Query{StoreID: req.StoreId}
	if q.TeamID, err = p.ListTeam(req.TeamId); err != nil {
		return nil, err
	}
	if q.Family, err = family(req.Family); err != nil {
		return nil, err
	}
	counts, err := s.store.CountPrints(ctx, q)
	if err != nil {
		return nil, err
	}
	n := func(state string) int32 { return int32(counts[state]) } //nolint:gosec // counts of a team's prints
	return &platenv1.PrintCounts{
		Queued: n(StateQueued), Rendering: n(StateRendering), Ready: n(StateReady),
		Failed: n(StateFailed), Flagged: n(StateFlagged), Cancelled: n(StateCancelled),
	}, nil
}

// family reads a request's family: "", A or B.
func family(f string) (string, error) {
	switch f {
	case "", FamilyA, FamilyB:
		return f, nil
	}
	return "", apierr.Invalid("family", "must be A or B, got %q", f)
}

// state reads a request's state: "" or one of States.
func state(s string) (string, error) {
	if s == "" || ValidState(s) {
		return s, nil
	}
	return "", apierr.Invalid("state", "must be one of %s, got %q", strings.Join(States, ", "), s)
}

// createdRange reads the request's bounds on creation time.
func createdRange(req *platenv1.ListPrintsRequest) (from, before time.Time, err error) {
	for _, b := range []struct {
		field string
		ts    *timestamppb.Timestamp
		into  *time.Time
	}{{"created_after", req.CreatedAfter, &from}, {"created_before", req.CreatedBefore, &before}} {
		if b.ts == nil {
			continue
		}
		if err := b.ts.CheckValid(); err != nil {
			return from, before, apierr.Invalid(b.field, "must be a valid time: %v", err)
		}
		*b.into = b.ts.AsTime()
	}
	if !from.IsZero() && !before.IsZero() && !from.Before(before) {
		return from, before, apierr.Invalid("created_before", "must be after created_after")
	}
	return from, before, nil
}

// GetPrint returns a print the caller may see; another team's is 404.
func (s *Service) GetPrint(ctx context.Context, req *platenv1.GetPrintRequest) (*platenv1.Print, error) {
	p, err := auth.OperatorFromContext(ctx)
	if err != nil {
		return nil, err
	}
	pr, err := s.store.GetPrint(ctx, req.PrintId)
	if err == nil {
		err = visible(p, req.PrintId)(pr)
	}
	if err != nil {
		return nil, err
	}
	return s.toProto(pr), nil
}

// RetryPrint renders a failed print again.
func (s *Service) RetryPrint(ctx context.Context, req *platenv1.RetryPrintRequest) (*platenv1.Print, error) {
	return s.act(ctx, req.PrintId, s.store.RetryPrint)
}

// FlagPrint fails a print with the operator's reason.
func (s *Service) FlagPrint(ctx context.Context, req *platenv1.FlagPrintRequest) (*platenv1.Print, error) {
	reason := strings.TrimSpace(req.Reason)
	switch {
	case reason == "":
		return nil, apierr.Invalid("reason", "is required: the issue, which the client reads as the print's error")
	case utf8.RuneCountInString(reason) > maxReason:
		return nil, apierr.Invalid("reason", "must be at most %d characters", maxReason)
	}
	return s.act(ctx, req.PrintId, func(ctx context.Context, id string, operatorID int, check func(*Print) error) (*Print, error) {
		return s.store.FlagPrint(ctx, id, reason, operatorID, check)
	})
}

// CancelPrint cancels a print and its pending render.
func (s *Service) CancelPrint(ctx context.Context, req *platenv1.CancelPrintRequest) (*platenv1.Print, error) {
	return s.act(ctx, req.PrintId, s.store.CancelPrint)
}

// act runs an action on a print the caller may see.
func (s *Service) act(ctx context.Context, id string, action func(context.Context, string, int, func(*Print) error) (*Print, error)) (*platenv1.Print, error) {
	p, err := auth.OperatorFromContext(ctx)
	if err != nil {
		return nil, err
	}
	pr, err := action(ctx, id, p.OperatorID, visible(p, id))
	if err != nil {
		return nil, err
	}
	return s.toProto(pr), nil
}

// visible refuses a print of a team the caller does not see as not found,
// as one that does not exist.
func visible(p auth.Principal, id string) func(*Print) error {
	return func(pr *Print) error {
		if !p.SeesTeam(pr.TeamID) {
			return apierr.NotFound("print %q not found", id)
		}
		return nil
	}
}

// GetPrintOrder returns the order of a print the caller may see, with
// every print of it; another team's is 404, as its print is.
func (s *Service) GetPrintOrder(ctx context.Context, req *platenv1.GetPrintOrderRequest) (*platenv1.PrintOrder, error) {
	p, err := auth.OperatorFromContext(ctx)
	if err != nil {
		return nil, err
	}
	o, err := s.store.GetPrintOrder(ctx, req.PrintId)
	if err == nil && !p.SeesTeam(o.TeamID) {
		err = apierr.NotFound("print %q not found", req.PrintId)
	}
	if err != nil {
		return nil, err
	}
	out := &platenv1.PrintOrder{
		Family: o.Family, TeamId: int32(o.TeamID), StoreId: o.StoreID, //nolint:gosec // ids are small
		CreatedAt: timestamppb.New(o.CreatedAt), Prints: make([]*platenv1.Print, len(o.Prints)),
	}
	for i, pr := range o.Prints {
		out.Prints[i] = s.toProto(pr)
	}
	if a := o.A; a != nil {
		out.OrderUid, out.EcommerceOrderId = wrapperspb.String(a.UID), wrapperspb.String(a.EcommerceOrderID)
		out.EcommerceOrderNumber, out.Note, out.CurrencyCode = optional(a.EcommerceOrderNumber), optional(a.Note), optional(a.CurrencyCode)
		out.TotalPrice, out.SubtotalPrice = optionalDouble(a.TotalPrice), optionalDouble(a.SubtotalPrice)
		out.Customer, out.Addresses, out.Shippings = orders.Recipient(a)
		return out, nil
	}
	out.ReferenceNumber, out.ExternalId = wrapperspb.String(o.ReferenceNumber), wrapperspb.String(o.ExternalID)
	return out, nil
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optionalDouble(f *float64) *wrapperspb.DoubleValue {
	if f == nil {
		return nil
	}
	return wrapperspb.Double(*f)
}

// toProto is pr as the operator API shows it, with fresh links to the
// files of a ready print.
func (s *Service) toProto(pr *Print) *platenv1.Print {
	out := &platenv1.Print{
		Id: pr.ID, Family: pr.Family, TeamId: int32(pr.TeamID), StoreId: pr.StoreID, //nolint:gosec // ids are small
		Status: pr.Status, State: pr.State(), Error: optional(pr.Error), DesignVersionId: optional(pr.DesignVersionID),
		BatchUid:  optional(nonEmpty(pr.Batch)),
		Quantity:  int32(pr.Quantity), //nolint:gosec // bounded at create
		Files:     []*platenv1.OperatorPrintFile{},
		Warnings:  files.WarningsProto(pr.Status == "ready", pr.Warnings),
		CreatedAt: timestamppb.New(pr.CreatedAt), UpdatedAt: timestamppb.New(pr.UpdatedAt),
	}
	if pr.Family == FamilyA {
		out.OrderUid, out.EcommerceOrderId = wrapperspb.String(pr.OrderUID), wrapperspb.String(pr.EcommerceOrderID)
		out.EcommerceOrderItemId = wrapperspb.String(pr.EcommerceOrderItemID)
	} else {
		out.ReferenceNumber, out.ExternalId = wrapperspb.String(pr.ReferenceNumber), wrapperspb.String(pr.ExternalID)
		out.LineExternalId = wrapperspb.String(pr.LineExternalID)
	}
	if pr.Status == "ready" {
		out.Files = s.files(pr)
	}
	for _, e := range pr.History {
		out.History = append(out.History, &platenv1.PrintEvent{
			Kind: e.Kind, At: timestamppb.New(e.At), Detail: optional(e.Detail), OperatorEmail: optional(e.OperatorEmail),
		})
	}
	return out
}

func (s *Service) files(pr *Print) []*platenv1.OperatorPrintFile {
	if pr.Family == FamilyA {
		d := files.DigestAt(pr.Digests, 0)
		return []*platenv1.OperatorPrintFile{{Index: 1, Url: s.links.ItemURL(pr.OrderUID, pr.ID), ContentType: "application/pdf",
			Size: files.SizeProto(d), Sha256: files.SHA256Proto(d)}}
	}
	url := s.links.ShopFileURLs(pr.ReferenceNumber)
	out := make([]*platenv1.OperatorPrintFile, pr.Files)
	for i := range out {
		d := files.DigestAt(pr.Digests, i)
		out[i] = &platenv1.OperatorPrintFile{Index: int32(i + 1), Url: url(pr.ID, i+1), ContentType: "application/pdf", //nolint:gosec // a design's surfaces
			Size: files.SizeProto(d), Sha256: files.SHA256Proto(d)}
	}
	return out
}

func optional(s *string) *wrapperspb.StringValue {
	if s == nil {
		return nil
	}
	return wrapperspb.String(*s)
}
