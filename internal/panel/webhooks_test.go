package panel_test

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
)

var (
	deliveryRow = regexp.MustCompile(`data-delivery="([^"]+)"`)
	secretCode  = regexp.MustCompile(`<code class="secret">([^<]+)</code>`)
)

// TestThePanelManagesStoreWebhooks: a team's operator lists their team's
// stores only, sets a store's URL (not without the form's token; a bad URL
// answered 400 with the API's message, the URL as typed shown as text),
// reads the secret the API has, rotates it (a new one, shown at once),
// sees a delivery in the log (filtered by status) and resends it, which
// reaches the receiver again; another team's store is 404 everywhere.
func TestThePanelManagesStoreWebhooks(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		hooks := platentest.NewReceiver(t)
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork = true })
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		srv.Bootstrap(t, "other", "other-shop")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		br := newBrowser(t, srv.BaseURL)
		br.signIn(member.Email, member.Password)

		resp, page := br.do("GET", "/operator/webhooks", nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, `data-store="acme-shop"`) || strings.Contains(page, "other-shop") {
			t.Fatalf("the stores: %d\n%s", resp.StatusCode, page)
		}
		const store = "/operator/webhooks/acme-shop"
		resp, page = br.do("GET", store, nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, "No URL yet") || strings.Contains(page, "Rotate the secret") {
			t.Fatalf("a store with no URL: %d\n%s", resp.StatusCode, page)
		}
		csrf := csrfField.FindStringSubmatch(page)[1]

		if resp, _ := br.do("POST", store, url.Values{"url": {hooks.URL}}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("setting the URL without the form's token: %d", resp.StatusCode)
		}
		bad := `ftp://<b>x</b>`
		resp, page = br.do("POST", store, url.Values{"url": {bad}, "csrf": {csrf}})
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "must be an absolute http or https URL") ||
			!strings.Contains(page, `value="`+html.EscapeString(bad)+`"`) || strings.Contains(page, bad) {
			t.Errorf("a bad URL: %d\n%s", resp.StatusCode, page)
		}
		if resp, _ := br.do("POST", store, url.Values{"url": {hooks.URL + "/hooks"}, "csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther ||
			resp.Header.Get("Location") != store+"?done=url" {
			t.Fatalf("setting the URL: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		api := srv.Do(t, "GET", "/api/v1/operator/stores/acme-shop/webhook", member.Token, nil).Object(t)
		resp, page = br.do("GET", store+"?done=url", nil)
		if resp.StatusCode != http.StatusOK || strings.Contains(page, api["secret"].(string)) || secretCode.MatchString(page) ||
			!strings.Contains(page, hooks.URL+"/hooks") || !strings.Contains(page, "The webhook URL is saved.") || !strings.Contains(page, "show the secret") {
			t.Fatalf("the endpoint, its secret not in the page (the API says %v): %d\n%s", api, resp.StatusCode, page)
		}
		if _, page := br.do("GET", store+"?secret=show", nil); secretCode.FindStringSubmatch(page) == nil || html.UnescapeString(secretCode.FindStringSubmatch(page)[1]) != api["secret"] {
			t.Fatalf("the secret asked for (the API says %v):\n%s", api, page)
		}

		if resp, _ := br.do("POST", store+"/rotate", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != store+"?done=rotate" {
			t.Fatalf("rotating: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		_, page = br.do("GET", store+"?done=rotate", nil)
		if m := secretCode.FindStringSubmatch(page); m == nil || html.UnescapeString(m[1]) == api["secret"] || !strings.HasPrefix(m[1], "whsec_") ||
			!strings.Contains(page, "still signs until") {
			t.Errorf("after the rotation, the secret was %v:\n%s", api["secret"], page)
		}

		order(t, srv, acme, "1001") // its ready print is an event for the store
		hooks.Wait(t, 1, 30*time.Second)
		var id string
		deadline := time.Now().Add(30 * time.Second)
		for id == "" {
			if _, page = br.do("GET", store+"?status=delivered", nil); deliveryRow.MatchString(page) {
				id = deliveryRow.FindStringSubmatch(page)[1]
			} else if time.Now().After(deadline) {
				t.Fatalf("no delivery delivered in the log:\n%s", page)
			}
		}
		if !strings.Contains(page, "order_item.print_file.ready") || !strings.Contains(page, "HTTP 200 in") {
			t.Errorf("the delivery's row:\n%s", page)
		}
		if _, page := br.do("GET", store+"?status=failed", nil); deliveryRow.MatchString(page) || !strings.Contains(page, "No deliveries failed.") {
			t.Errorf("the failed deliveries:\n%s", page)
		}
		if resp, _ := br.do("GET", store+"?status=lost", nil); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("a status that is none: %d", resp.StatusCode)
		}
		if resp, _ := br.do("POST", store+"/deliveries/"+id+"/resend", url.Values{}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("a resend without the form's token: %d", resp.StatusCode)
		}
		if resp, _ := br.do("POST", store+"/deliveries/"+id+"/resend", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther ||
			resp.Header.Get("Location") != store+"?done=resend" {
			t.Fatalf("resend: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		hooks.Wait(t, 2, 30*time.Second)

		const theirs = "/operator/webhooks/other-shop"
		for _, call := range []struct {
			method, path string
			form         url.Values
		}{
			{"GET", theirs, nil},
			{"POST", theirs, url.Values{"url": {hooks.URL}, "csrf": {csrf}}},
			{"POST", theirs + "/rotate", url.Values{"csrf": {csrf}}},
			{"POST", theirs + "/deliveries/" + id + "/resend", url.Values{"csrf": {csrf}}},
			{"GET", "/operator/webhooks/nowhere", nil},
		} {
			if resp, page := br.do(call.method, call.path, call.form); resp.StatusCode != http.StatusNotFound || strings.Contains(page, "whsec_") {
				t.Errorf("%s %s: %d", call.method, call.path, resp.StatusCode)
			}
		}
		if resp, _ := br.do("GET", fmt.Sprintf("/operator/webhooks?team_id=%d", acme.TeamID+1), nil); resp.StatusCode != http.StatusForbidden {
			t.Errorf("another team's stores: %d", resp.StatusCode)
		}
	})
}

// TestStaffSeeEveryStoresWebhook: staff list every team's stores, and
// reach any store's page.
func TestStaffSeeEveryStoresWebhook(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		srv.Bootstrap(t, "acme", "acme-shop")
		srv.Bootstrap(t, "other", "other-shop")
		staff := srv.Staff(t, "grace@example.com")
		br := newBrowser(t, srv.BaseURL)
		br.signIn(staff.Email, staff.Password)
		if resp, page := br.do("GET", "/operator/webhooks", nil); resp.StatusCode != http.StatusOK ||
			!strings.Contains(page, `data-store="acme-shop"`) || !strings.Contains(page, `data-store="other-shop"`) {
			t.Errorf("every store: %d\n%s", resp.StatusCode, page)
		}
		if resp, _ := br.do("GET", "/operator/webhooks/other-shop", nil); resp.StatusCode != http.StatusOK {
			t.Errorf("another team's store, for staff: %d", resp.StatusCode)
		}
		if resp, page := br.do("POST", "/operator/webhooks/other-shop/rotate", url.Values{"csrf": {csrfOf(t, br, "/operator/webhooks")}}); resp.StatusCode != http.StatusBadRequest ||
			!strings.Contains(page, "set the store&#39;s webhook URL first") {
			t.Errorf("rotating the secret of a store with no URL: %d\n%s", resp.StatusCode, page)
		}
	})
}

// csrfOf reads the form token of a page.
func csrfOf(t *testing.T, br *browser, path string) string {
	t.Helper()
	_, page := br.do("GET", path, nil)
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no form token on %s:\n%s", path, page)
	}
	return m[1]
}

// TestADeliveryThatFailsReadsSo: a delivery whose endpoint answered 500
// is not shown as merely pending: it reads "Retrying: 1 failed", with the
// answer, until its retries run out; the "failed" filter finds it (and
// "given up" not yet); its payload, the headers it was sent with and the
// endpoint's answer are on the page, and the stores list says the
// endpoint is failing.
func TestADeliveryThatFailsReadsSo(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork = true })
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		hooks := platentest.NewReceiver(t, platentest.Answering(http.StatusInternalServerError), platentest.AnsweringBody(`{"error":"<b>database</b> is down"}`))
		if r := srv.Do(t, "PUT", "/api/v1/operator/stores/acme-shop/webhook", member.Token, map[string]any{"url": hooks.URL + "/hooks"}); r.Status != http.StatusOK {
			t.Fatalf("endpoint: %d %s", r.Status, r.Raw)
		}
		order(t, srv, acme, "1001")
		hooks.Wait(t, 1, 30*time.Second)
		br := newBrowser(t, srv.BaseURL)
		br.signIn(member.Email, member.Password)
		srv.WaitFor(t, 30*time.Second, "the failed attempt on the page", func() bool {
			_, page := br.do("GET", "/operator/webhooks/acme-shop", nil)
			return strings.Contains(page, `data-status="retrying">Retrying: 1 failed</span>`) && strings.Contains(page, "HTTP 500")
		})
		sent := hooks.Deliveries()[0]
		_, page := br.do("GET", "/operator/webhooks/acme-shop?status=failing", nil)
		if !strings.Contains(page, `<pre class="answer">{&#34;error&#34;:&#34;&lt;b&gt;database&lt;/b&gt; is down&#34;}</pre>`) {
			t.Errorf("the answer is not shown as text:\n%s", page)
		}
		read := html.UnescapeString(page)
		for _, want := range []string{`data-status="retrying"`, `<pre class="payload">{`, `"event": "`,
			"<dt>Webhook-Signature</dt><dd><code>" + sent.Header.Get("webhook-signature") + "</code>",
			"<dt>Platen-Delivery</dt><dd><code>" + sent.Header.Get("Platen-Delivery") + "</code>"} {
			if !strings.Contains(read, want) {
				t.Errorf("the failing filter's page lacks %s:\n%s", want, page)
			}
		}
		if _, page := br.do("GET", "/operator/webhooks/acme-shop?status=failed", nil); strings.Contains(page, "data-delivery=") {
			t.Errorf("a delivery still retrying is listed as given up:\n%s", page)
		}
		if _, page := br.do("GET", "/operator/webhooks", nil); !strings.Contains(page, `data-health="failing">Failing: 1 in a row</span>`) {
			t.Errorf("the stores list does not say the endpoint is failing:\n%s", page)
		}
		api := srv.Do(t, "GET", "/api/v1/operator/stores/acme-shop/webhook-deliveries?status=failing", member.Token, nil)
		list := api.Object(t)["webhook_deliveries"].([]any)
		if api.Status != http.StatusOK || len(list) != 1 {
			t.Fatalf("the API's failing deliveries: %d %s", api.Status, api.Raw)
		}
		d := list[0].(map[string]any)
		if d["payload"] != string(sent.Body) || d["request_headers"].(map[string]any)["Platen-Signature"] != sent.Header.Get("Platen-Signature") ||
			d["response_body"] != `{"error":"<b>database</b> is down"}` {
			t.Errorf("the API's delivery: %v", d)
		}
	})
}
