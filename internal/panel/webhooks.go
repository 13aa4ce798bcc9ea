package panel

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
)

// deliveriesPerPage keeps a store's log page short enough to scan.
const deliveriesPerPage = 20

// webhookRoutes serves the webhooks pages: the stores the operator sees,
// and each store's endpoint and delivery log.
func (p *Panel) webhookRoutes() {
	p.mux.HandleFunc("GET /operator/webhooks", p.signedIn(p.webhooksPage))
	p.mux.HandleFunc("GET /operator/webhooks/{store}", p.signedIn(p.webhookPage))
	p.mux.HandleFunc("POST /operator/webhooks/{store}", p.signedIn(p.setWebhookURL))
	p.mux.HandleFunc("POST /operator/webhooks/{store}/rotate", p.signedIn(p.rotateSecret))
	p.mux.HandleFunc("POST /operator/webhooks/{store}/deliveries/{id}/resend", p.signedIn(p.resendDelivery))
}

// webhooksPage lists the stores the operator sees (a team's operator their
// team's), each leading to its webhook.
func (p *Panel) webhooksPage(w http.ResponseWriter, r *http.Request, s *session) {
	q := r.URL.Query()
	team, err := formTeam(q.Get("team_id"))
	if err != nil {
		p.fail(w, r, err)
		return
	}
	resp, err := p.api.ListStores(r.Context(), &platenv1.ListStoresRequest{TeamId: team, PageToken: q.Get("page_token")})
	if err != nil {
		p.fail(w, r, err)
		return
	}
	p.render(w, "webhooks", http.StatusOK, map[string]any{"Operator": s.account, "CSRF": s.csrf(), "Stores": resp.Stores,
		"TeamID": q.Get("team_id"), "Next": pageLink("/operator/webhooks", filterOf(q, "team_id"), resp.NextPageToken)})
}

// webhookPage is one store's endpoint and delivery log.
func (p *Panel) webhookPage(w http.ResponseWriter, r *http.Request, s *session) {
	data, err := p.webhookData(r, s)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	data["Notice"] = notices[r.URL.Query().Get("done")]
	// The secret is in the page only when asked for, or right after a
	// rotation, to copy to the receiver: never folded away in the source.
	data["Revealed"] = r.URL.Query().Get("done") == "rotate" || r.URL.Query().Get("secret") == "show"
	p.render(w, "webhook", http.StatusOK, data)
}

// notices are what a redirect's done= says happened; unknown values say
// nothing, so a link cannot put words on the page.
var notices = map[string]string{
	"url":    "The webhook URL is saved.",
	"rotate": "The secret is replaced: the previous one signs deliveries along with it until it expires. Give your receiver the new one.",
	"resend": "The delivery is queued to be sent again.",
	"team":   "The team is created.",
	"store":  "The store is created.",
	"revoke": "The token is revoked: requests with it are refused within seconds.",
}

// webhookData reads a store's delivery log page (which also tells whether
// the operator may see the store: 404 if not) and then its endpoint, which
// may not be set yet.
func (p *Panel) webhookData(r *http.Request, s *session) (map[string]any, error) {
	store, q := r.PathValue("store"), r.URL.Query()
	log, err := p.api.ListWebhookDeliveries(r.Context(), &platenv1.ListWebhookDeliveriesRequest{
		StoreId: store, Status: q.Get("status"), PageSize: deliveriesPerPage, PageToken: q.Get("page_token")})
	if err != nil {
		return nil, err
	}
	endpoint, err := p.endpoint(r.Context(), store)
	if err != nil {
		return nil, err
	}
	data := map[string]any{"Operator": s.account, "CSRF": s.csrf(), "StoreID": store, "Endpoint": endpoint,
		"Deliveries": log.WebhookDeliveries, "Status": q.Get("status"),
		"Next": pageLink("/operator/webhooks/"+url.PathEscape(store), filterOf(q, "status"), log.NextPageToken)}
	if endpoint != nil {
		data["URL"], data["Hint"] = endpoint.Url, secretHint(endpoint.Secret)
	}
	return data, nil
}

// endpoint is the store's endpoint, nil when it has no URL yet (the store
// itself was found by the caller).
func (p *Panel) endpoint(ctx context.Context, store string) (*platenv1.WebhookEndpoint, error) {
	e, err := p.api.GetWebhookEndpoint(ctx, &platenv1.GetWebhookEndpointRequest{StoreId: store})
	if errors.Is(err, apierr.ErrNotFound) || status.Code(err) == codes.NotFound {
		return nil, nil
	}
	return e, err
}

// visible is nil when the operator sees the store, else the API's 404: the
// endpoint's NOT_FOUND does not tell a store with no URL from another
// team's; its delivery log does.
func (p *Panel) visible(ctx context.Context, store string) error {
	_, err := p.api.ListWebhookDeliveries(ctx, &platenv1.ListWebhookDeliveriesRequest{StoreId: store, PageSize: 1})
	return err
}

// secretHint is the secret with all but its kind and its last characters
// hidden, to tell secrets apart on a screen others may see.
func secretHint(secret string) string {
	const shown = 4
	if len(secret) <= len("whsec_")+shown {
		return "whsec_…"
	}
	return "whsec_…" + secret[len(secret)-shown:]
}

// setWebhookURL saves the store's URL; a URL the API refuses shows the
// page again with its message and the URL as typed.
func (p *Panel) setWebhookURL(w http.ResponseWriter, r *http.Request, s *session) {
	store, raw := r.PathValue("store"), strings.TrimSpace(r.PostFormValue("url"))
	_, err := p.api.SetWebhookEndpoint(r.Context(), &platenv1.SetWebhookEndpointRequest{StoreId: store, Url: raw})
	var invalid *apierr.ValidationError
	if errors.As(err, &invalid) || status.Code(err) == codes.InvalidArgument {
		p.urlRefused(w, r, s, raw, err)
		return
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	redirect(w, r, "/operator/webhooks/"+url.PathEscape(store)+"?done=url")
}

// urlRefused shows the store's page again with the API's reason for refusing
// raw, as a 400.
func (p *Panel) urlRefused(w http.ResponseWriter, r *http.Request, s *session, raw string, refusal error) {
	data, err := p.webhookData(r, s)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	data["URL"], data["Error"] = raw, apierr.ToStatus(r.Context(), refusal).Message()
	p.render(w, "webhook", http.StatusBadRequest, data)
}

// rotateSecret replaces the store's secret, keeping its URL; the page then
// shows the new secret.
func (p *Panel) rotateSecret(w http.ResponseWriter, r *http.Request, s *session) {
	store := r.PathValue("store")
	e, err := p.endpoint(r.Context(), store)
	if err == nil && e == nil {
		err = p.visible(r.Context(), store) // no endpoint, or no store of theirs: 404 then
	}
	if err == nil && e == nil {
		err = apierr.Precondition("set the store's webhook URL first: a secret signs deliveries to it")
	}
	if err == nil {
		_, err = p.api.SetWebhookEndpoint(r.Context(), &platenv1.SetWebhookEndpointRequest{StoreId: store, Url: e.Url, RotateSecret: true})
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	redirect(w, r, "/operator/webhooks/"+url.PathEscape(store)+"?done=rotate")
}

// resendDelivery queues a delivery again and shows the log.
func (p *Panel) resendDelivery(w http.ResponseWriter, r *http.Request, s *session) {
	store := r.PathValue("store")
	if _, err := p.api.ResendWebhookDelivery(r.Context(), &platenv1.ResendWebhookDeliveryRequest{StoreId: store, DeliveryId: r.PathValue("id")}); err != nil {
		p.fail(w, r, err)
		return
	}
	redirect(w, r, "/operator/webhooks/"+url.PathEscape(store)+"?done=resend")
}

// pageLink is path with filters and the next page's token; empty on the
// last page.
func pageLink(path string, filters url.Values, token string) string {
	if token == "" {
		return ""
	}
	q := url.Values{}
	for k, v := range filters {
		q[k] = v
	}
	q.Set("page_token", token)
	return path + "?" + q.Encode()
}
