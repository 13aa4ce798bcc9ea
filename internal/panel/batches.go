package panel

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
)

// maxTemplateChoices bounds the print templates the batch form offers: a
// batch takes at most 100 (batches.MaxTemplates), and a team has a few.
const maxTemplateChoices = 100

// batchRoutes serves the batches pages: the list, one batch, and the
// prints list's form that makes one.
func (p *Panel) batchRoutes() {
	p.mux.HandleFunc("GET /operator/batches", p.signedIn(p.batchesPage))
	p.mux.HandleFunc("POST /operator/batches", p.signedIn(p.createBatch))
	p.mux.HandleFunc("GET /operator/batches/{uid}", p.signedIn(p.batchPage))
}

// batchesPage is Fulfillment → Batches: newest first, paged; while any
// listed batch is Batching the rows refresh themselves.
func (p *Panel) batchesPage(w http.ResponseWriter, r *http.Request, s *session) {
	q := r.URL.Query()
	req := &platenv1.ListBatchOrdersRequest{Status: q.Get("status"), PageToken: q.Get("page_token")}
	if v := q.Get("team_id"); v != "" {
		team, err := teamID(v)
		if err != nil {
			p.fail(w, r, err)
			return
		}
		req.TeamId = &team
	}
	resp, err := p.api.ListBatchOrders(r.Context(), req)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	teams, err := p.teams(r, s)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	p.render(w, "batches", http.StatusOK, map[string]any{"Operator": s.account, "CSRF": s.csrf(), "Teams": teams,
		"Batches": resp.BatchOrders, "Polling": anyBatching(resp.BatchOrders), "Self": r.URL.RequestURI(),
		"Next": nextPage(q, resp.NextPageToken), "Status": q.Get("status"), "TeamID": q.Get("team_id"), "Staff": s.account.Staff})
}

// anyBatching reports whether a batch of list may still change: only
// then do the rows poll.
func anyBatching(list []*platenv1.BatchOrder) bool {
	for _, b := range list {
		if b.Status == "Batching" {
			return true
		}
	}
	return false
}

// nextPage is the list's next page with the same filters; empty on the
// last page.
func nextPage(q url.Values, token string) string {
	if token == "" {
		return ""
	}
	next := url.Values{}
	for _, k := range []string{"status", "team_id"} {
		if v := q.Get(k); v != "" {
			next.Set(k, v)
		}
	}
	next.Set("page_token", token)
	return "/operator/batches?" + next.Encode()
}

// teamID reads a form's team id.
func teamID(v string) (int32, error) {
	team, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, apierr.Invalid("team_id", "must be a team's number, got %q", v)
	}
	return int32(team), nil
}

// sheet is one file of a batch as its page shows it, with its template's
// name when the template is still there.
type sheet struct {
	*platenv1.BatchFile
	Name string
}

// batchPage is one batch: status, why it failed, its sheets and items;
// while Batching its part that changes refreshes itself.
func (p *Panel) batchPage(w http.ResponseWriter, r *http.Request, s *session) {
	b, err := p.api.GetBatchOrder(r.Context(), &platenv1.GetBatchOrderRequest{BatchUid: r.PathValue("uid")})
	if err != nil {
		p.fail(w, r, err)
		return
	}
	sheets, err := p.sheets(r.Context(), b)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	data := map[string]any{"Operator": s.account, "CSRF": s.csrf(), "Batch": b, "Sheets": sheets, "Self": r.URL.Path}
	// The page's refresh while Batching (htmx) keeps only #batch: the
	// items, one read each, are named for the page itself.
	var items []itemLabel
	if r.Header.Get("HX-Request") == "" {
		items = p.itemLabels(r.Context(), b.OrderItems)
		data["Items"] = items
	}
	data["Error"] = p.batchError(r.Context(), b, items)
	p.render(w, "batch", http.StatusOK, data)
}

// batchError is why b failed, the print an entry names (order_items[2]:
// …) named by its order and item: from items, the page's labels, when
// they were read for it, else read alone.
func (p *Panel) batchError(ctx context.Context, b *platenv1.BatchOrder, items []itemLabel) string {
	text := b.GetError().GetValue()
	m := entry.FindStringSubmatch(text)
	if m == nil || m[1] != "order_items" {
		return text
	}
	i, _ := strconv.Atoi(m[2])
	switch {
	case i < len(items) && i < maxLabels:
		return "The print " + items[i].Reference + ": " + m[3]
	case i < len(b.OrderItems):
		return "The print " + p.itemLabels(ctx, b.OrderItems[i:i+1])[0].Reference + ": " + m[3]
	}
	return text
}

// sheets are b's files, each with its template's name; a template deleted
// since leaves its uid alone.
func (p *Panel) sheets(ctx context.Context, b *platenv1.BatchOrder) ([]sheet, error) {
	sheets := make([]sheet, len(b.Files))
	for i, f := range b.Files {
		sheets[i].BatchFile = f
		t, err := p.api.GetPrintTemplate(ctx, &platenv1.GetPrintTemplateRequest{TemplateUid: f.PrintTemplateUid})
		switch {
		case err == nil:
			sheets[i].Name = t.Name
		case !errors.Is(err, apierr.ErrNotFound) && status.Code(err) != codes.NotFound:
			return nil, err
		}
	}
	return sheets, nil
}

// batchForm adds to the prints page what its batch form needs: the print
// templates of the team whose prints can be ticked. A team's operator
// batches their team's; staff must filter the list by a team first, as a
// batch takes one team's items and templates.
func (p *Panel) batchForm(r *http.Request, s *session, data map[string]any) error {
	req := &platenv1.ListPrintTemplatesRequest{PageSize: maxTemplateChoices}
	if s.account.Staff {
		v := r.URL.Query().Get("team_id")
		if v == "" {
			return nil
		}
		team, err := teamID(v)
		if err != nil {
			return err
		}
		req.TeamId = &team
	}
	resp, err := p.api.ListPrintTemplates(r.Context(), req)
	if err != nil {
		return err
	}
	data["BatchTemplates"] = resp.PrintTemplates
	data["Back"] = r.URL.RequestURI()
	return nil
}

// createBatch makes a batch of the ticked prints with the ticked
// templates, then shows it, or (the form's Preview button) shows what it
// would print; a refusal is shown entry by entry.
func (p *Panel) createBatch(w http.ResponseWriter, r *http.Request, s *session) {
	req, err := batchRequest(r)
	if err == nil && r.PostFormValue("do") == "plan" {
		p.planBatch(w, r, s, req)
		return
	}
	var b *platenv1.BatchOrder
	if err == nil {
		b, err = p.api.CreateBatchOrder(r.Context(), req)
	}
	if err != nil {
		p.batchRefused(w, r, s, req, err)
		return
	}
	redirect(w, r, "/operator/batches/"+url.PathEscape(b.Uid))
}

// plannedFile is one file of a batch's plan as its page shows it: the
// template's sheet drawn, and the prints it would take.
type plannedFile struct {
	*platenv1.PlannedFile
	Drawing sheetDrawing
	Prints  []itemLabel
}

// itemLabel names an order item as the shop does, linked to its print.
type itemLabel struct {
	ID, Reference string
	Quantity      int32
	Batch         string // the live batch holding it, if one does
}

// planBatch shows what the batch would print, each template's sheet and
// items, with the form that makes it.
func (p *Panel) planBatch(w http.ResponseWriter, r *http.Request, s *session, req *platenv1.OperatorServiceCreateBatchOrderRequest) {
	plan, err := p.api.PlanBatchOrder(r.Context(), &platenv1.PlanBatchOrderRequest{TeamId: req.TeamId, OrderItems: req.OrderItems,
		PrintTemplates: req.PrintTemplates})
	if err != nil {
		p.batchRefused(w, r, s, req, err)
		return
	}
	files := make([]plannedFile, len(plan.Files))
	held := 0
	for i, f := range plan.Files {
		files[i] = plannedFile{PlannedFile: f, Prints: p.itemLabels(r.Context(), f.OrderItems)}
		for _, l := range files[i].Prints {
			if l.Batch != "" {
				held++
			}
		}
		if t, err := p.api.GetPrintTemplate(r.Context(), &platenv1.GetPrintTemplateRequest{TemplateUid: f.PrintTemplateUid}); err == nil {
			files[i].Drawing = drawingOf(r.Context(), templateValues(t))
		}
	}
	p.render(w, "batch-plan", http.StatusOK, map[string]any{"Operator": s.account, "CSRF": s.csrf(), "Files": files, "Request": req,
		"Held": held, "Back": safeNext(r.PostFormValue("back"))})
}

// maxLabels bounds the items a batch's page names one by one; past it the
// rest show by their uids (a batch takes up to batches.MaxItems).
const maxLabels = 200

// itemLabels names the items uids by their order and item, each read
// through the operator API (one the operator cannot see keeps its uid).
func (p *Panel) itemLabels(ctx context.Context, uids []string) []itemLabel {
	labels := make([]itemLabel, len(uids))
	for i, uid := range uids {
		labels[i] = itemLabel{ID: uid, Reference: uid}
		if i >= maxLabels {
			continue
		}
		if pr, err := p.api.GetPrint(ctx, &platenv1.GetPrintRequest{PrintId: uid}); err == nil {
			labels[i] = itemLabel{ID: uid, Reference: printReference(pr), Quantity: pr.Quantity, Batch: pr.GetBatchUid().GetValue()}
		}
	}
	return labels
}

// batchRequest reads the batch form: the ticked prints and templates in
// the page's order, and the team (staff's form names it).
func batchRequest(r *http.Request) (*platenv1.OperatorServiceCreateBatchOrderRequest, error) {
	req := &platenv1.OperatorServiceCreateBatchOrderRequest{}
	if err := r.ParseForm(); err != nil {
		return req, apierr.Invalid("", "the form could not be read: %v", err)
	}
	req.OrderItems, req.PrintTemplates = r.PostForm["order_items"], r.PostForm["print_templates"]
	req.Again = r.PostFormValue("again") == "yes"
	if v := r.PostFormValue("team_id"); v != "" {
		team, err := teamID(v)
		if err != nil {
			return req, err
		}
		req.TeamId = &team
	}
	return req, nil
}

// problem is one reason a batch was refused, about the print or template
// it names when it names one.
type problem struct {
	Field, Text string
	Label       string // what Field is on the page
	Print       string // the print (order item) the entry names
	Reference   string // the print's order and item, as the shop names them
}

// labels name the request's fields as the form shows them.
var labels = map[string]string{"order_items": "The selected prints", "print_templates": "The print templates", "team_id": "The team"}

// entry is a field naming one entry of a list: order_items[2].
var entry = regexp.MustCompile(`^(order_items|print_templates)\[(\d+)\](?:: (.*))?$`)

// batchRefused shows why the operator API refused a batch: each field
// violation, the prints named by theirs linked; other errors by their
// message alone.
func (p *Panel) batchRefused(w http.ResponseWriter, r *http.Request, s *session, req *platenv1.OperatorServiceCreateBatchOrderRequest, err error) {
	st := apierr.ToStatus(r.Context(), err)
	var problems []problem
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.FieldViolations {
				problems = append(problems, problemOf(req, v.Field, v.Description))
			}
		}
	}
	if len(problems) == 0 {
		problems = append(problems, problemOf(req, "", st.Message()))
	}
	for i := range problems {
		if id := problems[i].Print; id != "" {
			problems[i].Reference = p.itemLabels(r.Context(), []string{id})[0].Reference
		}
	}
	askAgain := false
	for _, pr := range problems {
		askAgain = askAgain || strings.Contains(pr.Text, "is already in batch")
	}
	p.render(w, "batch-refused", httpStatus(st), map[string]any{"Operator": s.account, "CSRF": s.csrf(),
		"Problems": problems, "Back": safeNext(r.PostFormValue("back")), "AskAgain": askAgain})
}

// problemOf is field's violation, the print it names linked. A 404 names
// its entry in its message alone ("order_items[1]: order item … not
// found"): that entry is taken as its field.
func problemOf(req *platenv1.OperatorServiceCreateBatchOrderRequest, field, text string) problem {
	if m := entry.FindStringSubmatch(text); field == "" && m != nil {
		field, text = m[1]+"["+m[2]+"]", m[3]
	}
	pr := problem{Field: field, Text: text, Label: labels[field]}
	m := entry.FindStringSubmatch(field)
	if m == nil {
		return pr
	}
	pr.Label = labels[m[1]]
	i, _ := strconv.Atoi(m[2]) // digits
	switch {
	case m[1] == "order_items" && i < len(req.OrderItems):
		pr.Print = req.OrderItems[i]
	case m[1] == "print_templates" && i < len(req.PrintTemplates):
		pr.Label = "The print template " + req.PrintTemplates[i]
	}
	return pr
}
