package panel

import (
	"bytes"
	"cmp"
	"encoding/json"
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
	"github.com/platen-print/platen/internal/render"
)

// funcs are the templates' helpers.
var funcs = map[string]any{
	"text": func(v *wrapperspb.StringValue) string { return v.GetValue() },
	// pretty indents a webhook's JSON body to read; other text as it is.
	"pretty": func(body string) string {
		var out bytes.Buffer
		if json.Indent(&out, []byte(body), "", "  ") != nil {
			return body
		}
		return out.String()
	},
	"when": func(t *timestamppb.Timestamp) string {
		if t == nil {
			return ""
		}
		return t.AsTime().UTC().Format("2006-01-02 15:04:05")
	},
	"list": func(v ...string) []string { return v },
	// badge is the class of a print's state's badge.
	"badge":      func(state string) string { return "st-" + state },
	"states":     func() []string { return prints.States },
	"actionName": func(action string) string { return actionNames[action] },
	"stateName":  stateName,
	"batchable":  prints.Batchable,
	"bytes":      humanBytes,
	"uint":       func(n int32) uint32 { return uint32(max(n, 0)) }, //nolint:gosec // a size, never negative
	"warningName": func(code string) string {
		if name, ok := warningNames[code]; ok {
			return name
		}
		return code
	},
}

// warningNames are the words the panel shows for the preflight's codes.
var warningNames = map[string]string{
	render.WarnLowResolution: "Low resolution", render.WarnUpscaled: "Upscaled", render.WarnOutsideSafeArea: "Outside the safe area",
	render.WarnHairline: "Hairline", render.WarnMissingGlyphs: "Missing characters",
}

// humanBytes is a file's size for a person: 98.8 KB, 1.2 MB.
func humanBytes(n uint32) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1_000:
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d bytes", n)
}

// actionNames are the words the panel shows for the print actions.
var actionNames = map[string]string{"retry": "Retry", "flag": "Flag", "cancel": "Cancel"}

// stateNames are the words the panel shows for prints.States.
var stateNames = map[string]string{
	prints.StateQueued: "Queued", prints.StateRendering: "Rendering", prints.StateReady: "Ready",
	prints.StateFailed: "Failed", prints.StateFlagged: "Flagged", prints.StateCancelled: "Cancelled",
}

// stateMeanings say what each state means, for the list's legend.
var stateMeanings = map[string]string{
	prints.StateQueued:    "waiting for a render",
	prints.StateRendering: "a render has started",
	prints.StateReady:     "its files can be downloaded",
	prints.StateFailed:    "the render failed: the reason says why",
	prints.StateFlagged:   "an operator failed it with a reason the client reads",
	prints.StateCancelled: "cancelled by an operator or the shop",
}

func stateName(state string) string { return stateNames[state] }

// live reports whether a print in state can still change by itself.
func live(state string) bool { return state == prints.StateQueued || state == prints.StateRendering }

func httpStatus(st *status.Status) int { return runtime.HTTPStatusFromCode(st.Code()) }

// teamFilter is a form's team_id: nil when it is empty or not a number.
func teamFilter(q url.Values) *int32 {
	team, err := strconv.Atoi(q.Get("team_id"))
	if err != nil {
		return nil
	}
	t := int32(team) //nolint:gosec // a form's team id; out of range finds nothing
	return &t
}

// stateCount is one state's count, linked to the list of its prints.
type stateCount struct {
	State, Name, Link string
	Count             int32
}

// Shown is the count for a person: 10,000+ when it reached the cap.
func (c stateCount) Shown() string {
	if c.Count >= prints.CountCap {
		return fmt.Sprintf("%d,%03d+", prints.CountCap/1000, prints.CountCap%1000)
	}
	return strconv.Itoa(int(c.Count))
}

// counts counts the prints of q's team, store and family in each state.
func (p *Panel) counts(r *http.Request, q url.Values) ([]stateCount, error) {
	c, err := p.api.CountPrints(r.Context(), &platenv1.CountPrintsRequest{TeamId: teamFilter(q), Family: q.Get("family"), StoreId: q.Get("store_id")})
	if err != nil {
		return nil, err
	}
	n := map[string]int32{
		prints.StateQueued: c.Queued, prints.StateRendering: c.Rendering, prints.StateReady: c.Ready,
		prints.StateFailed: c.Failed, prints.StateFlagged: c.Flagged, prints.StateCancelled: c.Cancelled,
	}
	out := make([]stateCount, len(prints.States))
	for i, state := range prints.States {
		link := url.Values{"state": {state}}
		for _, k := range []string{"team_id", "family", "store_id"} {
			if v := q.Get(k); v != "" {
				link.Set(k, v)
			}
		}
		out[i] = stateCount{State: state, Name: stateName(state), Count: n[state], Link: "/operator/prints?" + link.Encode()}
	}
	return out, nil
}

// printsPage is Fulfillment → Prints: the filters, and the rows, which
// refresh themselves. The counts by state are Needs attention's: counted
// on every Prints page they cost it 25 to 60 ms over 100,000 prints.
func (p *Panel) printsPage(w http.ResponseWriter, r *http.Request, s *session) {
	data, err := p.printList(r, s)
	if err == nil {
		err = p.batchForm(r, s, data)
	}
	if err != nil {
		p.filtersRefused(w, r, s, err)
		return
	}
	p.render(w, "prints", http.StatusOK, data)
}

// filtersRefused shows the Prints page with its filters as they were
// asked and why they were refused (a date that is not one, a team not
// the operator's), so that they can be put right; an error of the
// service's own is the error page.
func (p *Panel) filtersRefused(w http.ResponseWriter, r *http.Request, s *session, err error) {
	st := apierr.ToStatus(r.Context(), err)
	code := httpStatus(st)
	if code < 400 || code >= 500 {
		p.fail(w, r, err)
		return
	}
	teams, _ := p.teams(r, s) // the team picker, when it can be had
	data := filterValues(r.URL.Query())
	data["Operator"], data["CSRF"], data["Teams"], data["Meanings"], data["Staff"], data["Problem"] =
		s.account, s.csrf(), teams, stateMeanings, s.account.Staff, st.Message()
	p.render(w, "prints", code, data)
}

// filterValues are the Prints page's filters as the request gives them.
func filterValues(q url.Values) map[string]any {
	return map[string]any{"State": q.Get("state"), "Family": q.Get("family"), "Query": q.Get("query"), "TeamID": q.Get("team_id"),
		"StoreID": q.Get("store_id"), "From": q.Get("from"), "To": q.Get("to")}
}

// printRows is the list's rows alone, for the page to refresh them.
func (p *Panel) printRows(w http.ResponseWriter, r *http.Request, s *session) {
	data, err := p.printList(r, s)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	p.render(w, "rows", http.StatusOK, data)
}

// printList reads the page of prints the query asks for.
func (p *Panel) printList(r *http.Request, s *session) (map[string]any, error) {
	q := r.URL.Query()
	req := &platenv1.ListPrintsRequest{State: q.Get("state"), Family: q.Get("family"), Query: q.Get("query"), StoreId: q.Get("store_id"), PageToken: q.Get("page_token")}
	var err error
	if req.CreatedAfter, err = day(q.Get("from"), "from", 0); err != nil {
		return nil, err
	}
	if req.CreatedBefore, err = day(q.Get("to"), "to", 1); err != nil { // to the end of that day
		return nil, err
	}
	req.TeamId = teamFilter(q)
	resp, err := p.api.ListPrints(r.Context(), req)
	if err != nil {
		return nil, err
	}
	teams, err := p.teams(r, s)
	if err != nil {
		return nil, err
	}
	filters := url.Values{}
	for _, k := range []string{"state", "family", "query", "store_id", "from", "to", "team_id"} {
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
	data := filterValues(q)
	data["Operator"], data["CSRF"], data["Prints"], data["Next"], data["Rows"] = s.account, s.csrf(), resp.Prints, next, "/operator/prints/rows?"+r.URL.RawQuery
	data["Refresh"], data["Meanings"], data["Teams"] = refresh(resp.Prints, req.PageToken == ""), stateMeanings, teams
	data["Staff"], data["Now"] = s.account.Staff, time.Now().UTC().Format(time.TimeOnly)
	return data, nil
}

// refresh is how often a list of prints asks for its rows again: every
// 2 s while one of them can change by itself, every 30 s on the first
// page otherwise (a new print would show there), never on older pages.
func refresh(list []*platenv1.Print, first bool) string {
	for _, pr := range list {
		if live(pr.State) {
			return "every 2s"
		}
	}
	if first {
		return "every 30s"
	}
	return ""
}

// attentionPage is Needs attention: how many prints are in each state,
// and the failed and flagged ones, newest first.
func (p *Panel) attentionPage(w http.ResponseWriter, r *http.Request, s *session) {
	q := r.URL.Query()
	counts, err := p.counts(r, q)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	type section struct {
		State, Title string
		Prints       []*platenv1.Print
	}
	var sections []section
	for _, state := range []string{prints.StateFailed, prints.StateFlagged} {
		resp, err := p.api.ListPrints(r.Context(), &platenv1.ListPrintsRequest{State: state, TeamId: teamFilter(q), PageSize: attentionRows})
		if err != nil {
			p.fail(w, r, err)
			return
		}
		sections = append(sections, section{State: state, Title: stateName(state), Prints: resp.Prints})
	}
	teams, err := p.teams(r, s)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	p.render(w, "attention", http.StatusOK, map[string]any{"Operator": s.account, "CSRF": s.csrf(), "Counts": counts, "Teams": teams,
		"Sections": sections, "Staff": s.account.Staff, "TeamID": q.Get("team_id")})
}

// attentionRows is how many failed (and flagged) prints Needs attention
// lists; the counts link to the rest.
const attentionRows = 50

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
		p.fail(w, r, err)
		return
	}
	data := map[string]any{"Notice": printNotices[r.URL.Query().Get("done")]}
	data["Pages"], data["Files"] = p.printPages(r, pr)
	p.showPrint(w, s, pr, http.StatusOK, data)
}

// maxPages bounds a preview's page number: a design holds at most 100
// surfaces.
const maxPages = 100

// pageView is one page of a print as its page shows it: its preview, and
// the trim and safe area drawn over it (an SVG in the page's millimetres:
// the policy allows no style attribute to place them).
type pageView struct {
	Index                 int
	Name                  string
	Width, Height, Bleed  float64 // the page with its bleed
	TrimWidth, TrimHeight float64
	Safe                  float64 // the safe area's inset from the page's edge
	SafeWidth, SafeHeight float64
}

// fileRow is a print's file with how many pages it holds.
type fileRow struct {
	*platenv1.OperatorPrintFile
	Pages int
}

// printPages reads the pages of pr's design, with the safe margin of its
// team's press settings (render.DefaultSafeMarginMM unless set), and its
// files with their page counts: Family A's one file holds every page,
// each of Family B's one. A design that cannot be read shows no pages
// (its print's error says why).
func (p *Panel) printPages(r *http.Request, pr *platenv1.Print) ([]pageView, []fileRow) {
	files := make([]fileRow, len(pr.Files))
	for i, f := range pr.Files {
		files[i] = fileRow{OperatorPrintFile: f, Pages: 1}
	}
	layout, err := p.previews.Pages(r.Context(), pr.Id)
	if err != nil {
		return nil, files
	}
	if pr.Family == prints.FamilyA && len(files) == 1 {
		files[0].Pages = len(layout.Names)
	}
	margin := float64(render.DefaultSafeMarginMM)
	if settings, err := p.api.GetPressSettings(r.Context(), &platenv1.GetPressSettingsRequest{TeamId: pr.TeamId}); err == nil && settings.SafeMarginMm != nil {
		margin = settings.SafeMarginMm.Value
	}
	views := make([]pageView, len(layout.Names))
	for i, name := range layout.Names {
		views[i] = pageView{Index: i, Name: cmp.Or(name, fmt.Sprintf("page %d", i+1)),
			Width: layout.TrimWidth + 2*layout.Bleed, Height: layout.TrimHeight + 2*layout.Bleed, Bleed: layout.Bleed,
			TrimWidth: layout.TrimWidth, TrimHeight: layout.TrimHeight, Safe: layout.Bleed + margin,
			SafeWidth: max(layout.TrimWidth-2*margin, 0), SafeHeight: max(layout.TrimHeight-2*margin, 0)}
	}
	return views, files
}

// showPrint renders a print's page with code and data's extras: a
// notice, or the Problem an action met.
func (p *Panel) showPrint(w http.ResponseWriter, s *session, pr *platenv1.Print, code int, data map[string]any) {
	data["Operator"], data["CSRF"], data["Print"] = s.account, s.csrf(), pr
	data["Choices"] = prints.Choices(pr.Family, pr.Status, pr.State)
	data["Title"] = fmt.Sprintf("%s print %s", stateName(pr.State), printReference(pr))
	if live(pr.State) {
		data["Watch"] = fmt.Sprintf("/operator/prints/%s/state?was=%s", url.PathEscape(pr.Id), url.QueryEscape(pr.State))
	}
	p.render(w, "print", code, data)
}

// orderPage is the order of a print: its customer, addresses and prices
// (Family A), its references, and every print of it.
func (p *Panel) orderPage(w http.ResponseWriter, r *http.Request, s *session) {
	o, err := p.api.GetPrintOrder(r.Context(), &platenv1.GetPrintOrderRequest{PrintId: r.PathValue("id")})
	if err != nil {
		p.fail(w, r, err)
		return
	}
	title := "Order " + o.GetEcommerceOrderId().GetValue()
	if o.Family == prints.FamilyB {
		title = "Shop order " + o.GetExternalId().GetValue() + " (" + o.GetReferenceNumber().GetValue() + ")"
	}
	p.render(w, "order", http.StatusOK, map[string]any{"Operator": s.account, "CSRF": s.csrf(), "Order": o, "Title": title})
}

// printReference names a print as its client does: order and item
// (Family A), reference and line (Family B).
func printReference(pr *platenv1.Print) string {
	if pr.Family == prints.FamilyA {
		return pr.GetEcommerceOrderId().GetValue() + " / " + pr.GetEcommerceOrderItemId().GetValue()
	}
	return pr.GetReferenceNumber().GetValue() + " / " + pr.GetLineExternalId().GetValue()
}

// printState answers a print page that watches its print while it can
// change by itself (see showPrint): 204 while its state is still was,
// else HX-Refresh, so that htmx reloads the page, actions included.
func (p *Panel) printState(w http.ResponseWriter, r *http.Request, s *session) {
	pr, err := p.api.GetPrint(r.Context(), &platenv1.GetPrintRequest{PrintId: r.PathValue("id")})
	if err != nil {
		p.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	if pr.State == r.URL.Query().Get("was") {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("HX-Refresh", "true")
	w.WriteHeader(http.StatusOK)
}

// printNotices are what a print page's done= says after an action;
// anything else says nothing, so that a link cannot put words on a page
// staff trust.
var printNotices = map[string]string{
	"retry": "Retry queued.", "flag": "Issue flagged: the print is failed.", "cancel": "Print cancelled.",
}

// previewSizes are the preview's size= words; none is the list's thumbnail.
var previewSizes = map[string]prints.Size{"": prints.Thumb, "page": prints.PageSize, "zoom": prints.Zoom}

// preview redirects to a PNG of a print's page (page=, from 0) at a size
// (size=), made once and kept, or shows a placeholder when it cannot be
// shown now; the print must be the operator's to see.
func (p *Panel) preview(w http.ResponseWriter, r *http.Request, s *session) {
	id, q := r.PathValue("id"), r.URL.Query()
	if _, err := p.api.GetPrint(r.Context(), &platenv1.GetPrintRequest{PrintId: id}); err != nil {
		p.fail(w, r, err)
		return
	}
	size, ok := previewSizes[q.Get("size")]
	if !ok {
		p.fail(w, r, apierr.Invalid("size", "must be page or zoom, got %q", q.Get("size")))
		return
	}
	page, err := strconv.Atoi(cmp.Or(q.Get("page"), "0"))
	if err != nil || page < 0 || page >= maxPages {
		p.fail(w, r, apierr.Invalid("page", "must be a page number from 0, got %q", q.Get("page")))
		return
	}
	target, err := p.previews.URL(r.Context(), id, prints.View{Page: page, Size: size})
	var unavailable *prints.Unavailable
	if errors.As(err, &unavailable) {
		p.placeholder(w, unavailable)
		return
	}
	if err != nil {
		p.fail(w, r, err)
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
		p.failWith(w, r, http.StatusNotFound, "There is no such action.")
		return
	}
	if err != nil {
		p.actionRefused(w, r, s, id, err)
		return
	}
	redirect(w, r, fmt.Sprintf("/operator/prints/%s?done=%s", url.PathEscape(id), url.QueryEscape(r.PathValue("action"))))
}

// actionRefused shows the print's page again, as it is now, with why the action
// was refused (a page made before the print changed can offer one that no
// longer applies); a print the operator cannot see is the plain error.
func (p *Panel) actionRefused(w http.ResponseWriter, r *http.Request, s *session, id string, err error) {
	pr, getErr := p.api.GetPrint(r.Context(), &platenv1.GetPrintRequest{PrintId: id})
	if getErr != nil {
		p.fail(w, r, err)
		return
	}
	st := apierr.ToStatus(r.Context(), err)
	p.showPrint(w, s, pr, httpStatus(st), map[string]any{"Problem": st.Message()})
}
