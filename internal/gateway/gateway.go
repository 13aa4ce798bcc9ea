// Package gateway is Platen's REST façade: grpc-gateway in front of the
// gRPC services (called in process through their interceptors, so that
// authentication, idempotency, logging and metrics apply to REST too), with
// the API's JSON, error bodies (also for what net/http refuses by
// itself), status codes, token check and body limits before any decoding,
// request ids and HTTP metrics.
package gateway

import (
	"context"
	"fmt"
	"net/http"
	"net/textproto"
	"strconv"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/httpstatus"
	"github.com/platen-print/platen/internal/idempotency"
)

// Gateway is the REST handler.
type Gateway struct {
	mux       *runtime.ServeMux
	codec     *codec
	metrics   *httpMetrics
	accessLog bool
	admit     func(context.Context, []string) (context.Context, error)
	large     *largeBodies
}

// Options configure the gateway.
type Options struct {
	// AccessLog writes one log line per request.
	AccessLog bool
	// Registerer receives the HTTP metrics.
	Registerer prometheus.Registerer
	// Admit checks a request's Authorization values once its route is
	// known and before its body is read, returning the context the call
	// goes on with, or the error to answer (auth.Authenticator.Admit).
	// Every API route needs a token; nil admits every request.
	Admit func(ctx context.Context, authorization []string) (context.Context, error)
}

// registrations are the services the gateway exposes, coldest first. The
// gateway's router tries a method's patterns one by one, newest registered
// first, allocating at each try: the hottest routes (orders, print status,
// shop polling) are registered last so that they are tried first.
var registrations = []registration{
	via(platenv1.NewOperatorServiceClient, platenv1.RegisterOperatorServiceHandlerClient),
	via(platenv1.NewWebhookServiceClient, platenv1.RegisterWebhookServiceHandlerClient),
	via(platenv1.NewBatchServiceClient, platenv1.RegisterBatchServiceHandlerClient),
	via(platenv1.NewCatalogServiceClient, platenv1.RegisterCatalogServiceHandlerClient),
	via(platenv1.NewDesignServiceClient, platenv1.RegisterDesignServiceHandlerClient),
	via(platenv1.NewShopServiceClient, platenv1.RegisterShopServiceHandlerClient),
	via(platenv1.NewOrderServiceClient, platenv1.RegisterOrderServiceHandlerClient),
}

// registration routes a service's REST paths to its client on a
// connection (the in-process channel, in platen serve).
type registration func(context.Context, *runtime.ServeMux, grpc.ClientConnInterface) error

// via is the registration of the service whose generated client and
// gateway registration these are.
func via[C any](newClient func(grpc.ClientConnInterface) C, register func(context.Context, *runtime.ServeMux, C) error) registration {
	return func(ctx context.Context, mux *runtime.ServeMux, conn grpc.ClientConnInterface) error {
		return register(ctx, mux, newClient(conn))
	}
}

// New returns the REST handler, calling the gRPC services through conn.
func New(ctx context.Context, conn grpc.ClientConnInterface, opts Options) (*Gateway, error) {
	g := &Gateway{codec: newCodec(), metrics: newHTTPMetrics(opts.Registerer), accessLog: opts.AccessLog, admit: opts.Admit,
		large: newLargeBodies()}
	g.mux = runtime.NewServeMux(
		runtime.WithMarshalerOption(runtime.MIMEWildcard, g.codec),
		runtime.WithErrorHandler(writeError),
		runtime.WithRoutingErrorHandler(writeRoutingError),
		runtime.WithIncomingHeaderMatcher(incomingHeader),
		runtime.WithOutgoingHeaderMatcher(outgoingHeader),
		runtime.WithForwardResponseOption(setHTTPStatus),
		// A route's middlewares run once it matched, before its handler
		// decodes anything: the token first, then the body.
		runtime.WithMiddlewares(g.checkToken, g.readBody),
		// Both read a form body before any route or token is known: a POST
		// of application/x-www-form-urlencoded standing in for a GET, and
		// X-HTTP-Method-Override. The API has no use for either.
		runtime.WithDisablePathLengthFallback(),
		runtime.WithDisableHTTPMethodOverride(),
	)
	for _, register := range registrations {
		if err := register(ctx, g.mux, conn); err != nil {
			return nil, fmt.Errorf("register gateway handler: %w", err)
		}
	}
	return g, nil
}

// ServeHTTP serves the REST API; wrap it, and whatever is served beside it,
// in CheckRequest and Observe.
// A HEAD is served as its GET (RFC 9110 requires HEAD wherever GET
// works): net/http sends the headers and drops the body.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodHead {
		r = r.Clone(r.Context())
		r.Method = http.MethodGet
	}
	g.mux.ServeHTTP(w, r)
}

// checkToken is a route's middleware: a request without a valid token is
// refused (401) before its body is read.
func (g *Gateway) checkToken(next runtime.HandlerFunc) runtime.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, params map[string]string) {
		if isProbe(r.Context()) {
			w.WriteHeader(probed) // the route exists for this method: nothing more
			return
		}
		if g.admit == nil {
			next(w, r, params)
			return
		}
		ctx, err := g.admit(r.Context(), r.Header.Values("Authorization"))
		if err != nil {
			noteRoute(r.Context())
			writeStatus(w, g.codec, status.Convert(err))
			return
		}
		next(w, r.WithContext(ctx), params)
	}
}

// incomingHeader forwards only the headers the gRPC side reads: every other
// header would be encoded into the call and decoded again for nothing.
func incomingHeader(key string) (string, bool) {
	switch textproto.CanonicalMIMEHeaderKey(key) {
	case "Authorization":
		return "authorization", true
	case requestIDHeader:
		return "x-request-id", true
	case "Idempotency-Key":
		return idempotency.MetadataKey, true
	}
	return "", false
}

// outgoingHeader passes on, of the response metadata a handler sets, only
// what the HTTP API documents: Idempotent-Replayed on a replayed answer.
// Everything else (x-http-code, which becomes the status line) stays
// inside.
func outgoingHeader(key string) (string, bool) {
	if key == idempotency.ReplayedHeader {
		return "Idempotent-Replayed", true
	}
	return "", false
}

// setHTTPStatus turns the handler's chosen status (httpstatus.Set) into the
// response's status line, for Family B's 201.
func setHTTPStatus(ctx context.Context, w http.ResponseWriter, _ proto.Message) error {
	noteRoute(ctx)
	md, ok := runtime.ServerMetadataFromContext(ctx)
	if !ok {
		return nil
	}
	values := md.HeaderMD.Get(httpstatus.Header)
	if len(values) == 0 {
		return nil
	}
	code, err := strconv.Atoi(values[0])
	if err != nil {
		return nil
	}
	w.WriteHeader(code)
	return nil
}
