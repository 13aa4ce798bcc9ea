// Package panel is the operator panel at /operator: server-rendered pages
// (html/template, so every client string is escaped) over the operator
// API's own methods, signed in with an operator account's e-mail and
// password. Sessions live in an HttpOnly, SameSite=Lax cookie whose hash
// the database keeps; every form carries a token bound to the session;
// sign-ins are rate-limited. The prints list updates itself with htmx
// (vendored, with its licence, in static/).
package panel

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/operators"
	"github.com/platen-print/platen/internal/prints"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// API is the operator API, which the panel acts through: a page can do
// nothing its operator could not do with grpcurl.
type API = platenv1.OperatorServiceServer

// Previews gives the URL of a print's preview image (prints.Previews).
type Previews interface {
	URL(ctx context.Context, printID string, v prints.View) (string, error)
	Pages(ctx context.Context, printID string) (*prints.Pages, error)
}

// Panel serves /operator.
type Panel struct {
	sessions operators.SessionStore
	api      API
	previews Previews
	pages    *template.Template
	limits   *limiter
	mux      *http.ServeMux
	policy   string // the Content-Security-Policy header
}

// New returns the panel over sessions and api, with previews, whose
// images imageOrigin serves when they are not this site's (an S3
// endpoint's origin, or "" when the files are this server's).
func New(sessions operators.SessionStore, api API, previews Previews, imageOrigin string) *Panel {
	p := &Panel{
		sessions: sessions, api: api, previews: previews, limits: newLimiter(), mux: http.NewServeMux(),
		pages:  template.Must(template.New("").Funcs(funcs).ParseFS(templateFiles, "templates/*.html")),
		policy: contentPolicy(imageOrigin),
	}
	static, _ := fs.Sub(staticFiles, "static") // the embedded folder is there
	p.mux.Handle("GET /operator/static/", http.StripPrefix("/operator/static/", http.FileServerFS(static)))
	p.mux.HandleFunc("GET /operator/{$}", func(w http.ResponseWriter, r *http.Request) { redirect(w, r, "/operator/prints") })
	p.mux.HandleFunc("GET /operator/login", p.loginPage)
	p.mux.HandleFunc("POST /operator/login", p.login)
	p.mux.HandleFunc("POST /operator/logout", p.signedIn(p.logout))
	p.mux.HandleFunc("GET /operator/attention", p.signedIn(p.attentionPage))
	p.mux.HandleFunc("GET /operator/prints", p.signedIn(p.printsPage))
	p.mux.HandleFunc("GET /operator/prints/rows", p.signedIn(p.printRows))
	p.mux.HandleFunc("GET /operator/prints/{id}", p.signedIn(p.printPage))
	p.mux.HandleFunc("GET /operator/prints/{id}/order", p.signedIn(p.orderPage))
	p.mux.HandleFunc("GET /operator/prints/{id}/preview", p.signedIn(p.preview))
	p.mux.HandleFunc("GET /operator/prints/{id}/state", p.signedIn(p.printState))
	p.mux.HandleFunc("POST /operator/prints/{id}/{action}", p.signedIn(p.act))
	p.batchRoutes()
	p.templateRoutes()
	p.fontRoutes()
	p.pressRoutes()
	p.webhookRoutes()
	p.accountRoutes()
	return p
}

// contentPolicy lets pages load scripts, styles and images of this site
// only (previews also from imageOrigin), and nothing inline: no script,
// handler or style attribute in a page runs, whatever a client's string
// smuggled into it.
func contentPolicy(imageOrigin string) string {
	images := "'self'"
	if imageOrigin != "" {
		images += " " + imageOrigin
	}
	return "default-src 'none'; script-src 'self'; style-src 'self'; img-src " + images +
		"; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
}

// ServeHTTP serves the panel.
func (p *Panel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Security-Policy", p.policy)
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "same-origin")
	p.mux.ServeHTTP(w, r)
}

// signedIn runs h for a signed-in operator, checking a form's token on
// every POST; others go to the sign-in page.
func (p *Panel) signedIn(h func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s := p.sessionOf(r)
		if s == nil {
			if r.Method != http.MethodGet {
				p.render(w, "error", http.StatusUnauthorized, map[string]any{"Message": "Sign in first."})
				return
			}
			redirect(w, r, "/operator/login?next="+url.QueryEscape(r.URL.RequestURI()))
			return
		}
		if r.Method == http.MethodPost && !s.validCSRF(r.PostFormValue("csrf")) {
			p.render(w, "error", http.StatusForbidden, map[string]any{"Message": "The form's token is missing or not this session's: reload the page."})
			return
		}
		h(w, r.WithContext(withOperator(r.Context(), s)), s)
	}
}

func (p *Panel) loginPage(w http.ResponseWriter, r *http.Request) {
	p.render(w, "login", http.StatusOK, map[string]any{"Next": safeNext(r.URL.Query().Get("next"))})
}

func (p *Panel) login(w http.ResponseWriter, r *http.Request) {
	email, password, next := r.PostFormValue("email"), r.PostFormValue("password"), safeNext(r.PostFormValue("next"))
	data := map[string]any{"Next": next, "Email": email}
	if origin := r.Header.Get("Origin"); origin != "" && !sameOrigin(origin, r) {
		p.render(w, "error", http.StatusForbidden, map[string]any{"Message": "The sign-in form must come from this site."})
		return
	}
	if wait, ok := p.limits.allow(r.RemoteAddr, email); !ok {
		data["Error"] = "Too many attempts: wait a minute and try again."
		p.tooMany(w, wait, data)
		return
	}
	_, token, err := operators.SignIn(r.Context(), p.sessions, email, password)
	if errors.Is(err, operators.ErrPasswordsBusy) {
		data["Error"] = "Too many sign-ins at the moment: try again in a moment."
		p.tooMany(w, time.Second, data)
		return
	}
	if errors.Is(err, operators.ErrSignIn) {
		data["Error"] = "The e-mail or the password is wrong."
		p.render(w, "login", http.StatusUnauthorized, data)
		return
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	setCookie(w, r, token, int(operators.SessionTTL/time.Second))
	redirect(w, r, next)
}

// tooMany answers a refused sign-in: its page again with 429, and when to
// try again (in whole seconds, at least one).
func (p *Panel) tooMany(w http.ResponseWriter, wait time.Duration, data map[string]any) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
	p.render(w, "login", http.StatusTooManyRequests, data)
}

func (p *Panel) logout(w http.ResponseWriter, r *http.Request, s *session) {
	if err := p.sessions.DeleteSession(r.Context(), operators.SessionHash(s.token)); err != nil {
		p.fail(w, r, err)
		return
	}
	setCookie(w, r, "", -1)
	redirect(w, r, "/operator/login")
}

// render writes page with data, or a plain error.
func (p *Panel) render(w http.ResponseWriter, page string, code int, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	if err := p.pages.ExecuteTemplate(w, page, data); err != nil {
		slog.Error("operator panel page", "page", page, "error", err)
	}
}

// fail answers an error of the operator API as a page: its message, with
// the status its code maps to, and the navigation when someone signed in.
func (p *Panel) fail(w http.ResponseWriter, r *http.Request, err error) {
	st := apierr.ToStatus(r.Context(), err)
	p.failWith(w, r, httpStatus(st), st.Message())
}

// formRefusal is err as a status, and whether the form's values were at
// fault (invalid, or naming what exists already), so that the page shows
// the form again with why rather than the error page.
func formRefusal(r *http.Request, err error) (*status.Status, bool) {
	st := apierr.ToStatus(r.Context(), err)
	return st, st.Code() == codes.InvalidArgument || st.Code() == codes.AlreadyExists
}

// failWith answers the error page with code and message.
func (p *Panel) failWith(w http.ResponseWriter, r *http.Request, code int, message string) {
	data := map[string]any{"Message": message}
	if s := sessionFrom(r.Context()); s != nil {
		data["Operator"], data["CSRF"] = s.account, s.csrf()
	}
	p.render(w, "error", code, data)
}

func redirect(w http.ResponseWriter, r *http.Request, to string) {
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// safeNext is a sign-in's destination: a path of the panel, never another
// site.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || next == "" || u.IsAbs() || u.Host != "" || len(u.Path) < len("/operator") || u.Path[:len("/operator")] != "/operator" || (len(next) > 1 && next[1] == '/') {
		return "/operator/prints"
	}
	return next
}

// sameOrigin reports whether an Origin header names this site.
func sameOrigin(origin string, r *http.Request) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Host == r.Host
}
