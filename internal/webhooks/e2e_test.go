package webhooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
	"github.com/platen-print/platen/internal/webhooks"
)

const stickerDoc = `{"width":50,"height":50,"bleed":2,"layers":[{"type":"rect","x":5,"y":5,"width":40,"height":40,"fill":"#3030c0"}]}`

// setup starts a server whose webhooks may reach loopback and retry after
// delays, with a tenant whose store sends to endpoint; it returns the
// secret.
func setup(t *testing.T, b platentest.Backend, endpoint string, delays ...time.Duration) (*platentest.Server, platentest.Tenant, string) {
	t.Helper()
	srv := platentest.StartWith(t, b, func(c *config.Config) {
		c.AllowPrivateNetwork = true
		c.WebhookRetryDelays = delays
	})
	tenant := srv.Bootstrap(t, "acme", "acme-shop")
	r := srv.Do(t, "PUT", "/api/v1/stores/acme-shop/webhook", tenant.Token, map[string]any{"url": endpoint + "/hooks"})
	if r.Status != http.StatusOK {
		t.Fatalf("set webhook: %d %s", r.Status, r.Raw)
	}
	ep := r.Object(t)
	secret, _ := ep["secret"].(string)
	if !strings.HasPrefix(secret, "whsec_") || ep["url"] != endpoint+"/hooks" || ep["store_id"] != "acme-shop" {
		t.Fatalf("endpoint %v", ep)
	}
	doc := map[string]any{"design_version_id": "sticker-v1", "template_config": url.QueryEscape(stickerDoc)}
	if r := srv.Do(t, "POST", "/api/v1/design-versions", tenant.Token, doc); r.Status != http.StatusOK {
		t.Fatalf("register design: %d %s", r.Status, r.Raw)
	}
	return srv, tenant, secret
}

// withHeader is d with one header replaced.
func withHeader(d platentest.Delivery, key, value string) platentest.Delivery {
	d.Header = d.Header.Clone()
	d.Header.Set(key, value)
	return d
}

// checkSignatures verifies both signature headers of a request, byte for
// byte, as a receiver would.
func checkSignatures(t *testing.T, secret string, r platentest.Delivery) {
	t.Helper()
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(r.Body)
	if got, want := r.Header.Get("Platen-Signature"), "sha256="+hex.EncodeToString(mac.Sum(nil)); got != want {
		t.Errorf("Platen-Signature %q, want %q", got, want)
	}
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	std := hmac.New(sha256.New, key)
	std.Write([]byte(r.Header.Get("webhook-id") + "." + r.Header.Get("webhook-timestamp") + "."))
	std.Write(r.Body)
	if got, want := r.Header.Get("webhook-signature"), "v1,"+base64.StdEncoding.EncodeToString(std.Sum(nil)); got != want {
		t.Errorf("webhook-signature %q, want %q", got, want)
	}
	ts, err := strconv.ParseInt(r.Header.Get("webhook-timestamp"), 10, 64)
	if err != nil || time.Since(time.Unix(ts, 0)) > time.Minute {
		t.Errorf("webhook-timestamp %q", r.Header.Get("webhook-timestamp"))
	}
}

// TestPrintFilesReadyWebhook: a shop print turning ready is delivered to
// the store's endpoint, signed over the exact bytes; the receiver answers
// 500 twice and then 200, and sees three attempts of one delivery, which
// the log then shows delivered; on both databases.
func TestPrintFilesReadyWebhook(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		rcv := platentest.NewReceiver(t, platentest.FirstAnswering(500, 500))
		srv, tenant, secret := setup(t, b, rcv.URL, 100*time.Millisecond, 100*time.Millisecond, time.Minute)
		r := srv.Do(t, "POST", "/v1/shop/orders", tenant.Token, map[string]any{
			"external_id": "SO-1", "lines": []any{map[string]any{"design_version_id": "sticker-v1", "quantity": 4, "external_id": "L1"}}})
		if r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		printID := r.Object(t)["data"].(map[string]any)["lines"].([]any)[0].(map[string]any)["prints"].([]any)[0].(map[string]any)["id"]

		got := rcv.Wait(t, 3, 30*time.Second)
		delivery := got[0].Header.Get("Platen-Delivery")
		for i, req := range got {
			if req.Header.Get("Platen-Delivery") != delivery || req.Header.Get("webhook-id") != delivery || delivery == "" {
				t.Errorf("attempt %d: Platen-Delivery %q, webhook-id %q; want %q on every attempt",
					i+1, req.Header.Get("Platen-Delivery"), req.Header.Get("webhook-id"), delivery)
			}
			if req.Header.Get("Platen-Event") != "print_files.ready" || req.Header.Get("Content-Type") != "application/json" ||
				req.Header.Values("Platen-Signature-Previous") != nil {
				t.Errorf("attempt %d: headers %v", i+1, req.Header)
			}
			if string(req.Body) != string(got[0].Body) {
				t.Errorf("attempt %d sent other bytes", i+1)
			}
			checkSignatures(t, secret, req)
		}
		var body map[string]any
		if err := json.Unmarshal(got[2].Body, &body); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"event": "print_files.ready", "order_external_id": "SO-1", "line_external_id": "L1",
			"design_version_id": "sticker-v1", "print_id": printID, "status": "ready"}
		for k, v := range want {
			if body[k] != v {
				t.Errorf("body %s = %v, want %v", k, body[k], v)
			}
		}
		checkKeys(t, body, "event", "order_external_id", "line_external_id", "design_version_id", "print_id", "status", "files", "sent_at")
		if sent, err := time.Parse(time.RFC3339, fmt.Sprint(body["sent_at"])); err != nil || time.Since(sent) > time.Minute {
			t.Errorf("sent_at %v: want an RFC 3339 time with its offset, of now", body["sent_at"])
		}
		files, _ := body["files"].([]any)
		if len(files) != 1 {
			t.Fatalf("files %v", body["files"])
		}
		f := files[0].(map[string]any)
		if f["index"] != 1.0 || f["type"] != "single_file" || f["copies"] != 4.0 {
			t.Errorf("file %v", f)
		}
		checkKeys(t, f, "index", "type", "copies", "url", "size", "sha256")
		resp, pdf := platentest.Download(t, f["url"].(string))
		if resp.Header.Get("Content-Type") != "application/pdf" || len(pdf) == 0 {
			t.Errorf("the webhook's link: %v, %d bytes", resp.Header, len(pdf))
		}
		platentest.CheckFileDigest(t, "the event's file", f, pdf)

		log := waitLog(t, srv, tenant.Token, func(d map[string]any) bool { return d["status"] == "delivered" })
		if log["id"] != delivery || log["event"] != "print_files.ready" || log["attempts"] != 3.0 ||
			log["last_status_code"] != 200.0 || log["delivered_at"] == nil || log["last_error"] != nil || log["next_attempt_at"] != nil {
			t.Errorf("delivery log %v", log)
		}
		// Once its job has finished, nothing can attempt the delivery again.
		waitDeliveryJobsFinished(t, srv)
		if n := len(rcv.Deliveries()); n != 3 {
			t.Errorf("the receiver saw %d requests once the delivery's job finished, want 3", n)
		}
	})
}

// waitDeliveryJobsFinished waits until no delivery job of the server can
// run again: each has completed, or was cancelled or discarded.
func waitDeliveryJobsFinished(t *testing.T, srv *platentest.Server) {
	t.Helper()
	srv.WaitFor(t, 30*time.Second, "the delivery jobs finished", func() bool {
		return srv.UnfinishedJobs(t, webhooks.DeliverKind) == 0
	})
}

// checkKeys fails unless body has exactly the keys named (the spec's
// fields of an event body, no more, no fewer).
func checkKeys(t *testing.T, body map[string]any, keys ...string) {
	t.Helper()
	got := slices.Sorted(maps.Keys(body))
	slices.Sort(keys)
	if !slices.Equal(got, keys) {
		t.Errorf("body keys %v, want %v", got, keys)
	}
}

// waitLog polls the store's delivery log until its newest entry satisfies
// done, and returns it.
func waitLog(t *testing.T, srv *platentest.Server, token string, done func(map[string]any) bool) map[string]any {
	t.Helper()
	var r *platentest.Response
	var newest map[string]any
	if !poll.Within(30*time.Second, srv.JobEnded(), func() bool {
		r = srv.Do(t, "GET", "/api/v1/stores/acme-shop/webhook-deliveries", token, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("delivery log: %d %s", r.Status, r.Raw)
		}
		list, _ := r.Object(t)["webhook_deliveries"].([]any)
		if len(list) == 0 {
			return false
		}
		newest = list[0].(map[string]any)
		return done(newest)
	}) {
		t.Fatalf("delivery log: %s", r.Raw)
	}
	return newest
}

// TestItemPrintWebhooks: a Family A order with create_print_files sends
// order_item.print_file.ready (with the url, and the file's size and
// sha256; error null) and .failed (url, size and sha256 null; error the
// reason, as the item's print status says it).
func TestItemPrintWebhooks(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		rcv := platentest.NewReceiver(t)
		srv, tenant, secret := setup(t, b, rcv.URL)
		item := func(id, doc string) map[string]any {
			return map[string]any{"ecommerce_order_item_id": id, "ecommerce_variant_id": "v", "quantity": 1,
				"thumbnails": []string{"https://example.com/t.png"}, "template_config": url.QueryEscape(doc)}
		}
		r := srv.Do(t, "POST", "/api/v1/orders", tenant.Token, map[string]any{
			"store_id": "acme-shop", "ecommerce_order_id": "1001", "create_print_files": true,
			"items": []any{item("1001-1", stickerDoc), item("1001-2", `{"width":10,"height":10,"layers":[{"type":"text","text":"hi","font":"Nope","size":12}]}`)}})
		if r.Status != http.StatusOK {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		orderUID := r.Object(t)["uid"]
		events := map[string]map[string]any{}
		for _, req := range rcv.Wait(t, 2, 30*time.Second) {
			checkSignatures(t, secret, req)
			var body map[string]any
			if err := json.Unmarshal(req.Body, &body); err != nil {
				t.Fatal(err)
			}
			if req.Header.Get("Platen-Event") != body["event"] {
				t.Errorf("Platen-Event %q, body event %v", req.Header.Get("Platen-Event"), body["event"])
			}
			events[body["ecommerce_order_item_id"].(string)] = body
		}
		ready, failed := events["1001-1"], events["1001-2"]
		if ready["event"] != "order_item.print_file.ready" || ready["status"] != "ready" || ready["order_uid"] != orderUID ||
			ready["store_id"] != "acme-shop" || ready["ecommerce_order_id"] != "1001" || ready["order_item_uid"] == nil {
			t.Errorf("ready event %v", ready)
		}
		link, _ := ready["url"].(string)
		if !strings.Contains(link, "/api/v1/print-files/") {
			t.Fatalf("ready url %v", ready["url"])
		}
		_, pdf := platentest.Download(t, link)
		platentest.CheckFileDigest(t, "the ready event", ready, pdf)
		platentest.CheckNoFileDigest(t, "the failed event", failed)
		if sent, err := time.Parse(time.RFC3339, ready["sent_at"].(string)); err != nil || time.Since(sent) > time.Minute {
			t.Errorf("sent_at %v", ready["sent_at"])
		}
		if failed["event"] != "order_item.print_file.failed" || failed["status"] != "processingfailed" || failed["url"] != nil {
			t.Errorf("failed event %v", failed)
		}
		const reason = `layers[0]: unknown font "Nope" (known: Go-Bold, Go-BoldItalic, Go-Italic, Go-Medium, Go-MediumItalic, Go-Mono, Go-Mono-Bold, Go-Mono-BoldItalic, Go-Mono-Italic, Go-Regular, Go-Smallcaps, Go-Smallcaps-Italic)`
		if ready["error"] != nil || failed["error"] != reason {
			t.Errorf("error: ready %v, failed %v; want null and %q", ready["error"], failed["error"], reason)
		}
		status := srv.Do(t, "GET", "/api/v1/order-items/1001-2/print", tenant.Token, nil).Object(t)
		if status["error"] != failed["error"] {
			t.Errorf("the print status says %v, the event %v", status["error"], failed["error"])
		}
		for _, body := range []map[string]any{ready, failed} {
			checkKeys(t, body, "event", "store_id", "order_uid", "ecommerce_order_id", "ecommerce_order_item_id",
				"order_item_uid", "status", "url", "size", "sha256", "error", "sent_at")
		}
	})
}

// TestDeliverySurvivesRestart: a delivery waiting for its retry when the
// server stops is delivered by the next start.
func TestDeliverySurvivesRestart(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		rcv := platentest.NewReceiver(t, platentest.FirstAnswering(503))
		srv, tenant, secret := setup(t, b, rcv.URL, 2*time.Second)
		r := srv.Do(t, "POST", "/v1/shop/orders", tenant.Token, map[string]any{
			"external_id": "SO-1", "lines": []any{map[string]any{"design_version_id": "sticker-v1", "quantity": 1}}})
		if r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		first := rcv.Wait(t, 1, 30*time.Second)[0]
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		again := platentest.StartConfig(t, srv.Config)
		got := rcv.Wait(t, 2, 30*time.Second)
		if got[1].Header.Get("Platen-Delivery") != first.Header.Get("Platen-Delivery") || string(got[1].Body) != string(first.Body) {
			t.Errorf("the retry after the restart is another delivery")
		}
		checkSignatures(t, secret, got[1])
		log := waitLog(t, again, tenant.Token, func(d map[string]any) bool { return d["status"] == "delivered" })
		if log["attempts"] != 2.0 {
			t.Errorf("delivery log %v", log)
		}
	})
}

// TestFailedDeliveryResend: a delivery whose every attempt fails ends
// failed in the log; a resend delivers it with the same id and bytes.
func TestFailedDeliveryResend(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		rcv := platentest.NewReceiver(t, platentest.FirstAnswering(500, 502))
		srv, tenant, _ := setup(t, b, rcv.URL, 50*time.Millisecond)
		if r := srv.Do(t, "POST", "/v1/shop/orders", tenant.Token, map[string]any{
			"external_id": "SO-1", "lines": []any{map[string]any{"design_version_id": "sticker-v1", "quantity": 1}}}); r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		failed := waitLog(t, srv, tenant.Token, func(d map[string]any) bool { return d["status"] == "failed" })
		if failed["attempts"] != 2.0 || failed["last_status_code"] != 502.0 || failed["next_attempt_at"] != nil ||
			!strings.Contains(fmt.Sprint(failed["last_error"]), "502") {
			t.Errorf("failed delivery %v", failed)
		}
		if r := srv.Do(t, "GET", "/api/v1/stores/acme-shop/webhook-deliveries?status=pending", tenant.Token, nil); len(r.Object(t)["webhook_deliveries"].([]any)) != 0 {
			t.Errorf("?status=pending lists %s", r.Raw)
		}
		id := failed["id"].(string)
		r := srv.Do(t, "POST", "/api/v1/stores/acme-shop/webhook-deliveries/"+id+"/resend", tenant.Token, map[string]any{})
		if r.Status != http.StatusOK || r.Object(t)["status"] != "pending" {
			t.Fatalf("resend: %d %s", r.Status, r.Raw)
		}
		delivered := waitLog(t, srv, tenant.Token, func(d map[string]any) bool { return d["status"] == "delivered" })
		if delivered["id"] != id || delivered["attempts"] != 1.0 || delivered["last_status_code"] != 200.0 {
			t.Errorf("after the resend: %v", delivered)
		}
		got := rcv.Deliveries()
		if len(got) != 3 || got[2].Header.Get("Platen-Delivery") != id || string(got[2].Body) != string(got[0].Body) {
			t.Errorf("the receiver saw %d requests; the resend must repeat the delivery", len(got))
		}
		if r := srv.Do(t, "POST", "/api/v1/stores/acme-shop/webhook-deliveries/nope/resend", tenant.Token, map[string]any{}); r.Status != http.StatusNotFound {
			t.Errorf("resend of an unknown delivery: %d", r.Status)
		}
	})
}

// TestEndpointRules: a webhook URL must be http(s), and not reach the
// service's own network unless --allow-private-network; only stores the
// token may use can be set; rotate_secret keeps the old secret 24 h.
func TestEndpointRules(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		globex := srv.Bootstrap(t, "globex", "globex-shop")
		put := func(token, store string, body map[string]any) *platentest.Response {
			return srv.Do(t, "PUT", "/api/v1/stores/"+store+"/webhook", token, body)
		}
		for _, bad := range []string{"", "ftp://example.com/h", "/relative", "http://127.0.0.1:9/h", "http://10.1.2.3/h",
			"http://169.254.169.254/latest", "http://[::1]/h", "http://localhost/h"} {
			_, fields := platentest.ErrorBody(t, put(acme.Token, "acme-shop", map[string]any{"url": bad}), http.StatusBadRequest)
			if len(fields) != 1 || fields[0] != "url" {
				t.Errorf("url %q: fields %v", bad, fields)
			}
		}
		platentest.ErrorBody(t, put(acme.Token, "globex-shop", map[string]any{"url": "https://example.com/h"}), http.StatusForbidden)
		platentest.ErrorBody(t, put(globex.Token, "acme-shop", map[string]any{"url": "https://example.com/h"}), http.StatusForbidden)
		platentest.ErrorBody(t, put(acme.Token, "no-such-store", map[string]any{"url": "https://example.com/h"}), http.StatusForbidden)
		for query, field := range map[string]string{"page_size=abc": "page_size", "page_size=-1": "page_size", "status=bogus": "status"} {
			r := srv.Do(t, "GET", "/api/v1/stores/acme-shop/webhook-deliveries?"+query, acme.Token, nil)
			if _, fields := platentest.ErrorBody(t, r, http.StatusBadRequest); len(fields) != 1 || fields[0] != field {
				t.Errorf("delivery log ?%s: fields %v, want %s", query, fields, field)
			}
		}

		// A public address by IP, so that the check needs no DNS here.
		first := put(acme.Token, "acme-shop", map[string]any{"url": "https://93.184.215.14/h"}).Object(t)
		rotated := put(acme.Token, "acme-shop", map[string]any{"url": "https://93.184.215.14/h", "rotate_secret": true}).Object(t)
		if first["secret"] == rotated["secret"] || first["previous_secret_expires_at"] != nil {
			t.Errorf("rotation: %v then %v", first, rotated)
		}
		expires, err := time.Parse(time.RFC3339Nano, fmt.Sprint(rotated["previous_secret_expires_at"]))
		if err != nil || time.Until(expires) < 23*time.Hour || time.Until(expires) > 25*time.Hour {
			t.Errorf("previous_secret_expires_at %v", rotated["previous_secret_expires_at"])
		}
	})
}

// TestEndpointURLHostileForms: PUT …/webhook through the HTTP server
// refuses, as a 400 naming url, IPv6 addresses that carry a refused IPv4
// address (a translator or tunnel would deliver to it) and ports no
// delivery could use; the ports even with --allow-private-network.
func TestEndpointURLHostileForms(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		open := platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork = true })
		put := func(s *platentest.Server, token, url string) *platentest.Response {
			return s.Do(t, "PUT", "/api/v1/stores/acme-shop/webhook", token, map[string]any{"url": url})
		}
		refused := map[string]string{ // url → what the message says
			"http://[::127.0.0.1]/h":                      "IPv4-compatible address for 127.0.0.1, a loopback address",
			"http://[::ffff:0:7f00:1]/h":                  "IPv4-translated address for 127.0.0.1, a loopback address",
			"http://[::ffff:127.0.0.1]/h":                 "::ffff:127.0.0.1 is a loopback address",
			"https://[64:ff9b::a9fe:a9fe]/latest":         "NAT64 address for 169.254.169.254, the cloud metadata address",
			"https://[64:ff9b:1::a00:1]/h":                "local-use NAT64 address for 10.0.0.1, a private address",
			"https://[2002:c0a8:101::1]/h":                "6to4 address for 192.168.1.1, a private address",
			"https://[2001:0:808:808::80ff:fffe]/h":       "Teredo address whose client is 127.0.0.1, a loopback address",
			"https://[2001:0:a00:1::f7f7:f7f7]/h":         "Teredo address whose server is 10.0.0.1, a private address",
			"http://[::ffff:0:169.254.169.254]:8080/meta": "IPv4-translated address for 169.254.169.254, the cloud metadata address",
		}
		badPorts := map[string]string{
			"https://93.184.215.14:65536/h":  "port 65536 is not between 1 and 65535",
			"https://93.184.215.14:0/h":      "port 0 is not between 1 and 65535",
			"https://hooks.example:99999/h":  "port 99999 is not between 1 and 65535",
			"https://93.184.215.14:https/h":  "must be an absolute http or https URL",
			"https://[2606:4700::1]:70000/h": "port 70000 is not between 1 and 65535",
		}
		check := func(s *platentest.Server, token, url, want string) {
			t.Helper()
			msg, fields := platentest.ErrorBody(t, put(s, token, url), http.StatusBadRequest)
			if len(fields) != 1 || fields[0] != "url" || !strings.Contains(msg, want) {
				t.Errorf("url %q: %q naming %v, want it to name url and say %q", url, msg, fields, want)
			}
		}
		token := srv.Bootstrap(t, "acme", "acme-shop").Token
		for url, want := range refused {
			check(srv, token, url, want)
		}
		for url, want := range badPorts {
			check(srv, token, url, want)
		}
		openToken := open.Bootstrap(t, "acme", "acme-shop").Token
		for url, want := range badPorts {
			check(open, openToken, url, want)
		}
		for url := range refused {
			if r := put(open, openToken, url); r.Status != http.StatusOK {
				t.Errorf("--allow-private-network, url %q: %d %s", url, r.Status, r.Raw)
			}
		}
		if r := put(srv, token, "https://93.184.215.14:65535/h"); r.Status != http.StatusOK {
			t.Errorf("port 65535: %d %s", r.Status, r.Raw)
		}
	})
}

// TestRotationSignsWithBoth: after a rotation, Platen-Signature is the new
// secret's signature alone (a receiver comparing the header verifies it),
// Platen-Signature-Previous the old one's, and webhook-signature lists
// both, new first.
func TestRotationSignsWithBoth(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		rcv := platentest.NewReceiver(t)
		srv, tenant, old := setup(t, b, rcv.URL)
		r := srv.Do(t, "PUT", "/api/v1/stores/acme-shop/webhook", tenant.Token, map[string]any{"url": rcv.URL + "/hooks", "rotate_secret": true})
		newSecret, _ := r.Object(t)["secret"].(string)
		if r.Status != http.StatusOK || newSecret == old {
			t.Fatalf("rotate: %d %s", r.Status, r.Raw)
		}
		if r := srv.Do(t, "POST", "/v1/shop/orders", tenant.Token, map[string]any{
			"external_id": "SO-1", "lines": []any{map[string]any{"design_version_id": "sticker-v1", "quantity": 1}}}); r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		got := rcv.Wait(t, 1, 30*time.Second)[0]
		standardSigs := strings.Split(got.Header.Get("webhook-signature"), " ")
		if len(standardSigs) != 2 || strings.Contains(got.Header.Get("Platen-Signature"), ",") {
			t.Fatalf("Platen-Signature %q and webhook-signature %q, want one and two", got.Header.Get("Platen-Signature"), got.Header.Get("webhook-signature"))
		}
		checkSignatures(t, newSecret, withHeader(got, "webhook-signature", standardSigs[0]))
		previous := withHeader(got, "Platen-Signature", got.Header.Get("Platen-Signature-Previous"))
		checkSignatures(t, old, withHeader(previous, "webhook-signature", standardSigs[1]))
	})
}

// TestRotationsWithinADayKeepEverySecretsDay: a rotation soon after
// another keeps the first one's promise: the original secret still signs
// (in webhook-signature) until its day ends, beside the two newer ones.
// Up to four secrets sign at once; a rotation past that is a 409 naming
// when the oldest stops.
func TestRotationsWithinADayKeepEverySecretsDay(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		rcv := platentest.NewReceiver(t)
		srv, tenant, original := setup(t, b, rcv.URL)
		rotate := func() *platentest.Response {
			return srv.Do(t, "PUT", "/api/v1/stores/acme-shop/webhook", tenant.Token, map[string]any{"url": rcv.URL + "/hooks", "rotate_secret": true})
		}
		secrets := []string{original}
		for range 3 {
			r := rotate()
			if r.Status != http.StatusOK {
				t.Fatalf("rotate: %d %s", r.Status, r.Raw)
			}
			secrets = append([]string{r.Object(t)["secret"].(string)}, secrets...)
		}
		refused := rotate()
		if _, fields := platentest.ErrorBody(t, refused, http.StatusConflict); len(fields) != 1 || fields[0] != "rotate_secret" {
			t.Errorf("a fourth rotation within the day: fields %v, want rotate_secret", fields)
		}
		if msg := refused.Object(t)["message"]; !strings.Contains(fmt.Sprint(msg), time.Now().Add(24*time.Hour).UTC().Format("2006-01-02T15")) {
			t.Errorf("the refusal %q does not name when the oldest secret stops (in a day)", msg)
		}
		if r := srv.Do(t, "POST", "/v1/shop/orders", tenant.Token, map[string]any{
			"external_id": "SO-1", "lines": []any{map[string]any{"design_version_id": "sticker-v1", "quantity": 1}}}); r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		got := rcv.Wait(t, 1, 30*time.Second)[0]
		sigs := strings.Split(got.Header.Get("webhook-signature"), " ")
		if len(sigs) != len(secrets) {
			t.Fatalf("webhook-signature %q: %d signatures, want one per secret still in its day (%d)", got.Header.Get("webhook-signature"), len(sigs), len(secrets))
		}
		checkSignatures(t, secrets[0], withHeader(got, "webhook-signature", sigs[0]))
		for i, secret := range secrets[1:] {
			// Each retired secret's Standard Webhooks signature, newest first;
			// Platen-Signature-Previous is the previous secret's.
			mac := hmac.New(sha256.New, []byte(secret))
			mac.Write(got.Body)
			if i == 0 && got.Header.Get("Platen-Signature-Previous") != "sha256="+hex.EncodeToString(mac.Sum(nil)) {
				t.Errorf("Platen-Signature-Previous is not the previous secret's")
			}
			checkSignatures(t, secret, withHeader(withHeader(got, "Platen-Signature", "sha256="+hex.EncodeToString(mac.Sum(nil))), "webhook-signature", sigs[i+1]))
		}
	})
}
