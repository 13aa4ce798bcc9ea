package panel_test

import (
	"bytes"
	"html"
	"image/png"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/operators"
	"github.com/platen-print/platen/internal/platentest"
)

// browser is an HTTP client with cookies that does not follow redirects.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newBrowser(t *testing.T, base string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: base, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) do(method, path string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.base+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp, string(data)
}

// signIn signs in, again while the answer is 429 (the process's password
// hashes busy: the panel's tests run side by side), as a person would.
func (b *browser) signIn(email, password string) {
	b.t.Helper()
	var resp *http.Response
	var page string
	for range 20 {
		resp, page = b.do("POST", "/operator/login", url.Values{"email": {email}, "password": {password}, "next": {"/operator/prints"}})
		if resp.StatusCode != http.StatusTooManyRequests {
			break
		}
	}
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/operator/prints" {
		b.t.Fatalf("sign-in: %d %s", resp.StatusCode, page)
	}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// TestThePanelSignsInListsAndActs: sign-in (its cookie HttpOnly and
// SameSite=Lax), the prints list with a client's hostile order id shown
// as text, a print's page, a flag with the form's token (and without it,
// refused), another team's print out of reach, sign-out, and sign-ins
// slowed after five wrong passwords.
func TestThePanelSignsInListsAndActs(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme, other := srv.Bootstrap(t, "acme", "acme-shop"), srv.Bootstrap(t, "other", "other-shop")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		hostile := `<img src=x onerror=alert(1)>`
		mine := order(t, srv, acme, hostile)
		theirs := order(t, srv, other, "9001")

		br := newBrowser(t, srv.BaseURL)
		if resp, _ := br.do("GET", "/operator/prints", nil); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/operator/login") {
			t.Fatalf("signed out: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		if resp, page := br.do("POST", "/operator/login", url.Values{"email": {"ada@example.com"}, "password": {"wrong"}}); resp.StatusCode != http.StatusUnauthorized ||
			!strings.Contains(page, "The e-mail or the password is wrong.") {
			t.Errorf("a wrong password: %d %s", resp.StatusCode, page)
		}
		resp, _ := br.do("POST", "/operator/login", url.Values{"email": {"ADA@example.com"}, "password": {member.Password}, "next": {"https://evil.example/"}})
		cookie := resp.Header.Get("Set-Cookie")
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/operator/prints" ||
			!strings.Contains(cookie, "HttpOnly") || !strings.Contains(cookie, "SameSite=Lax") || !strings.Contains(cookie, "Path=/operator") {
			t.Fatalf("sign-in: %d, Location %q, cookie %q", resp.StatusCode, resp.Header.Get("Location"), cookie)
		}

		resp, page := br.do("GET", "/operator/prints", nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, html.EscapeString(hostile)) || strings.Contains(page, hostile) ||
			!strings.Contains(page, `data-print="`+mine+`"`) || strings.Contains(page, theirs) {
			t.Fatalf("the list: %d\n%s", resp.StatusCode, page)
		}
		if resp, rows := br.do("GET", "/operator/prints/rows?query="+url.QueryEscape(hostile), nil); resp.StatusCode != http.StatusOK ||
			!strings.HasPrefix(strings.TrimSpace(rows), `<tbody id="rows"`) || !strings.Contains(rows, mine) {
			t.Errorf("the rows alone: %d %s", resp.StatusCode, rows)
		}
		today := time.Now().UTC().Format(time.DateOnly)
		for query, shown := range map[string]bool{
			"store_id=acme-shop":                    true,
			"store_id=other-shop":                   false,
			"from=" + today + "&to=" + today:        true,
			"from=2000-01-01&to=2000-01-31":         false,
			"from=" + today + "&store_id=acme-shop": true,
		} {
			resp, page := br.do("GET", "/operator/prints?"+query, nil)
			if resp.StatusCode != http.StatusOK || strings.Contains(page, `data-print="`+mine+`"`) != shown {
				t.Errorf("?%s: %d, shows the print %v, want %v", query, resp.StatusCode, !shown, shown)
			}
		}
		// A filter refused keeps the page: its navigation, the form as it
		// was filled, and why.
		resp, page = br.do("GET", "/operator/prints?from=yesterday&query=Web-1&state=failed", nil)
		for _, want := range []string{`<p class="problem" role="alert">from: must be a date (YYYY-MM-DD), got &#34;yesterday&#34;</p>`,
			`<input name="query" value="Web-1"`, `name="from" value="yesterday"`, `<option value="failed" selected>`, `<nav aria-label="Panel">`} {
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, want) {
				t.Errorf("a date that is not one: %d, the page lacks %s:\n%s", resp.StatusCode, want, page)
			}
		}
		resp, page = br.do("GET", "/operator/prints/"+mine, nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, "queued") {
			t.Fatalf("the print's page: %d %s", resp.StatusCode, page)
		}
		csrf := csrfField.FindStringSubmatch(page)[1]

		// A ready print's first page, as a small PNG, made once and kept.
		waitStatus(t, srv, member.Token, mine, "ready")
		for range 2 {
			resp, _ := br.do("GET", "/operator/prints/"+mine+"/preview", nil)
			if resp.StatusCode != http.StatusFound {
				t.Fatalf("preview: %d", resp.StatusCode)
			}
			img, data := platentest.Get(t, http.DefaultClient, resp.Header.Get("Location"))
			if cfg, err := png.DecodeConfig(bytes.NewReader(data)); img.StatusCode != http.StatusOK || err != nil || cfg.Width != 14 {
				t.Errorf("the preview: %d, %v, %+v (a 10 mm page at 36 dpi is 14 pixels wide)", img.StatusCode, err, cfg)
			}
		}
		if resp, _ := br.do("GET", "/operator/prints/"+theirs+"/preview", nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("another team's preview: %d", resp.StatusCode)
		}
		if resp, _ := br.do("POST", "/operator/prints/"+mine+"/flag", url.Values{"reason": {"blurry"}}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("a flag without the form's token: %d", resp.StatusCode)
		}
		if resp, _ := br.do("POST", "/operator/prints/"+mine+"/flag", url.Values{"reason": {"blurry"}, "csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("a flag: %d", resp.StatusCode)
		}
		if _, page = br.do("GET", "/operator/prints/"+mine, nil); !strings.Contains(page, "flagged: blurry (by ada@example.com)") {
			t.Errorf("the history after the flag:\n%s", page)
		}
		for _, path := range []string{"/operator/prints/" + theirs} {
			if resp, _ := br.do("GET", path, nil); resp.StatusCode != http.StatusNotFound {
				t.Errorf("another team's print %s: %d", path, resp.StatusCode)
			}
		}
		if resp, _ := br.do("POST", "/operator/prints/"+theirs+"/cancel", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusNotFound {
			t.Errorf("cancelling another team's print: %d", resp.StatusCode)
		}

		if resp, _ := br.do("POST", "/operator/logout", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-out: %d", resp.StatusCode)
		}
		if resp, _ := br.do("GET", "/operator/prints", nil); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("after sign-out: %d", resp.StatusCode)
		}

		slow := newBrowser(t, srv.BaseURL)
		codes := []int{}
		for range 7 {
			resp, _ := slow.do("POST", "/operator/login", url.Values{"email": {"nobody@example.com"}, "password": {"guess"}})
			codes = append(codes, resp.StatusCode)
		}
		if codes[0] != http.StatusUnauthorized || codes[6] != http.StatusTooManyRequests {
			t.Errorf("seven wrong sign-ins answered %v", codes)
		}
	})
}

// order creates an order of one item, with no print files asked for, and
// returns the item's uid.
func order(t *testing.T, srv *platentest.Server, tenant platentest.Tenant, id string) string {
	t.Helper()
	r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, map[string]any{"store_id": tenant.StoreID, "ecommerce_order_id": id,
		"create_print_files": true, "items": []map[string]any{{"ecommerce_order_item_id": "1", "ecommerce_variant_id": "v", "quantity": 1,
			"template_config": "%7B%22width%22%3A10%2C%22height%22%3A10%2C%22layers%22%3A%5B%5D%7D", "thumbnails": []string{"https://example.com/t.png"}}}})
	if r.Status != http.StatusOK {
		t.Fatalf("order: %d %s", r.Status, r.Raw)
	}
	return r.Object(t)["items"].([]any)[0].(map[string]any)["uid"].(string)
}

// TestExpiredSessionsEndAndGo: a session past its expiry signs no one in,
// and the janitor's purge deletes it. The server's own janitor purges at
// start too, at a moment of its own: the purged session expires an hour
// from now, and the test purges as of two hours from now.
func TestExpiredSessionsEndAndGo(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		store := srv.DB().Operators()
		now := time.Now()
		for token, expires := range map[string]time.Time{"expired": now.Add(-time.Minute), "old": now.Add(time.Hour), "new": now.Add(3 * time.Hour)} {
			if err := store.CreateSession(t.Context(), member.ID, operators.SessionHash(token), expires); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := store.SessionAccount(t.Context(), operators.SessionHash("expired"), time.Now()); err == nil {
			t.Error("an expired session still signs in")
		}
		br := newBrowser(t, srv.BaseURL)
		u, _ := url.Parse(srv.BaseURL + "/operator/")
		br.c.Jar.SetCookies(u, []*http.Cookie{{Name: "platen_operator", Value: "expired", Path: "/operator"}})
		if resp, _ := br.do("GET", "/operator/prints", nil); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("the panel with an expired session: %d", resp.StatusCode)
		}

		later := now.Add(2 * time.Hour)
		if _, err := store.SessionAccount(t.Context(), operators.SessionHash("old"), later); err == nil {
			t.Error("a session past its expiry still signs in")
		}
		// "expired" may have gone already, with the janitor's first pass.
		if n, err := store.PurgeSessions(t.Context(), later); err != nil || n < 1 || n > 2 {
			t.Errorf("purged %d, %v; want the expired ones", n, err)
		}
		if _, err := store.SessionAccount(t.Context(), operators.SessionHash("old"), time.Now()); err == nil {
			t.Error("a purged session is still there")
		}
		if a, err := store.SessionAccount(t.Context(), operators.SessionHash("new"), later); err != nil || a.Email != "ada@example.com" {
			t.Errorf("the live session: %v %v", a, err)
		}
	})
}
