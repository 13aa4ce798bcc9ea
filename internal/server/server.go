// Package server assembles `platen serve`: the database, the gRPC server and
// its interceptors, the REST gateway in front of it (a gRPC client of the
// same services and interceptors, in process), the operational endpoints,
// and an ordered shutdown.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/riverqueue/river"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/accounts"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/batches"
	"github.com/platen-print/platen/internal/catalog"
	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/designversions"
	"github.com/platen-print/platen/internal/downloads"
	"github.com/platen-print/platen/internal/fetch"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/fonts"
	"github.com/platen-print/platen/internal/gateway"
	"github.com/platen-print/platen/internal/grpcdecode"
	"github.com/platen-print/platen/internal/idempotency"
	"github.com/platen-print/platen/internal/inproc"
	"github.com/platen-print/platen/internal/nulcheck"
	"github.com/platen-print/platen/internal/operatorapi"
	"github.com/platen-print/platen/internal/orders"
	"github.com/platen-print/platen/internal/press"
	"github.com/platen-print/platen/internal/prints"
	"github.com/platen-print/platen/internal/queue"
	"github.com/platen-print/platen/internal/readiness"
	"github.com/platen-print/platen/internal/shop"
	"github.com/platen-print/platen/internal/storage"
	"github.com/platen-print/platen/internal/templates"
	"github.com/platen-print/platen/internal/version"
	"github.com/platen-print/platen/internal/webhooks"
)

// streamWorkers is the number of goroutines that serve gRPC calls before
// new ones are spawned; a few per concurrent client connection's calls.
const streamWorkers = 64

// maxRecvBytes is the largest gRPC request: the REST body limit (8 MiB)
// and a little room, as a request's protobuf is mostly smaller than its
// JSON. gRPC answers ResourceExhausted past it, unread.
const maxRecvBytes = gateway.MaxBodyBytes + 64<<10

// maxSendBytes is the largest gRPC answer: a page of orders stops adding
// orders once their design documents pass 4 MiB, and one order alone may
// hold up to 8 MiB of them.
const maxSendBytes = 2 * gateway.MaxBodyBytes

// Server is a running `platen serve`.
type Server struct {
	cfg      config.Config
	db       *storage.DB
	registry *prometheus.Registry

	// authn checks tokens for both ports: early, from the headers, and in
	// the interceptor chain.
	authn      *auth.Authenticator
	grpcServer *grpc.Server
	health     *health.Server
	grpcLis    net.Listener
	// channel is the gateway's way in to the gRPC services.
	channel    *inproc.Channel
	httpServer *http.Server
	httpLis    net.Listener

	files *files.Store
	// fetcher fetches images for in-process renders and checks and dials
	// webhook targets, by the same address rules; one, so that they share
	// its connections.
	fetcher *fetch.Fetcher
	links   *downloads.Links
	// operatorAPI is the operator API, which the panel acts through too.
	operatorAPI *operatorapi.Service
	// previews are the panel's first-page images of prints.
	previews *prints.Previews
	// sharedFonts reports the --font-dir fonts of the in-process render
	// processes (nil with --render-addr: those processes' own win at
	// render time); fonts finds the team fonts a render must carry.
	sharedFonts func(name string) bool
	fonts       *fonts.Resolver
	queue       *queue.Queue
	// stores are the stores whose writes queue work on queue.
	stores *storage.LinkedStores

	// process names this process in the database: its queue's name and
	// its readiness row (see queueID).
	process string
	// readiness is /readyz's database check, cached for a second.
	readiness *readiness.Checker
	// draining is set when shutdown begins; /readyz then answers 503.
	draining atomic.Bool
	// cleanups run in reverse order on shutdown.
	cleanups []func(context.Context) error
	// goroutines are those the server started; Shutdown waits for them
	// before it closes the database (see goUntilShutdown).
	goroutines sync.WaitGroup
	done       chan error
}

// Start opens the database, applies the schema and starts serving gRPC and
// HTTP. Call Shutdown to stop.
func Start(ctx context.Context, cfg config.Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, registry: prometheus.NewRegistry(), done: make(chan error, 2)}
	s.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), version.Collector())
	if err := s.start(ctx); err != nil {
		_ = s.Shutdown(context.Background())
		return nil, err
	}
	return s, nil
}

func (s *Server) start(ctx context.Context) error {
	db, err := storage.Open(s.cfg.DatabaseURL, s.cfg.DataDir)
	if err != nil {
		return err
	}
	s.db = db
	s.onShutdown(func(context.Context) error { return db.Close() })
	// Just before the database closes: by then the cleanups registered
	// after this one have told the server's goroutines to stop.
	s.onShutdown(func(context.Context) error { s.goroutines.Wait(); return nil })
	s.process = s.queueID()
	s.readiness = readiness.New(s.probeDatabase, slog.Default())
	// Ends and waits for a probe that a /readyz gone meanwhile left running.
	s.onShutdown(func(context.Context) error { s.readiness.Close(); return nil })
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	// After the schema, whose statements may take long on a large
	// database: from here a database that does not answer is an outage.
	db.BoundCalls(s.cfg.DBTimeout)
	if err := s.listen(); err != nil {
		return err
	}
	if err := s.startPrinting(ctx); err != nil {
		return err
	}
	if err := s.startGRPC(); err != nil {
		return err
	}
	if err := s.startHTTP(ctx); err != nil {
		return err
	}
	if err := s.startQueue(ctx); err != nil {
		return err
	}
	s.startJanitor()
	s.startDebug()
	slog.Info("platen serving", "http", s.HTTPAddr(), "grpc", s.GRPCAddr(), "database", db.Dialect())
	return nil
}

func (s *Server) onShutdown(fn func(context.Context) error) { s.cleanups = append(s.cleanups, fn) }

// goUntilShutdown runs fn in a goroutine of the server's: fn's ctx ends
// when shutdown reaches this point of its order (the reverse of the
// start's), and Shutdown waits for fn to return before it closes the
// database fn may use.
func (s *Server) goUntilShutdown(fn func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	s.onShutdown(func(context.Context) error { cancel(); return nil })
	s.goroutines.Go(func() { fn(ctx) })
}

// listen takes both public addresses first: the download links and the
// queue's name for this process need them.
func (s *Server) listen() error {
	lis, err := net.Listen("tcp", s.cfg.GRPCAddr)
	if err != nil {
		return fmt.Errorf("listen on --grpc-addr: %w", err)
	}
	s.grpcLis = lis
	s.onShutdown(func(context.Context) error { _ = lis.Close(); return nil })
	if s.httpLis, err = net.Listen("tcp", s.cfg.HTTPAddr); err != nil {
		return fmt.Errorf("listen on --http-addr: %w", err)
	}
	s.onShutdown(func(context.Context) error { _ = s.httpLis.Close(); return nil })
	return nil
}

func (s *Server) startGRPC() error {
	lis := s.grpcLis
	authn := auth.NewAuthenticator(s.db).WithRateLimit(auth.NewRateLimiter(s.cfg.RateLimit, s.cfg.RateBurst))
	s.authn = authn
	metrics := newGRPCMetrics(s.registry)
	interceptors := []grpc.UnaryServerInterceptor{
		metrics.observe,
		recoverUnary,
		apierr.UnaryServerInterceptor,
		authn.UnaryServerInterceptor,
		nulcheck.UnaryServerInterceptor,
		idempotency.New(s.db.Idempotency()).Unary,
	}
	decoder := grpcdecode.New()
	s.grpcServer = grpc.NewServer(
		// A call without a valid token is refused when its headers arrive,
		// before its message is read.
		grpc.InTapHandle(authn.TapHandle),
		grpc.ChainUnaryInterceptor(interceptors...),
		grpc.ChainStreamInterceptor(recoverStream, authn.StreamServerInterceptor),
		// Reused workers keep the stacks they grew: a fresh goroutine per
		// call spent a tenth of the CPU growing its stack through SQLite.
		grpc.NumStreamWorkers(streamWorkers),
		// Stop, at the shutdown deadline, still waits for running handlers,
		// so that none of them outlives the database it uses.
		grpc.WaitForHandlers(true),
		grpc.MaxRecvMsgSize(maxRecvBytes),
		grpc.MaxSendMsgSize(maxSendBytes),
		// Requests are checked against the input limits before they are
		// unmarshalled; one that cannot be decoded is InvalidArgument.
		grpc.ForceServerCodecV2(decoder.Codec()),
	)
	guarded := decoder.Registrar(s.grpcServer)
	s.channel = inproc.New(interceptors...)
	s.registerServices(registrars{guarded, s.channel})
	s.health = health.NewServer()
	healthpb.RegisterHealthServer(guarded, s.health)
	reflection.Register(guarded)
	// Each service answers for itself too, as probes that name one expect
	// (grpc-health-probe -service=platen.v1.OrderService); Shutdown turns
	// them all NOT_SERVING.
	for name := range s.grpcServer.GetServiceInfo() {
		s.health.SetServingStatus(name, healthpb.HealthCheckResponse_SERVING)
	}
	s.goroutines.Go(func() { s.done <- s.grpcServer.Serve(lis) })
	s.onShutdown(s.stopGRPC)
	return nil
}

// registerServices registers Platen's services on r.
func (s *Server) registerServices(r grpc.ServiceRegistrar) {
	platenv1.RegisterOrderServiceServer(r, orders.NewService(s.stores.Orders(), s.links))
	catalogService := catalog.NewService(s.db.Catalog())
	platenv1.RegisterCatalogServiceServer(r, catalogService)
	platenv1.RegisterDesignServiceServer(r, designversions.NewService(s.db.Designs()))
	platenv1.RegisterShopServiceServer(r, shop.NewService(s.stores.ShopOrders(), s.links))
	webhookService := webhooks.NewService(s.stores.Deliveries(), s.fetcher.CheckURL)
	platenv1.RegisterWebhookServiceServer(r, webhookService)
	batchService := batches.NewService(s.stores.Batches(), catalog.NewResolver(s.db.Catalog()), s.links)
	platenv1.RegisterBatchServiceServer(r, batchService)
	s.operatorAPI = operatorapi.New(operatorapi.Parts{
		Templates: templates.NewService(s.db.Templates()), Prints: prints.NewService(s.stores.Prints(), s.links),
		Batches: batchService, Accounts: accounts.NewService(s.db), Webhooks: webhookService, Catalog: catalogService,
		Fonts: fonts.NewService(s.db.Fonts(), s.sharedFonts), Press: press.NewService(s.db.Press()),
	})
	platenv1.RegisterOperatorServiceServer(r, s.operatorAPI)
}

// registrars registers every service on each of its registrars: the gRPC
// server for gRPC clients, the in-process channel for the gateway.
type registrars []grpc.ServiceRegistrar

func (rs registrars) RegisterService(desc *grpc.ServiceDesc, impl any) {
	for _, r := range rs {
		r.RegisterService(desc, impl)
	}
}

// stopGRPC lets calls in flight finish, and stops hard at the deadline;
// either way it returns once no handler runs, the gateway's included.
func (s *Server) stopGRPC(ctx context.Context) error {
	s.health.Shutdown()
	stopped := make(chan struct{})
	go func() { s.grpcServer.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
	case <-ctx.Done():
		s.grpcServer.Stop()
		<-stopped
	}
	s.channel.Stop()
	return nil
}

// readHeaderTimeout bounds the wait for a request's headers, from the
// connection's start: with h2c on, net/http first waits for enough bytes to
// tell its preface from HTTP/1 (14), under this deadline too.
const readHeaderTimeout = 10 * time.Second

func (s *Server) startHTTP(ctx context.Context) error {
	gw, err := gateway.New(ctx, s.channel, gateway.Options{AccessLog: s.cfg.AccessLog, Registerer: s.registry, Admit: s.authn.Admit})
	if err != nil {
		return err
	}
	lis := s.httpLis
	// HTTP/1.1, and HTTP/2 without TLS (h2c) for clients that speak it
	// from the first byte (prior knowledge), as gRPC tooling does.
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	s.httpServer = &http.Server{
		Protocols:         protocols,
		Handler:           s.routes(gw),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	s.goroutines.Go(func() {
		if err := s.httpServer.Serve(gateway.Listener(lis)); !errors.Is(err, http.ErrServerClosed) {
			s.done <- err
		}
	})
	s.onShutdown(s.httpServer.Shutdown)
	return nil
}

// startJanitor forgets expired idempotency keys and operator sessions,
// and refreshes the query planner's statistics, once an hour.
func (s *Server) startJanitor() {
	s.goUntilShutdown(func(ctx context.Context) {
		ticker := time.NewTicker(time.Hour)
		defer ticker.Stop()
		for {
			if n, err := s.db.PurgeIdempotencyKeys(ctx); err != nil && ctx.Err() == nil {
				slog.Warn("purge idempotency keys", "error", err)
			} else if n > 0 {
				slog.Info("purged idempotency keys", "count", n)
			}
			if n, err := s.db.Operators().PurgeSessions(ctx, time.Now()); err != nil && ctx.Err() == nil {
				slog.Warn("purge operator sessions", "error", err)
			} else if n > 0 {
				slog.Info("purged expired operator sessions", "count", n)
			}
			if err := s.db.Optimize(ctx); err != nil && ctx.Err() == nil {
				slog.Warn("optimize the database", "error", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
			}
		}
	})
}

// HTTPAddr is the address the REST API listens on.
func (s *Server) HTTPAddr() string { return s.httpLis.Addr().String() }

// GRPCAddr is the address the gRPC API listens on.
func (s *Server) GRPCAddr() string { return s.grpcLis.Addr().String() }

// Handler is the HTTP port's handler, for tests and benchmarks that call
// it in process.
func (s *Server) Handler() http.Handler { return s.httpServer.Handler }

// DB is the server's database, for tests and admin commands run in-process.
func (s *Server) DB() *storage.DB { return s.db }

// JobEnds reports each job of this process's queue whose run ended
// (completed, failed, cancelled or snoozed), once its outcome is recorded;
// the channel closes when the queue stops, and stop ends the reports
// sooner. Tests wait on it for a job's effect rather than poll for it.
func (s *Server) JobEnds() (events <-chan *river.Event, stop func()) {
	return s.queue.Client().Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed,
		river.EventKindJobCancelled, river.EventKindJobSnoozed)
}

// Done reports a server that stopped on its own.
func (s *Server) Done() <-chan error { return s.done }

// Shutdown stops taking requests, lets those in flight finish within ctx,
// and releases everything in reverse start order. It returns once every
// goroutine the server started itself has ended (net/http's handlers of
// requests still running when ctx ends are not among them).
func (s *Server) Shutdown(ctx context.Context) error {
	// Not ready from now on, so that a load balancer stops sending work.
	s.draining.Store(true)
	if s.health != nil {
		s.health.Shutdown()
	}
	var errs []error
	for i := len(s.cleanups) - 1; i >= 0; i-- {
		errs = append(errs, s.cleanups[i](ctx))
	}
	s.cleanups = nil
	return errors.Join(errs...)
}

// Run serves until ctx ends, then shuts down within cfg.ShutdownTimeout.
func Run(ctx context.Context, cfg config.Config) error {
	s, err := Start(ctx, cfg)
	if err != nil {
		return err
	}
	var served error
	select {
	case <-ctx.Done():
	case served = <-s.Done():
	}
	slog.Info("platen shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout)
	defer cancel()
	return errors.Join(served, s.Shutdown(shutdownCtx))
}
