package panel

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"time"

	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/operators"
)

// cookieName is the session cookie's.
const cookieName = "platen_operator"

// session is a signed-in request's operator and its session token.
type session struct {
	account *operators.Account
	token   string
}

// principal is the operator as the operator API knows them.
func (s *session) principal() auth.Principal {
	p := auth.Principal{OperatorID: s.account.ID, Staff: s.account.Staff}
	if s.account.TeamID != nil {
		p.TeamID = *s.account.TeamID
	}
	return p
}

// csrf is the session's form token: an HMAC of the session token, so that
// only a page of this session can have it, and nothing is stored.
func (s *session) csrf() string {
	mac := hmac.New(sha256.New, []byte(s.token))
	mac.Write([]byte("platen operator panel forms"))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// validCSRF compares a form's token in constant time.
func (s *session) validCSRF(token string) bool {
	return hmac.Equal([]byte(token), []byte(s.csrf()))
}

// sessionOf reads the request's session; nil when it has none or it ended.
func (p *Panel) sessionOf(r *http.Request) *session {
	c, err := r.Cookie(cookieName)
	if err != nil || c.Value == "" {
		return nil
	}
	account, err := p.sessions.SessionAccount(r.Context(), operators.SessionHash(c.Value), time.Now())
	if err != nil {
		return nil
	}
	return &session{account: account, token: c.Value}
}

// setCookie starts the browser's session: HttpOnly, SameSite=Lax, Secure
// when the panel is served over https.
func setCookie(w http.ResponseWriter, r *http.Request, token string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: token, Path: "/operator", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https",
	})
}

// withOperator is ctx acting as the session's operator.
func withOperator(ctx context.Context, s *session) context.Context {
	return context.WithValue(auth.WithPrincipal(ctx, s.principal()), sessionKey{}, s)
}

// sessionKey holds the signed-in operator's session in a request's
// context, for the pages that answer an error to show the navigation.
type sessionKey struct{}

// sessionFrom is the request's session; nil when no one signed in.
func sessionFrom(ctx context.Context) *session {
	s, _ := ctx.Value(sessionKey{}).(*session)
	return s
}
