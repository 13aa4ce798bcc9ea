package panel

import (
	"net/http"
	"net/url"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
)

func (p *Panel) fontRoutes() {
	p.mux.HandleFunc("GET /operator/fonts", p.signedIn(p.fontsPage))
	// The body is bounded before the session's check reads the form.
	p.mux.Handle("POST /operator/fonts", p.limitBody(maxUploadForm, p.signedIn(p.uploadFont)))
	p.mux.HandleFunc("POST /operator/fonts/{uid}/delete", p.signedIn(p.deleteFont))
}

// fontsPage lists the team's fonts, newest first, with the upload form;
// staff pick the team.
func (p *Panel) fontsPage(w http.ResponseWriter, r *http.Request, s *session) {
	p.showFonts(w, r, s, http.StatusOK, "")
}

// showFonts renders the fonts page with code, and problem above the form
// when an upload was refused.
func (p *Panel) showFonts(w http.ResponseWriter, r *http.Request, s *session, code int, problem string) {
	team := r.URL.Query().Get("team_id")
	if r.Method == http.MethodPost {
		team = r.PostFormValue("team_id")
	}
	req := &platenv1.ListFontsRequest{PageSize: maxListed, PageToken: r.URL.Query().Get("page_token")}
	var err error
	if req.TeamId, err = optionalID(team, "team_id"); err != nil {
		p.fail(w, r, err)
		return
	}
	list, err := p.api.ListFonts(r.Context(), req)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	teams, err := p.teams(r, s)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	p.render(w, "fonts", code, map[string]any{"Operator": s.account, "CSRF": s.csrf(), "Staff": s.account.Staff,
		"Fonts": list.Fonts, "Teams": teams, "TeamID": team, "Problem": problem, "Name": r.PostFormValue("name"),
		"Next":   pageLink("/operator/fonts", filterOf(r.URL.Query(), "team_id"), list.NextPageToken),
		"Notice": fontNotices[r.URL.Query().Get("done")]})
}

// fontNotices are what a redirect's done= says happened.
var fontNotices = map[string]string{
	"uploaded": "The font is added: designs of the team may name it now. Retry the prints that failed for want of it.",
	"deleted":  "The font is deleted: designs that name it fail until it is back.",
}

// uploadFont adds a font from the form's file; a refused one shows the
// page again with why, and what was typed.
func (p *Panel) uploadFont(w http.ResponseWriter, r *http.Request, s *session) {
	req := &platenv1.CreateFontRequest{Name: r.PostFormValue("name"), Fallback: r.PostFormValue("fallback") == "on"}
	var err error
	if req.TeamId, err = optionalID(r.PostFormValue("team_id"), "team_id"); err == nil {
		req.Data, err = formFile(r, "file", "a TTF or OTF file")
	}
	if err == nil {
		_, err = p.api.CreateFont(r.Context(), req)
	}
	if err != nil {
		st, theForms := formRefusal(r, err)
		if !theForms {
			p.fail(w, r, err)
			return
		}
		p.showFonts(w, r, s, httpStatus(st), st.Message())
		return
	}
	redirect(w, r, "/operator/fonts?"+url.Values{"done": {"uploaded"}, "team_id": {r.PostFormValue("team_id")}}.Encode())
}

// deleteFont removes a font, once the page has asked.
func (p *Panel) deleteFont(w http.ResponseWriter, r *http.Request, s *session) {
	if _, err := p.api.DeleteFont(r.Context(), &platenv1.DeleteFontRequest{FontUid: r.PathValue("uid")}); err != nil {
		p.fail(w, r, err)
		return
	}
	redirect(w, r, "/operator/fonts?done=deleted")
}
