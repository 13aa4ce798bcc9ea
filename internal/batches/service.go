package batches

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/idempotency"
	"github.com/platen-print/platen/internal/pagination"
	"github.com/platen-print/platen/internal/renderjobs"
)

// Service implements platenv1.BatchServiceServer for client tokens.
type Service struct {
	platenv1.UnimplementedBatchServiceServer
	store    Store
	settings renderjobs.Settings
	links    Links
}

// NewService returns the service on store, resolving variants with
// settings and signing file links with links.
func NewService(store Store, settings renderjobs.Settings, links Links) *Service {
	return &Service{store: store, settings: settings, links: links}
}

// CreateBatchOrder checks the batch whole, stores it with its job and
// answers it Batching.
func (s *Service) CreateBatchOrder(ctx context.Context, req *platenv1.CreateBatchOrderRequest) (*platenv1.BatchOrder, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return s.create(ctx, p, req.OrderItems, req.PrintTemplates, true)
}

// CreateOperatorBatchOrder is CreateBatchOrder for an operator (the
// operator API's): the same checks, messages and job, for the team named
// (staff must name one; a team's operator may name only their own).
func (s *Service) CreateOperatorBatchOrder(ctx context.Context, req *platenv1.OperatorServiceCreateBatchOrderRequest) (*platenv1.BatchOrder, error) {
	p, err := operatorAsTeam(ctx, req.TeamId)
	if err != nil {
		return nil, err
	}
	return s.create(ctx, p, req.OrderItems, req.PrintTemplates, req.Again)
}

// operatorAsTeam is the principal an operator makes or plans a batch as:
// a team-wide token of the team named (see actingTeam) would be, its
// items of every store and its templates.
func operatorAsTeam(ctx context.Context, teamID *int32) (auth.Principal, error) {
	p, err := auth.OperatorFromContext(ctx)
	if err != nil {
		return auth.Principal{}, err
	}
	team, err := actingTeam(p, teamID)
	return auth.Principal{TeamID: team}, err
}

// PlanBatchOrder checks and lays out a batch as CreateOperatorBatchOrder
// does (an item a live batch holds is not refused: the plan says what
// would print), and answers what each template would print.
func (s *Service) PlanBatchOrder(ctx context.Context, req *platenv1.PlanBatchOrderRequest) (*platenv1.BatchPlan, error) {
	p, err := operatorAsTeam(ctx, req.TeamId)
	if err != nil {
		return nil, err
	}
	if err := checkLists(req.OrderItems, req.PrintTemplates); err != nil {
		return nil, err
	}
	l, err := s.layOut(ctx, p, req.OrderItems, req.PrintTemplates, true)
	if err != nil {
		return nil, err
	}
	plan := &platenv1.BatchPlan{Files: make([]*platenv1.PlannedFile, len(l.templates))}
	for j, t := range l.templates {
		copies := l.copies[j]
		plan.Files[j] = &platenv1.PlannedFile{PrintTemplateUid: t.UID, Name: t.Name, Slots: int32(t.slots), //nolint:gosec // bounded by the template's checks
			Copies: int32(copies), Sheets: int32((copies + t.slots - 1) / t.slots)} //nolint:gosec // bounded by MaxSheetCopies
	}
	for i, j := range l.placed {
		plan.Files[j].OrderItems = append(plan.Files[j].OrderItems, req.OrderItems[i])
	}
	return plan, nil
}

// actingTeam is the team an operator makes a batch for.
func actingTeam(p auth.Principal, teamID *int32) (int, error) {
	switch {
	case teamID == nil && p.Staff:
		return 0, apierr.Invalid("team_id", "is required for staff: the team whose order items and print templates the batch takes")
	case teamID == nil:
		return p.TeamID, nil
	case !p.SeesTeam(int(*teamID)):
		return 0, apierr.PermissionDenied("team_id", "a team's operator makes batches for their own team only")
	}
	return int(*teamID), nil
}

// create is the one way a batch is made, for a client's token or an
// operator acting as a team (p): checked whole, stored with its job,
// answered Batching.
//
// again lets items that a live batch already holds be batched once more;
// without it they are refused (the operator's batches: a client's API
// batches again as often as it asks).
func (s *Service) create(ctx context.Context, p auth.Principal, itemUIDs, tmplUIDs []string, again bool) (*platenv1.BatchOrder, error) {
	if err := checkLists(itemUIDs, tmplUIDs); err != nil {
		return nil, err
	}
	token := idempotency.Token(ctx)
	if token != "" {
		if made, err := s.madeBefore(ctx, p.TeamID, token); made != nil || err != nil {
			return made, err
		}
	}
	l, err := s.layOut(ctx, p, itemUIDs, tmplUIDs, again)
	if err != nil {
		return nil, err
	}
	b := &Batch{UID: uuid.NewString(), TeamID: p.TeamID, Status: StatusBatching, OrderItems: itemUIDs, PrintTemplates: tmplUIDs,
		IdempotencyToken: token, ItemTemplates: l.placed, StoreIDs: storesOf(l.items)}
	if err := s.store.CreateBatch(ctx, b); err != nil {
		return nil, err
	}
	return s.toProto(b), nil
}

// layout is a batch checked and laid out: its items and templates, the
// template each item goes to, and the copies each template lays out.
type layout struct {
	items     []*Item
	templates []*templateInfo
	placed    []int
	copies    []int
}

// layOut reads the batch's items and templates (each of p's, else 404),
// refuses items a live batch holds unless again, and places each item;
// the lists are checked (checkLists) before.
func (s *Service) layOut(ctx context.Context, p auth.Principal, itemUIDs, tmplUIDs []string, again bool) (*layout, error) {
	items, err := s.items(ctx, p, itemUIDs)
	if err != nil {
		return nil, err
	}
	if !again {
		if err := s.notBatched(ctx, itemUIDs); err != nil {
			return nil, err
		}
	}
	l := &layout{items: items}
	if l.templates, err = s.templates(ctx, p, tmplUIDs); err != nil {
		return nil, err
	}
	if l.placed, l.copies, err = s.place(ctx, p.TeamID, items, l.templates); err != nil {
		return nil, err
	}
	return l, nil
}

// notBatched refuses the items that a live batch holds, naming it.
func (s *Service) notBatched(ctx context.Context, uids []string) error {
	live, err := s.store.LiveBatches(ctx, uids)
	if err != nil {
		return err
	}
	var vs apierr.Violations
	for i, uid := range uids {
		if batch, ok := live[uid]; ok {
			vs.Add(fmt.Sprintf("order_items[%d]", i), "is already in batch %s, which is Batching or Ready: ask again (again: true) to batch it twice", batch)
		}
	}
	return vs.Err()
}

// madeBefore answers the batch an earlier run of this request made (the
// same Idempotency-Key and body), when it stopped before the key's record
// got the answer: as it is now, marked as a replay. Nil when there is none.
func (s *Service) madeBefore(ctx context.Context, teamID int, token string) (*platenv1.BatchOrder, error) {
	b, err := s.store.BatchByToken(ctx, teamID, token)
	if errors.Is(err, apierr.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := idempotency.MarkReplayed(ctx); err != nil {
		return nil, err
	}
	return s.toProto(b), nil
}

// checkLists checks both lists' sizes and that neither repeats a uid.
func checkLists(items, tmpls []string) error {
	var vs apierr.Violations
	for _, l := range []struct {
		field string
		uids  []string
		limit int
		what  string
	}{{"order_items", items, MaxItems, "order item"}, {"print_templates", tmpls, MaxTemplates, "print template"}} {
		switch {
		case len(l.uids) == 0:
			vs.Add(l.field, "is required: at least one %s uid", l.what)
		case len(l.uids) > l.limit:
			vs.Add(l.field, "must have at most %d uids, got %d", l.limit, len(l.uids))
		default:
			checkUIDs(&vs, l.field, l.uids)
		}
	}
	return vs.Err()
}

func checkUIDs(vs *apierr.Violations, field string, uids []string) {
	first := make(map[string]int, len(uids))
	for i, uid := range uids {
		if uid == "" {
			vs.Add(fmt.Sprintf("%s[%d]", field, i), "must not be empty")
		} else if j, seen := first[uid]; seen {
			vs.Add(fmt.Sprintf("%s[%d]", field, i), "repeats %s[%d]", field, j)
		} else {
			first[uid] = i
		}
	}
}

// items reads the items, in request order; one the caller may not act on
// is 404, as one that does not exist.
func (s *Service) items(ctx context.Context, p auth.Principal, uids []string) ([]*Item, error) {
	found, err := s.store.Items(ctx, p, uids)
	if err != nil {
		return nil, err
	}
	items := make([]*Item, len(uids))
	for i, uid := range uids {
		if items[i] = found[uid]; items[i] == nil {
			return nil, apierr.NotFound("order_items[%d]: order item %q not found", i, uid)
		}
	}
	return items, nil
}

// templates reads the templates, in request order; another team's is 404.
func (s *Service) templates(ctx context.Context, p auth.Principal, uids []string) ([]*templateInfo, error) {
	out := make([]*templateInfo, len(uids))
	for i, uid := range uids {
		t, err := s.store.Template(ctx, uid)
		if err == nil && t.TeamID != p.TeamID {
			err = apierr.ErrNotFound
		}
		if err != nil {
			return nil, notFoundAs(err, "print_templates[%d]: print template %q not found", i, uid)
		}
		out[i] = newTemplateInfo(t)
	}
	return out, nil
}

// storesOf is the sorted stores of items.
func storesOf(items []*Item) []string {
	var stores []string
	for _, it := range items {
		if !slices.Contains(stores, it.StoreID) {
			stores = append(stores, it.StoreID)
		}
	}
	slices.Sort(stores)
	return stores
}

// GetBatchOrder returns a batch the caller may see (Visible: a client's
// token, or an operator through the operator API); another's is 404.
func (s *Service) GetBatchOrder(ctx context.Context, req *platenv1.GetBatchOrderRequest) (*platenv1.BatchOrder, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	b, err := s.store.Batch(ctx, req.BatchUid)
	if err != nil {
		return nil, err
	}
	if !Visible(p, b) {
		return nil, apierr.NotFound("batch order %q not found", req.BatchUid)
	}
	return s.toProto(b), nil
}

// toProto is b as the API shows it: one file per template, its link and
// page count once Ready.
func (s *Service) toProto(b *Batch) *platenv1.BatchOrder {
	out := &platenv1.BatchOrder{
		Uid: b.UID, Status: b.Status, OrderItems: b.OrderItems, PrintTemplates: b.PrintTemplates,
		Files:     make([]*platenv1.BatchFile, len(b.PrintTemplates)),
		CreatedAt: timestamppb.New(b.CreatedAt), UpdatedAt: timestamppb.New(b.UpdatedAt),
	}
	for i, uid := range b.PrintTemplates {
		out.Files[i] = &platenv1.BatchFile{PrintTemplateUid: uid}
		if b.Status == StatusReady && i < len(b.Files) {
			out.Files[i].Url = wrapperspb.String(s.links.BatchFileURL(b.UID, i+1))
			out.Files[i].Pages = int32(b.Files[i].Pages) //nolint:gosec // at most renderproc.MaxSheetCopies
			d := b.Files[i].KnownDigest()
			out.Files[i].Size, out.Files[i].Sha256 = files.SizeProto(d), files.SHA256Proto(d)
		}
	}
	if b.Status == StatusFailed {
		out.Error = wrapperspb.String(b.Error)
	}
	return out
}

// ListBatchOrders pages through the batches an operator may see, newest
// first (the operator API's).
func (s *Service) ListBatchOrders(ctx context.Context, req *platenv1.ListBatchOrdersRequest) (*platenv1.ListBatchOrdersResponse, error) {
	p, err := auth.OperatorFromContext(ctx)
	if err != nil {
		return nil, err
	}
	page, err := pagination.Parse(req.PageSize, req.PageToken)
	if err != nil {
		return nil, err
	}
	q := Query{Status: req.Status, PageSize: page.Size, After: page.After}
	if q.TeamID, err = p.ListTeam(req.TeamId); err != nil {
		return nil, err
	}
	switch req.Status {
	case "", StatusBatching, StatusReady, StatusFailed:
	default:
		return nil, apierr.Invalid("status", "must be Batching, Ready or Failed, got %q", req.Status)
	}
	list, more, err := s.store.ListBatches(ctx, q)
	if err != nil {
		return nil, err
	}
	resp := &platenv1.ListBatchOrdersResponse{}
	resp.BatchOrders, resp.NextPageToken = pagination.Answer(list, more, s.toProto,
		func(b *Batch) pagination.Cursor { return pagination.Cursor{CreatedAt: b.CreatedAt, UID: b.UID} })
	return resp, nil
}
