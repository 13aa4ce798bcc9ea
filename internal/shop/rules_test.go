package shop_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
)

// TestIdempotentCreate: the same external_id again answers the existing
// order (200) with the same lines, 409 with others, and never creates a
// second order, also when identical creates race; on both databases.
func TestIdempotentCreate(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		shopA := srv.Bootstrap(t, "acme", "acme-shop")
		register(t, srv, shopA.Token, "sticker-v1", stickerDoc)
		body := shopOrder("SO-1", line("sticker-v1", 2, ""))

		first := data(t, srv.Do(t, "POST", "/v1/shop/orders", shopA.Token, body), http.StatusCreated)
		// The defaulted line id "1" spelled out is the same lines.
		again := data(t, srv.Do(t, "POST", "/v1/shop/orders", shopA.Token, shopOrder("SO-1", line("sticker-v1", 2, "1"))), http.StatusOK)
		if again["reference_number"] != first["reference_number"] || prints(t, again)[0]["id"] != prints(t, first)[0]["id"] {
			t.Errorf("repeat answered another order: %v, first %v", again, first)
		}
		r := srv.Do(t, "POST", "/v1/shop/orders", shopA.Token, shopOrder("SO-1", line("sticker-v1", 3, "")))
		msg, fields := platentest.ErrorBody(t, r, http.StatusConflict)
		if !strings.Contains(msg, first["reference_number"].(string)) || len(fields) != 1 || fields[0] != "external_id" {
			t.Errorf("409: %q %v", msg, fields)
		}

		const racers = 12
		refs := make([]string, racers)
		statuses := make([]int, racers)
		var wg sync.WaitGroup
		for i := range racers {
			wg.Go(func() {
				// Not srv.Do nor r.Object: t.Fatal must not be called off the
				// test's goroutine; a failure shows as status 0 or no reference.
				r, err := srv.Try("POST", "/v1/shop/orders", shopA.Token, shopOrder("SO-race", line("sticker-v1", 1, "")))
				if err != nil {
					t.Errorf("racer %d: %v", i, err)
					return
				}
				statuses[i] = r.Status
				body, _ := r.JSON.(map[string]any)
				if d, ok := body["data"].(map[string]any); ok {
					refs[i], _ = d["reference_number"].(string)
				}
			})
		}
		wg.Wait()
		created := 0
		for i := range racers {
			switch {
			case statuses[i] == http.StatusCreated:
				created++
			case statuses[i] != http.StatusOK:
				t.Errorf("racer %d: status %d", i, statuses[i])
			}
			if refs[i] == "" || refs[i] != refs[0] {
				t.Errorf("racer %d answered reference %q, racer 0 %q", i, refs[i], refs[0])
			}
		}
		if created != 1 {
			t.Errorf("%d racers created the order, want 1", created)
		}
	})
}

// TestIdempotencyKeyReplaysThe201: a create sent again with its
// Idempotency-Key replays the first answer whole, its 201 included (a
// retry without the key is the repeat above, answered 200), and the key
// with another order is a 409 naming the header.
func TestIdempotencyKeyReplaysThe201(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		shopA := srv.Bootstrap(t, "acme", "acme-shop")
		register(t, srv, shopA.Token, "sticker-v1", stickerDoc)
		body := shopOrder("SO-key", line("sticker-v1", 2, ""))

		first := srv.Do(t, "POST", "/v1/shop/orders", shopA.Token, body, "Idempotency-Key", "so-key-1")
		data(t, first, http.StatusCreated)
		replay := srv.Do(t, "POST", "/v1/shop/orders", shopA.Token, body, "Idempotency-Key", "so-key-1")
		if replay.Status != http.StatusCreated || string(replay.Raw) != string(first.Raw) {
			t.Errorf("replay: %d %s; want the first answer, 201 %s", replay.Status, replay.Raw, first.Raw)
		}
		r := srv.Do(t, "POST", "/v1/shop/orders", shopA.Token, shopOrder("SO-other", line("sticker-v1", 1, "")), "Idempotency-Key", "so-key-1")
		if _, fields := platentest.ErrorBody(t, r, http.StatusConflict); len(fields) != 1 || fields[0] != "Idempotency-Key" {
			t.Errorf("the key with another order: fields %v, want Idempotency-Key", fields)
		}
	})
}

// TestBadShopOrders: every bad-input class of shop orders answers its
// status with a JSON error naming the field.
func TestBadShopOrders(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		shopA := srv.Bootstrap(t, "acme", "acme-shop")
		register(t, srv, shopA.Token, "sticker-v1", stickerDoc)
		other := srv.Bootstrap(t, "globex", "globex-shop")
		register(t, srv, other.Token, "globex-v1", stickerDoc)
		ok := func() map[string]any { return line("sticker-v1", 1, "") }
		many := make([]map[string]any, 501)
		for i := range many {
			many[i] = ok()
		}
		cases := []struct {
			name   string
			token  string
			body   any
			status int
			field  string
		}{
			{"missing external_id", shopA.Token, map[string]any{"lines": []any{ok()}}, 400, "external_id"},
			{"no lines", shopA.Token, shopOrder("x"), 400, "lines"},
			{"501 lines", shopA.Token, shopOrder("x", many...), 400, "lines"},
			{"quantity 0", shopA.Token, shopOrder("x", line("sticker-v1", 0, "")), 400, "lines[0].quantity"},
			{"quantity 10001", shopA.Token, shopOrder("x", ok(), line("sticker-v1", 10001, "")), 400, "lines[1].quantity"},
			{"quantity missing", shopA.Token, shopOrder("x", map[string]any{"design_version_id": "sticker-v1"}), 400, "lines[0].quantity"},
			{"quantity as a string", shopA.Token, shopOrder("x", map[string]any{"design_version_id": "sticker-v1", "quantity": "2"}), 400, "lines[0].quantity"},
			{"design_version_id missing", shopA.Token, shopOrder("x", map[string]any{"quantity": 1}), 400, "lines[0].design_version_id"},
			{"unknown design version", shopA.Token, shopOrder("x", ok(), line("nope", 1, "")), 400, "lines[1].design_version_id"},
			{"another team's design version", shopA.Token, shopOrder("x", line("globex-v1", 1, "")), 400, "lines[0].design_version_id"},
			{"a C0 control in external_id", shopA.Token, shopOrder("a\tb", ok()), 400, "external_id"},
			{"a C1 control in external_id", shopA.Token, shopOrder("a\u0085b", ok()), 400, "external_id"},
			{"a C1 control in a line id", shopA.Token, shopOrder("x", line("sticker-v1", 1, "\u009fa")), 400, "lines[0].external_id"},
			{"repeated line id", shopA.Token, shopOrder("x", line("sticker-v1", 1, "a"), line("sticker-v1", 1, "a")), 400, "lines[1].external_id"},
			{"non-store token", srv.TeamToken(t, shopA.TeamID), shopOrder("x", ok()), 403, ""},
			{"no token", "", shopOrder("x", ok()), 401, ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := srv.Do(t, "POST", "/v1/shop/orders", c.token, c.body)
				_, fields := platentest.ErrorBody(t, r, c.status)
				if c.field != "" && (len(fields) == 0 || fields[0] != c.field) {
					t.Errorf("fields %v, want %s", fields, c.field)
				}
			})
		}
		// Nothing of the refused orders was stored.
		if r := srv.Do(t, "GET", "/v1/shop/orders/x", shopA.Token, nil); r.Status != http.StatusNotFound {
			t.Errorf("a refused order exists: %d %s", r.Status, r.Raw)
		}
	})
}

// TestExternalIDInPath: an order is found by an external_id holding a
// slash or other characters that need escaping in a path, as the shop's own
// order numbers may.
func TestExternalIDInPath(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		shopA := srv.Bootstrap(t, "acme", "acme-shop")
		register(t, srv, shopA.Token, "sticker-v1", stickerDoc)
		for _, id := range []string{"INV/2026/001", "a b?c#d%e+f;g", "ÄÖ/ü", "a//b", "/lead"} {
			created := data(t, srv.Do(t, "POST", "/v1/shop/orders", shopA.Token, shopOrder(id, line("sticker-v1", 1, ""))), http.StatusCreated)
			got := data(t, srv.Do(t, "GET", "/v1/shop/orders/"+url.PathEscape(id), shopA.Token, nil), http.StatusOK)
			if got["reference_number"] != created["reference_number"] || got["external_id"] != id {
				t.Errorf("GET by %q answered %v, created %v", id, got, created)
			}
		}
		// Unescaped, a slash is a slash too.
		got := data(t, srv.Do(t, "GET", "/v1/shop/orders/INV/2026/001", shopA.Token, nil), http.StatusOK)
		if got["external_id"] != "INV/2026/001" {
			t.Errorf("GET by the raw path answered %v", got)
		}
	})
}

// TestShopVisibility: another store's or team's order is 404, a team-wide
// token 403; a download token opens its own order's files only, and an
// altered one nothing.
func TestShopVisibility(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		shopA := srv.Bootstrap(t, "acme", "acme-shop")
		shopB := srv.Bootstrap(t, "acme", "acme-outlet")
		globex := srv.Bootstrap(t, "globex", "globex-shop")
		register(t, srv, shopA.Token, "sticker-v1", stickerDoc)
		one := data(t, srv.Do(t, "POST", "/v1/shop/orders", shopA.Token, shopOrder("SO-1", line("sticker-v1", 1, ""))), http.StatusCreated)
		two := data(t, srv.Do(t, "POST", "/v1/shop/orders", shopA.Token, shopOrder("SO-2", line("sticker-v1", 1, ""))), http.StatusCreated)
		ref := one["reference_number"].(string)

		for name, token := range map[string]string{"another store of the team": shopB.Token, "another team": globex.Token} {
			for _, path := range []string{"/v1/shop/orders/" + ref, "/v1/shop/orders/SO-1"} {
				if r := srv.Do(t, "GET", path, token, nil); r.Status != http.StatusNotFound {
					t.Errorf("%s GET %s: %d %s", name, path, r.Status, r.Raw)
				}
			}
		}
		platentest.ErrorBody(t, srv.Do(t, "GET", "/v1/shop/orders/"+ref, srv.TeamToken(t, shopA.TeamID), nil), http.StatusForbidden)

		oneReady := srv.WaitShopOrder(t, shopA.Token, ref)
		twoReady := srv.WaitShopOrder(t, shopA.Token, two["reference_number"].(string))
		link := prints(t, oneReady)[0]["files"].([]any)[0].(map[string]any)["url"].(string)
		otherLink := prints(t, twoReady)[0]["files"].([]any)[0].(map[string]any)["url"].(string)
		path, token, _ := strings.Cut(link, "?token=")
		otherPath, _, _ := strings.Cut(otherLink, "?token=")

		resp, body := platentest.Get(t, platentest.NoRedirect, otherPath+"?token="+token)
		platentest.CheckJSONError(t, resp, body, http.StatusForbidden, "another order")
		tampered := []byte(token)
		tampered[len(tampered)/2] ^= 1
		resp, body = platentest.Get(t, platentest.NoRedirect, path+"?token="+string(tampered))
		platentest.CheckJSONError(t, resp, body, http.StatusForbidden, "")
		resp, body = platentest.Get(t, platentest.NoRedirect, path)
		platentest.CheckJSONError(t, resp, body, http.StatusForbidden, "no token")
		resp, body = platentest.Get(t, platentest.NoRedirect, strings.TrimSuffix(path, "/1")+"/2?token="+token)
		platentest.CheckJSONError(t, resp, body, http.StatusNotFound, "no file 2")
		if resp, _ := platentest.Get(t, platentest.NoRedirect, link); resp.StatusCode != http.StatusFound {
			t.Errorf("the link itself: %d", resp.StatusCode)
		}
	})
}
