package panel

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"google.golang.org/grpc/codes"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
)

// templateRoutes serves the print templates pages: the list, a form with a
// drawing of the sheet that follows the typing, the variants a template
// serves, and delete.
func (p *Panel) templateRoutes() {
	p.mux.HandleFunc("GET /operator/templates", p.signedIn(p.templatesPage))
	p.mux.HandleFunc("GET /operator/templates/new", p.signedIn(p.newTemplatePage))
	p.mux.HandleFunc("GET /operator/templates/drawing", p.signedIn(p.templateDrawing))
	p.mux.HandleFunc("GET /operator/templates/{uid}", p.signedIn(p.templatePage))
	p.mux.HandleFunc("POST /operator/templates", p.signedIn(p.createTemplate))
	p.mux.HandleFunc("POST /operator/templates/{uid}", p.signedIn(p.updateTemplate))
	p.mux.HandleFunc("POST /operator/templates/{uid}/assign", p.signedIn(p.assignTemplate))
	p.mux.HandleFunc("POST /operator/templates/{uid}/delete", p.signedIn(p.deleteTemplate))
}

// templateNotices are what a redirect's done= says; anything else says
// nothing, so that a link cannot put words on the page.
var templateNotices = map[string]string{
	"created": "Template created.", "saved": "Template saved.", "assigned": "Variants saved.", "deleted": "Template deleted.",
}

// maxListed is the page size the panel asks for where it shows a whole
// list at once (teams, a team's variants).
const maxListed = 500

// templateRow is a template as the list shows it.
type templateRow struct {
	*platenv1.PrintTemplate
	Slots int
}

// templatesPage lists the templates the operator sees, newest first;
// staff may pick a team.
func (p *Panel) templatesPage(w http.ResponseWriter, r *http.Request, s *session) {
	q := r.URL.Query()
	req := &platenv1.ListPrintTemplatesRequest{PageToken: q.Get("page_token")}
	var err error
	if req.TeamId, err = optionalID(q.Get("team_id"), "team_id"); err != nil {
		p.fail(w, r, err)
		return
	}
	resp, err := p.api.ListPrintTemplates(r.Context(), req)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	teams, err := p.teams(r, s)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	rows := make([]templateRow, len(resp.PrintTemplates))
	for i, t := range resp.PrintTemplates {
		rows[i] = templateRow{PrintTemplate: t, Slots: slotCount(t)}
	}
	next := ""
	if resp.NextPageToken != "" {
		nq := url.Values{"page_token": {resp.NextPageToken}}
		if v := q.Get("team_id"); v != "" {
			nq.Set("team_id", v)
		}
		next = "/operator/templates?" + nq.Encode()
	}
	p.render(w, "tpl-list", http.StatusOK, map[string]any{"Operator": s.account, "CSRF": s.csrf(), "Staff": s.account.Staff,
		"Templates": rows, "Teams": teams, "TeamID": q.Get("team_id"), "Next": next, "Notice": templateNotices[q.Get("done")]})
}

// slotCount is how many slots a template's sheet has.
func slotCount(t *platenv1.PrintTemplate) int {
	if g := t.Grid; g != nil {
		return int(g.Columns) * int(g.Rows)
	}
	return len(t.Slots)
}

// teams are every team, for staff to pick from; none for a team's
// operator, who acts for their own.
func (p *Panel) teams(r *http.Request, s *session) ([]*platenv1.Team, error) {
	if !s.account.Staff {
		return nil, nil
	}
	resp, err := p.api.ListTeams(r.Context(), &platenv1.ListTeamsRequest{PageSize: maxListed})
	if err != nil {
		return nil, err
	}
	return resp.Teams, nil
}

// newTemplatePage is the form for a new template, filled with an SRA3
// sheet of 2 × 4 even slots to start from.
func (p *Panel) newTemplatePage(w http.ResponseWriter, r *http.Request, s *session) {
	values := url.Values{"sheet_width_mm": {"320"}, "sheet_height_mm": {"450"}, "margin_top_mm": {"5"}, "margin_right_mm": {"5"},
		"margin_bottom_mm": {"5"}, "margin_left_mm": {"5"}, "gap_mm": {"5"}, "slot_bleed_mm": {"0"}, "crop_marks": {"on"},
		"layout": {"grid"}, "grid.columns": {"2"}, "grid.rows": {"4"}}
	if team := r.URL.Query().Get("team_id"); team != "" {
		values.Set("team_id", team)
	}
	p.templateForm(w, r, s, http.StatusOK, nil, values, "")
}

// templatePage is one template: its form, its drawing, its variants.
func (p *Panel) templatePage(w http.ResponseWriter, r *http.Request, s *session) {
	t, err := p.api.GetPrintTemplate(r.Context(), &platenv1.GetPrintTemplateRequest{TemplateUid: r.PathValue("uid")})
	if err != nil {
		p.fail(w, r, err)
		return
	}
	p.templateForm(w, r, s, http.StatusOK, t, templateValues(t), templateNotices[r.URL.Query().Get("done")])
}

// templateForm renders the form of t (nil for a new one) holding values,
// with its drawing and, for a template that exists, its variants.
func (p *Panel) templateForm(w http.ResponseWriter, r *http.Request, s *session, code int, t *platenv1.PrintTemplate, values url.Values, message string) {
	data := map[string]any{"Operator": s.account, "CSRF": s.csrf(), "Staff": s.account.Staff, "Template": t, "Values": values,
		"Drawing": drawingOf(r.Context(), values)}
	if code == http.StatusOK {
		data["Notice"] = message
	} else {
		data["Error"] = message
	}
	var err error
	if t == nil {
		data["Teams"], err = p.teams(r, s)
	} else {
		data["Variants"], data["MoreVariants"], data["Unlisted"], err = p.variantChoices(r, t)
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	p.render(w, "tpl-edit", code, data)
}

// templateDrawing is the sheet drawn from the form's values as typed, or
// why it cannot be: what the page shows while the operator types.
func (p *Panel) templateDrawing(w http.ResponseWriter, r *http.Request, s *session) {
	// 200 either way: htmx swaps in only successful answers, and the
	// message is the answer here.
	p.render(w, "tpl-drawing", http.StatusOK, drawingOf(r.Context(), r.URL.Query()))
}

// createTemplate creates a template from the form; a refused one is shown
// again, as typed, with the API's message.
func (p *Panel) createTemplate(w http.ResponseWriter, r *http.Request, s *session) {
	req, err := formRequest(r.PostForm)
	if err == nil && s.account.Staff {
		req.TeamId, err = optionalID(r.PostFormValue("team_id"), "team_id")
	}
	var t *platenv1.PrintTemplate
	if err == nil {
		t, err = p.api.CreatePrintTemplate(r.Context(), req)
	}
	if err != nil {
		p.refused(w, r, s, nil, err)
		return
	}
	redirect(w, r, "/operator/templates/"+url.PathEscape(t.Uid)+"?done=created")
}

// updateTemplate replaces every field of the form (not the variants).
func (p *Panel) updateTemplate(w http.ResponseWriter, r *http.Request, s *session) {
	uid := r.PathValue("uid")
	t, err := p.api.GetPrintTemplate(r.Context(), &platenv1.GetPrintTemplateRequest{TemplateUid: uid})
	if err != nil {
		p.fail(w, r, err)
		return
	}
	req, err := formRequest(r.PostForm)
	if err == nil {
		_, err = p.api.UpdatePrintTemplate(r.Context(), updateRequest(uid, req))
	}
	if err != nil {
		p.refused(w, r, s, t, err)
		return
	}
	redirect(w, r, "/operator/templates/"+url.PathEscape(uid)+"?done=saved")
}

// refused shows the form again with what was typed and why it was
// refused, when the values were at fault; any other error is a page.
func (p *Panel) refused(w http.ResponseWriter, r *http.Request, s *session, t *platenv1.PrintTemplate, err error) {
	st := apierr.ToStatus(r.Context(), err)
	if st.Code() != codes.InvalidArgument {
		p.fail(w, r, err)
		return
	}
	p.templateForm(w, r, s, http.StatusBadRequest, t, r.PostForm, st.Message())
}

// variantChoice is a variant of the template's team, as a checkbox.
type variantChoice struct {
	ID               int32
	Product, Variant string
	Assigned         bool
}

// variantChoices are the team's variants (the first maxListed, newest
// first, then sorted by product and name), whether more exist, and the
// ids assigned but not among them.
func (p *Panel) variantChoices(r *http.Request, t *platenv1.PrintTemplate) ([]variantChoice, bool, []int32, error) {
	resp, err := p.api.ListProductVariants(r.Context(), &platenv1.OperatorServiceListProductVariantsRequest{TeamId: &t.TeamId, PageSize: maxListed})
	if err != nil {
		return nil, false, nil, err
	}
	products := map[int32]string{}
	for _, pr := range resp.Products {
		products[pr.Id] = pr.Name
	}
	choices := make([]variantChoice, len(resp.ProductVariants))
	listed := map[int32]bool{}
	for i, v := range resp.ProductVariants {
		choices[i] = variantChoice{ID: v.Id, Product: products[v.ProductId], Variant: v.Name, Assigned: slices.Contains(t.VariantIds, v.Id)}
		listed[v.Id] = true
	}
	slices.SortFunc(choices, func(a, b variantChoice) int {
		return cmp.Or(cmp.Compare(a.Product, b.Product), cmp.Compare(a.Variant, b.Variant), cmp.Compare(a.ID, b.ID))
	})
	var unlisted []int32
	for _, id := range t.VariantIds {
		if !listed[id] {
			unlisted = append(unlisted, id)
		}
	}
	return choices, resp.NextPageToken != "", unlisted, nil
}

// assignTemplate makes the checked variants of those the form showed the
// template's, and the unchecked ones not; variants it did not show keep
// their assignment.
func (p *Panel) assignTemplate(w http.ResponseWriter, r *http.Request, s *session) {
	uid := r.PathValue("uid")
	checked, err := ids(r.PostForm["variant"], "variant")
	if err != nil {
		p.fail(w, r, err)
		return
	}
	shown, err := ids(r.PostForm["shown"], "shown")
	if err != nil {
		p.fail(w, r, err)
		return
	}
	remove := slices.DeleteFunc(shown, func(id int32) bool { return slices.Contains(checked, id) })
	if len(checked)+len(remove) > 0 {
		req := &platenv1.AssignPrintTemplateRequest{TemplateUid: uid, AddVariantIds: checked, RemoveVariantIds: remove}
		if _, err := p.api.AssignPrintTemplate(r.Context(), req); err != nil {
			p.fail(w, r, err)
			return
		}
	}
	redirect(w, r, "/operator/templates/"+url.PathEscape(uid)+"?done=assigned")
}

// deleteTemplate removes a template, once the page has asked.
func (p *Panel) deleteTemplate(w http.ResponseWriter, r *http.Request, s *session) {
	if _, err := p.api.DeletePrintTemplate(r.Context(), &platenv1.DeletePrintTemplateRequest{TemplateUid: r.PathValue("uid")}); err != nil {
		p.fail(w, r, err)
		return
	}
	redirect(w, r, "/operator/templates?done=deleted")
}

// optionalID is a form's integer id; nil when empty.
func optionalID(value, field string) (*int32, error) {
	if value == "" {
		return nil, nil
	}
	n, err := strconv.ParseInt(value, 10, 32)
	if err != nil {
		return nil, apierr.Invalid(field, "must be a whole number, got %q", value)
	}
	id := int32(n) //nolint:gosec // ParseInt kept it to 32 bits
	return &id, nil
}

// ids are a form's repeated integer ids.
func ids(values []string, field string) ([]int32, error) {
	out := make([]int32, 0, len(values))
	for i, v := range values {
		id, err := optionalID(v, fmt.Sprintf("%s[%d]", field, i))
		if err != nil {
			return nil, err
		}
		if id != nil {
			out = append(out, *id)
		}
	}
	return out, nil
}
