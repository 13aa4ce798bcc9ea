package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/pagination"
)

// RotationGrace is how long a replaced secret still signs deliveries.
const RotationGrace = 24 * time.Hour

// Endpoint is a store's webhook configuration.
type Endpoint struct {
	StoreID, URL, Secret    string
	PreviousSecretExpiresAt *time.Time
	UpdatedAt               time.Time
}

// LogEntry is a delivery as its store's log shows it.
type LogEntry struct {
	UID, Event, Status string
	Attempts           int
	LastStatusCode     int
	LastLatencyMS      int
	LastError          *string
	NextAttemptAt      *time.Time
	CreatedAt          time.Time
	DeliveredAt        *time.Time
	Payload            []byte
	RequestHeaders     map[string]string
	ResponseBody       *string
}

// Query selects a page of a store's delivery log.
type Query struct {
	StoreID string
	Status  string // empty for every status
	Page    pagination.Page
}

// EndpointStore is the persistence of endpoints and the delivery log.
type EndpointStore interface {
	// StoreTeam returns the store's team; apierr.ErrNotFound if none.
	StoreTeam(ctx context.Context, storeID string) (int, error)
	// SetEndpoint sets the store's URL; rotate replaces the secret, the
	// old one signing along for RotationGrace.
	SetEndpoint(ctx context.Context, storeID, url string, rotate bool) (*Endpoint, error)
	// GetEndpoint returns the store's endpoint; apierr.ErrNotFound when it
	// has no URL.
	GetEndpoint(ctx context.Context, storeID string) (*Endpoint, error)
	// ListDeliveries returns a page of the log, newest first, and whether
	// more follow.
	ListDeliveries(ctx context.Context, q Query) ([]*LogEntry, bool, error)
	// Resend queues the store's delivery again with a fresh schedule.
	Resend(ctx context.Context, storeID, uid string) (*LogEntry, error)
}

// URLChecker refuses URLs that reach addresses images may not (the image
// fetcher's CheckURL): the same rules hold for webhook targets.
type URLChecker func(ctx context.Context, raw string) error

// Service implements platenv1.WebhookServiceServer.
type Service struct {
	platenv1.UnimplementedWebhookServiceServer
	store    EndpointStore
	checkURL URLChecker
}

// NewService returns the webhook service on store.
func NewService(store EndpointStore, checkURL URLChecker) *Service {
	return &Service{store: store, checkURL: checkURL}
}

// authorize lets the call act on storeID: for a client, a store of its
// team that its token may use, any other 403 (whether it exists or not);
// for an operator (the operator API), a store of a team they see, any
// other 404.
func (s *Service) authorize(ctx context.Context, storeID string) error {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return err
	}
	teamID, err := s.store.StoreTeam(ctx, storeID)
	if err != nil && !errors.Is(err, apierr.ErrNotFound) {
		return err
	}
	switch {
	case p.IsOperator() && (err != nil || !p.SeesTeam(teamID)):
		return apierr.NotFound("store %q not found", storeID)
	case p.IsOperator():
		return nil
	case err != nil || !p.CanUseStore(storeID, teamID):
		return apierr.PermissionDenied("store_id", "store %q is not one this token may use", storeID)
	}
	return nil
}

// SetWebhookEndpoint sets the URL and answers the endpoint with its secret.
func (s *Service) SetWebhookEndpoint(ctx context.Context, req *platenv1.SetWebhookEndpointRequest) (*platenv1.WebhookEndpoint, error) {
	if err := s.authorize(ctx, req.StoreId); err != nil {
		return nil, err
	}
	if err := s.validURL(ctx, req.Url); err != nil {
		return nil, err
	}
	e, err := s.store.SetEndpoint(ctx, req.StoreId, req.Url, req.RotateSecret)
	if err != nil {
		return nil, err
	}
	return endpointProto(e), nil
}

// GetWebhookEndpoint answers the store's endpoint with its secret (the
// operator API's: an operator may read what the store's token was once
// answered); NOT_FOUND when the store has no URL.
func (s *Service) GetWebhookEndpoint(ctx context.Context, req *platenv1.GetWebhookEndpointRequest) (*platenv1.WebhookEndpoint, error) {
	if err := s.authorize(ctx, req.StoreId); err != nil {
		return nil, err
	}
	e, err := s.store.GetEndpoint(ctx, req.StoreId)
	if err != nil {
		return nil, err
	}
	return endpointProto(e), nil
}

func endpointProto(e *Endpoint) *platenv1.WebhookEndpoint {
	out := &platenv1.WebhookEndpoint{StoreId: e.StoreID, Url: e.URL, Secret: e.Secret, UpdatedAt: timestamppb.New(e.UpdatedAt)}
	if e.PreviousSecretExpiresAt != nil {
		out.PreviousSecretExpiresAt = timestamppb.New(*e.PreviousSecretExpiresAt)
	}
	return out
}

// validURL checks a webhook URL (see CheckURL) and names the field.
func (s *Service) validURL(ctx context.Context, raw string) error {
	if err := CheckURL(ctx, raw, s.checkURL); err != nil {
		return apierr.Invalid("url", "%v", err)
	}
	return nil
}

// CheckURL checks a webhook URL: absolute http(s) of at most 2048
// characters, and, when reachable is given, an address deliveries may
// reach (deliveries check again on every connection, as DNS may change).
func CheckURL(ctx context.Context, raw string, reachable URLChecker) error {
	if raw == "" {
		return errors.New("is required: an http or https URL")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(raw) > 2048 {
		return errors.New("must be an absolute http or https URL of at most 2048 characters")
	}
	if err := checkPort(u.Port()); err != nil {
		return err
	}
	if reachable != nil {
		return reachable(ctx, raw)
	}
	return nil
}

// checkPort refuses a port no delivery could connect to, so that the URL
// is refused when saved rather than failing every delivery (an empty port
// is the scheme's).
func checkPort(port string) error {
	if port == "" {
		return nil
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
		return fmt.Errorf("port %.20s is not between 1 and 65535", port)
	}
	return nil
}

// ListWebhookDeliveries answers a page of the store's delivery log.
func (s *Service) ListWebhookDeliveries(ctx context.Context, req *platenv1.ListWebhookDeliveriesRequest) (*platenv1.ListWebhookDeliveriesResponse, error) {
	if err := s.authorize(ctx, req.StoreId); err != nil {
		return nil, err
	}
	switch req.Status {
	case "", StatusPending, StatusDelivered, StatusFailed, StatusFailing:
	default:
		return nil, apierr.Invalid("status", "must be pending, delivered, failed or failing, got %q", req.Status)
	}
	page, err := pagination.Parse(req.PageSize, req.PageToken)
	if err != nil {
		return nil, err
	}
	list, more, err := s.store.ListDeliveries(ctx, Query{StoreID: req.StoreId, Status: req.Status, Page: page})
	if err != nil {
		return nil, err
	}
	resp := &platenv1.ListWebhookDeliveriesResponse{}
	resp.WebhookDeliveries, resp.NextPageToken = pagination.Answer(list, more, logProto, func(d *LogEntry) pagination.Cursor {
		return pagination.Cursor{CreatedAt: d.CreatedAt, UID: d.UID}
	})
	return resp, nil
}

// ResendWebhookDelivery queues a delivery again now.
func (s *Service) ResendWebhookDelivery(ctx context.Context, req *platenv1.ResendWebhookDeliveryRequest) (*platenv1.WebhookDelivery, error) {
	if err := s.authorize(ctx, req.StoreId); err != nil {
		return nil, err
	}
	d, err := s.store.Resend(ctx, req.StoreId, req.DeliveryId)
	if err != nil {
		return nil, err
	}
	return logProto(d), nil
}

func logProto(d *LogEntry) *platenv1.WebhookDelivery {
	out := &platenv1.WebhookDelivery{
		Id: d.UID, Event: d.Event, Status: d.Status, Attempts: int32(d.Attempts),
		LastStatusCode: int32(d.LastStatusCode), LastLatencyMs: int32(d.LastLatencyMS),
		CreatedAt: timestamppb.New(d.CreatedAt), Payload: string(d.Payload), RequestHeaders: d.RequestHeaders,
	}
	if d.ResponseBody != nil {
		out.ResponseBody = wrapperspb.String(*d.ResponseBody)
	}
	if d.LastError != nil {
		out.LastError = wrapperspb.String(*d.LastError)
	}
	if d.NextAttemptAt != nil && d.Status == StatusPending {
		out.NextAttemptAt = timestamppb.New(*d.NextAttemptAt)
	}
	if d.DeliveredAt != nil {
		out.DeliveredAt = timestamppb.New(*d.DeliveredAt)
	}
	return out
}
