package panel

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/prints"
)

// funcs are the templates' helpers.
var funcs = map[string]any{
	"text": func(v *wrapperspb.StringValue) string { return v.GetValue() },
	"when": func(t *timestamppb.Timestamp) string {
		if t == nil {
			return ""
		}
		return t.AsTime().UTC().Format("2006-01-02 15:04:05")
	},
	"list": func(v ...string) []string { return v },
	"badge": func(s string) string {
		switch s {
		case "ready":
			return "ok"
		case "failed", "processingfailed", "cancelled":
			return "bad"
		}
		return "busy"
	},
}

func httpStatus(st *status.Status) int { return runtime.HTTPStatusFromCode(st.Code()) }

// printsPage is Fulfillment → Prints: the filters, and the rows, which
// refresh themselves.
func (p *Panel) printsPage(w http.ResponseWriter, r *http.Request, s *session) {
	data, err := p.printList(r, s)
	if err == nil {
		err = p.batchForm(r, s, data)
	}
	if err != nil {
		p.fail(w, err)
		return
	}
	p.render(w, "prints", http.StatusOK, data)
}

// printRows is the list's rows alone, for the page to refresh them.
func (p *Panel) printRows(w http.ResponseWriter, r *http.Request, s *session) {
	data, err := p.printList(r, s)
	if err != nil {
		p.fail(w, err)
		return
	}
	p.render(w, "rows", http.StatusOK, data)
}

// printList reads the page of prints the query asks for.
func (p *Panel) printList(r *http.Request, s *session) (map[string]any, error) {
	q := r.URL.Query()
	req := &platenv1.ListPrintsRequest{Status: q.Get("status"), Family: q.Get("family"), Query: q.Get("query"), StoreId: q.Get("store_id"), PageToken: q.Get("page_token")}
	var err error
	if req.CreatedAfter, err = day(q.Get("from"), "from", 0); err != nil {
		return nil, err
	}
	if req.CreatedBefore, err = day(q.Get("to"), "to", 1); err != nil { // to the end of that day
		return nil, err
	}
	if team, err := strconv.Atoi(q.Get("team_id")); err == nil && q.Get("team_id") != "" {
		t := int32(team) //nolint:gosec // a form's team id; out of range finds nothing
		req.TeamId = &t
	}
	resp, err := p.api.ListPrints(r.Context(), req)
	if err != nil {
		return nil, err
	}
	filters := url.Values{}
	for _, k := range []string{"status", "family", "query", "store_id", "from", "to", "team_id"} {
		if v := q.Get(k); v != "" {
			filters.Set(k, v)
		}
	}
	next := ""
	if resp.NextPageToken != "" {
		nq := url.Values{}
		for k, v := range filters {
			nq[k] = v
		}
		nq.Set("page_token", resp.NextPageToken)
		next = "/operator/prints?" + nq.Encode()
	}
	rows := "/operator/prints/rows?" + r.URL.RawQuery
	return map[string]any{"Operator": s.account, "CSRF": s.csrf(), "Prints": resp.Prints, "Next": next, "Rows": rows,
		"Status": q.Get("status"), "Family": q.Get("family"), "Query": q.Get("query"), "TeamID": q.Get("team_id"),
		"StoreID": q.Get("store_id"), "From": q.Get("from"), "To": q.Get("to"),
		"Staff": s.account.Staff, "Now": time.Now().UTC().Format(time.TimeOnly)}, nil
}

// day is a date input's day (UTC) plus days, as a time bound; nil when
// the input is empty.
func day(value, field string, days int) (*timestamppb.Timestamp, error) {
	if value == "" {
		return nil, nil
	}
	t, err := time.Parse(time.DateOnly, value)
	if err != nil {
		return nil, apierr.Invalid(field, "must be a date (YYYY-MM-DD), got %q", value)
	}
	return timestamppb.New(t.AddDate(0, 0, days)), nil
}

// printPage is one print: its references, files, history and actions.
func (p *Panel) printPage(w http.ResponseWriter, r *http.Request, s *session) {
	pr, err := p.api.GetPrint(r.Context(), &platenv1.GetPrintRequest{PrintId: r.PathValue("id")})
	if err != nil {
		p.fail(w, err)
		return
	}
	p.render(w, "print", http.StatusOK, map[string]any{"Operator": s.account, "CSRF": s.csrf(), "Print": pr, "Notice": printNotices[r.URL.Query().Get("done")]})
}

// printNotices are what a print page's done= says after an action;
// anything else says nothing, so that a link cannot put words on a page
// staff trust.
var printNotices = map[string]string{
	"retry": "Retry queued.", "flag": "Issue flagged: the print is failed.", "cancel": "Print cancelled.",
}

// preview redirects to a small PNG of a ready print's first page, made
// once and kept, or shows a placeholder when it cannot be shown now; the
// print must be the operator's to see.
func (p *Panel) preview(w http.ResponseWriter, r *http.Request, s *session) {
	id := r.PathValue("id")
	if _, err := p.api.GetPrint(r.Context(), &platenv1.GetPrintRequest{PrintId: id}); err != nil {
		p.fail(w, err)
		return
	}
	target, err := p.previews.URL(r.Context(), id)
	var unavailable *prints.Unavailable
	if errors.As(err, &unavailable) {
		p.placeholder(w, unavailable)
		return
	}
	if err != nil {
		p.fail(w, err)
		return
	}
	w.Header().Set("Cache-Control", "private, max-age=600")
	http.Redirect(w, r, target, http.StatusFound)
}

// act runs retry, flag or cancel, then shows the print.
func (p *Panel) act(w http.ResponseWriter, r *http.Request, s *session) {
	id := r.PathValue("id")
	var err error
	switch action := r.PathValue("action"); action {
	case "retry":
		_, err = p.api.RetryPrint(r.Context(), &platenv1.RetryPrintRequest{PrintId: id})
	case "flag":
		_, err = p.api.FlagPrint(r.Context(), &platenv1.FlagPrintRequest{PrintId: id, Reason: strings.TrimSpace(r.PostFormValue("reason"))})
	case "cancel":
		_, err = p.api.CancelPrint(r.Context(), &platenv1.CancelPrintRequest{PrintId: id})
	default:
		p.render(w, "error", http.StatusNotFound, map[string]any{"Message": "There is no such action."})
		return
	}
	if err != nil {
		p.fail(w, err)
		return
	}
	redirect(w, r, fmt.Sprintf("/operator/prints/%s?done=%s", url.PathEscape(id), url.QueryEscape(r.PathValue("action"))))
}
