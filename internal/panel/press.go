package panel

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/press"
)

func (p *Panel) pressRoutes() {
	p.mux.HandleFunc("GET /operator/press", p.signedIn(p.pressPage))
	p.mux.HandleFunc("POST /operator/press", p.signedIn(p.updatePress))
	p.mux.Handle("POST /operator/press/profiles", p.limitBody(maxUploadForm, p.signedIn(p.uploadProfile)))
	p.mux.HandleFunc("POST /operator/press/profiles/{uid}/delete", p.signedIn(p.deleteProfile))
}

// pressTeam is the team the press page is about: the operator's own, or
// the one staff picked (0 when they have not yet).
func pressTeam(r *http.Request, s *session) (int32, error) {
	if s.account.TeamID != nil {
		return int32(*s.account.TeamID), nil //nolint:gosec // a team id
	}
	value := r.URL.Query().Get("team_id")
	if r.Method == http.MethodPost {
		value = r.PostFormValue("team_id")
	}
	id, err := optionalID(value, "team_id")
	if id == nil || err != nil {
		return 0, err
	}
	return *id, nil
}

// pressPage shows a team's press settings as a form, and its output
// profiles with the upload form.
func (p *Panel) pressPage(w http.ResponseWriter, r *http.Request, s *session) {
	p.showPress(w, r, s, http.StatusOK, "", "")
}

// showPress renders the press page with code; settingsProblem or
// profileProblem says why a form was refused, above it.
func (p *Panel) showPress(w http.ResponseWriter, r *http.Request, s *session, code int, settingsProblem, profileProblem string) {
	team, err := pressTeam(r, s)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	teams, err := p.teams(r, s)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	data := map[string]any{"Operator": s.account, "CSRF": s.csrf(), "Staff": s.account.Staff, "Teams": teams,
		"TeamID": team, "SettingsProblem": settingsProblem, "ProfileProblem": profileProblem,
		"Notice": pressNotices[r.URL.Query().Get("done")]}
	if team != 0 {
		settings, err := p.api.GetPressSettings(r.Context(), &platenv1.GetPressSettingsRequest{TeamId: team})
		if err != nil {
			p.fail(w, r, err)
			return
		}
		profiles, err := p.api.ListOutputProfiles(r.Context(), &platenv1.ListOutputProfilesRequest{TeamId: &team, PageSize: maxListed})
		if err != nil {
			p.fail(w, r, err)
			return
		}
		data["Settings"], data["Profiles"] = settings, profiles.OutputProfiles
		if r.Method == http.MethodPost && settingsProblem != "" {
			data["Typed"] = r.PostForm // what was typed, shown again
		}
	}
	p.render(w, "press", code, data)
}

// pressNotices are what a redirect's done= says happened.
var pressNotices = map[string]string{
	"saved":    "The press settings are saved: prints rendered from now on use them. Retry a print to render it with them.",
	"uploaded": "The output profile is added: choose it in the settings to use it.",
	"deleted":  "The output profile is deleted.",
}

// updatePress replaces every press setting with the form's: an empty
// field is the default.
func (p *Panel) updatePress(w http.ResponseWriter, r *http.Request, s *session) {
	team, err := pressTeam(r, s)
	if err == nil && team == 0 {
		err = apierr.Invalid("team_id", "is required: the team whose settings these are")
	}
	req := &platenv1.UpdatePressSettingsRequest{TeamId: team, UpdateMask: &fieldmaskpb.FieldMask{Paths: press.Fields}}
	if err == nil {
		err = readPressForm(r, req)
	}
	if err == nil {
		_, err = p.api.UpdatePressSettings(r.Context(), req)
	}
	if err != nil {
		p.pressRefused(w, r, s, err, true)
		return
	}
	redirect(w, r, "/operator/press?"+url.Values{"done": {"saved"}, "team_id": {strconv.Itoa(int(team))}}.Encode())
}

// readPressForm reads the settings form into req; an empty field stays
// null, which the update makes the default.
func readPressForm(r *http.Request, req *platenv1.UpdatePressSettingsRequest) error {
	text := func(name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
	if v := text("output_profile_id"); v != "" {
		req.OutputProfileId = wrapperspb.String(v)
	}
	if v := text("min_effective_ppi"); v != "" {
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return apierr.Invalid("min_effective_ppi", "must be a whole number of pixels per inch, got %q", v)
		}
		req.MinEffectivePpi = wrapperspb.UInt32(uint32(n))
	}
	if v := text("safe_margin_mm"); v != "" {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return apierr.Invalid("safe_margin_mm", "must be a number of millimetres, got %q", v)
		}
		req.SafeMarginMm = wrapperspb.Double(n)
	}
	if v := text("cut_contour_spot"); v != "" {
		req.CutContourSpot = wrapperspb.String(v)
	}
	req.AllowMissingGlyphs = wrapperspb.Bool(r.PostFormValue("allow_missing_glyphs") == "on")
	return nil
}

// pressRefused shows the page again with why, when the form was at fault;
// any other error is the error page.
func (p *Panel) pressRefused(w http.ResponseWriter, r *http.Request, s *session, err error, settings bool) {
	st, theForms := formRefusal(r, err)
	if !theForms {
		p.fail(w, r, err)
		return
	}
	if settings {
		p.showPress(w, r, s, httpStatus(st), st.Message(), "")
		return
	}
	p.showPress(w, r, s, httpStatus(st), "", st.Message())
}

// uploadProfile adds an output profile from the form's ICC file.
func (p *Panel) uploadProfile(w http.ResponseWriter, r *http.Request, s *session) {
	team, err := pressTeam(r, s)
	req := &platenv1.CreateOutputProfileRequest{TeamId: &team, Identifier: strings.TrimSpace(r.PostFormValue("identifier")),
		Condition: strings.TrimSpace(r.PostFormValue("condition")), RegistryName: strings.TrimSpace(r.PostFormValue("registry_name"))}
	if err == nil {
		req.Data, err = formFile(r, "file", "an ICC profile of a CMYK printer")
	}
	if err == nil {
		_, err = p.api.CreateOutputProfile(r.Context(), req)
	}
	if err != nil {
		p.pressRefused(w, r, s, err, false)
		return
	}
	redirect(w, r, "/operator/press?"+url.Values{"done": {"uploaded"}, "team_id": {strconv.Itoa(int(team))}}.Encode())
}

// deleteProfile removes an output profile, once the page has asked.
func (p *Panel) deleteProfile(w http.ResponseWriter, r *http.Request, s *session) {
	if _, err := p.api.DeleteOutputProfile(r.Context(), &platenv1.DeleteOutputProfileRequest{ProfileUid: r.PathValue("uid")}); err != nil {
		p.fail(w, r, err)
		return
	}
	redirect(w, r, "/operator/press?"+url.Values{"done": {"deleted"}, "team_id": {r.PostFormValue("team_id")}}.Encode())
}
