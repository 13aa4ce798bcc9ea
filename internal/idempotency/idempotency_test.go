package idempotency_test

// The interceptor over the real record store (storage, on SQLite and on
// PostgreSQL): what a client retrying with an Idempotency-Key meets while
// its first request runs, after it ended, after it died, and when the
// database fails. The gateway's side (the header, the 409's body) is in
// the REST tests at the end.

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/idempotency"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/storage"
)

const createMethod = "/platen.v1.OrderService/CreateOrder"

// openStore is a fresh, migrated database on backend b.
func openStore(t *testing.T, b platentest.Backend) *storage.DB {
	t.Helper()
	db, _ := openClosableStore(t, b)
	return db
}

// openClosableStore is openStore with a function that closes the database
// before the test ends (closing twice panics).
func openClosableStore(t *testing.T, b platentest.Backend) (*storage.DB, func()) {
	t.Helper()
	db, err := storage.Open(b.NewDatabaseURL(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	closeDB := sync.OnceFunc(func() { db.Close() })
	t.Cleanup(closeDB)
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db, closeDB
}

// caller is the context of a call by team 1's team-wide token with key.
func caller(key string) context.Context {
	ctx := auth.WithPrincipal(context.Background(), auth.Principal{TokenID: 1, TeamID: 1})
	return metadata.NewIncomingContext(ctx, metadata.Pairs(idempotency.MetadataKey, key))
}

// handler answers a request with its text and counts its runs.
type handler struct {
	mu   sync.Mutex
	runs int
}

func (h *handler) handle(_ context.Context, req any) (any, error) {
	h.mu.Lock()
	h.runs++
	h.mu.Unlock()
	return wrapperspb.String("answer to " + req.(*wrapperspb.StringValue).Value), nil
}

func (h *handler) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.runs
}

// call runs a request through the interceptor as gRPC would: with a
// stream in its context, for the headers a replay sets.
func call(i *idempotency.Interceptor, ctx context.Context, method, body string, h grpc.UnaryHandler) (string, error) {
	ctx = grpc.NewContextWithServerTransportStream(ctx, &headerStream{method: method})
	resp, err := i.Unary(ctx, wrapperspb.String(body), &grpc.UnaryServerInfo{FullMethod: method}, h)
	if err != nil {
		return "", err
	}
	return resp.(*wrapperspb.StringValue).Value, nil
}

// headerStream is the part of a gRPC server stream a unary call's headers
// go to; it keeps them.
type headerStream struct {
	method string
	mu     sync.Mutex
	header metadata.MD
}

func (s *headerStream) Method() string { return s.method }
func (s *headerStream) SetHeader(md metadata.MD) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.header = metadata.Join(s.header, md)
	return nil
}
func (s *headerStream) SendHeader(md metadata.MD) error { return s.SetHeader(md) }
func (s *headerStream) SetTrailer(metadata.MD) error    { return nil }

// wantRefusal checks that err is the status a client gets, with a message
// holding words.
func wantRefusal(t *testing.T, what string, err error, code codes.Code, words string) {
	t.Helper()
	st := apierr.ToStatus(context.Background(), err)
	if st.Code() != code || !strings.Contains(st.Message(), words) {
		t.Errorf("%s: %v %q, want %v with %q", what, st.Code(), st.Message(), code, words)
	}
}

// TestRetriesMeetTheFirstRequest: while the first request with a key runs,
// a retry is refused as in progress (409) and another request with the key
// as a misuse (409), neither running; once it answered, a retry gets that
// answer without running again, and a request to another method with the
// key is refused. A key on a call that creates nothing is ignored.
func TestRetriesMeetTheFirstRequest(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		i := idempotency.New(openStore(t, b).Idempotency())
		ctx := caller("k-1")

		entered, release := make(chan struct{}), make(chan struct{})
		var first handler
		blocked := func(ctx context.Context, req any) (any, error) {
			close(entered)
			<-release
			return first.handle(ctx, req)
		}
		type result struct {
			answer string
			err    error
		}
		done := make(chan result, 1)
		go func() {
			answer, err := call(i, ctx, createMethod, "order 1", blocked)
			done <- result{answer, err}
		}()
		select {
		case <-entered:
		case <-time.After(30 * time.Second):
			t.Fatal("the first request never reached its handler")
		}

		var others handler
		_, err := call(i, ctx, createMethod, "order 1", others.handle)
		wantRefusal(t, "a retry while the first runs", err, codes.AlreadyExists, "still in progress")
		_, err = call(i, ctx, createMethod, "order 2", others.handle)
		wantRefusal(t, "another request with the key while the first runs", err, codes.AlreadyExists, "already used with another request")

		close(release)
		r := <-done
		if r.err != nil || r.answer != "answer to order 1" {
			t.Fatalf("first request: %q, %v", r.answer, r.err)
		}
		answer, err := call(i, ctx, createMethod, "order 1", others.handle)
		if err != nil || answer != "answer to order 1" {
			t.Errorf("retry after the answer: %q, %v; want the first answer", answer, err)
		}
		_, err = call(i, ctx, createMethod, "order 2", others.handle)
		wantRefusal(t, "another request with the key after the answer", err, codes.AlreadyExists, "already used with another request")
		_, err = call(i, ctx, "/platen.v1.WebhookService/CreateWebhookEndpoint", "order 1", others.handle)
		wantRefusal(t, "the key on another method", err, codes.AlreadyExists, "already used with another request")
		if n := others.count(); n != 0 {
			t.Errorf("the retries ran the handler %d times, want never", n)
		}

		// Updates and reads ignore the key: each call runs, none replays.
		for range 2 {
			if _, err := call(i, ctx, "/platen.v1.OrderService/UpdateOrder", "order 1", others.handle); err != nil {
				t.Fatal(err)
			}
		}
		if n := others.count(); n != 2 {
			t.Errorf("two updates with a key ran %d times, want 2", n)
		}
	})
}

// TestKeyIsTheTeamsAndTheStores: the same key from another team, or from a
// token bound to another store of the team, is a key of its own.
func TestKeyIsTheTeamsAndTheStores(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		i := idempotency.New(openStore(t, b).Idempotency())
		var h handler
		for _, p := range []auth.Principal{
			{TokenID: 1, TeamID: 1},
			{TokenID: 2, TeamID: 2},
			{TokenID: 3, TeamID: 1, StoreID: "shop-a"},
			{TokenID: 4, TeamID: 1, StoreID: "shop-b"},
		} {
			ctx := metadata.NewIncomingContext(auth.WithPrincipal(context.Background(), p), metadata.Pairs(idempotency.MetadataKey, "k"))
			if _, err := call(i, ctx, createMethod, "from token "+string(rune('0'+p.TokenID)), h.handle); err != nil {
				t.Errorf("token %d: %v", p.TokenID, err)
			}
		}
		if n := h.count(); n != 4 {
			t.Errorf("ran %d of 4 requests", n)
		}
	})
}

// setRecord rewrites every record's creation time, and with inProgress
// drops its answer, as if its request had died before answering.
func setRecord(t *testing.T, db *storage.DB, created time.Time, inProgress bool) {
	t.Helper()
	query := `UPDATE idempotency_keys SET created_at = ?`
	if db.Dialect() == "postgres" {
		query = `UPDATE idempotency_keys SET created_at = $1`
	}
	if inProgress {
		query += `, response = NULL, http_code = 0`
	}
	res, err := db.JobPool().Exec(query, created.UTC())
	if err != nil {
		t.Fatal(err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("updated %d records (%v), want 1", n, err)
	}
}

// TestDeadRequestFreesItsKey: a record left without an answer (its request
// died: a crash, a kill) blocks its key as in progress for the lease only;
// past it a retry runs. A record past the TTL is forgotten: the key runs
// any request again.
func TestDeadRequestFreesItsKey(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		db := openStore(t, b)
		i := idempotency.New(db.Idempotency())
		ctx := caller("k-dead")
		var h handler
		if _, err := call(i, ctx, createMethod, "order 1", h.handle); err != nil {
			t.Fatal(err)
		}

		setRecord(t, db, time.Now().Add(-idempotency.Lease/2), true)
		_, err := call(i, ctx, createMethod, "order 1", h.handle)
		wantRefusal(t, "a retry within the lease", err, codes.AlreadyExists, "still in progress")

		setRecord(t, db, time.Now().Add(-idempotency.Lease-time.Minute), true)
		if answer, err := call(i, ctx, createMethod, "order 1", h.handle); err != nil || answer != "answer to order 1" {
			t.Fatalf("retry past the lease: %q, %v", answer, err)
		}
		if n := h.count(); n != 2 {
			t.Errorf("handler ran %d times, want 2 (the retry past the lease ran)", n)
		}
		// The retry's answer is the key's now.
		if answer, err := call(i, ctx, createMethod, "order 1", h.handle); err != nil || answer != "answer to order 1" || h.count() != 2 {
			t.Errorf("replay after the takeover: %q, %v, %d runs", answer, err, h.count())
		}

		// An answered record within the TTL still binds the key to its
		// request; past the TTL another request may take the key.
		setRecord(t, db, time.Now().Add(-idempotency.TTL+time.Hour), false)
		_, err = call(i, ctx, createMethod, "order 2", h.handle)
		wantRefusal(t, "another request within the TTL", err, codes.AlreadyExists, "already used with another request")
		setRecord(t, db, time.Now().Add(-idempotency.TTL-time.Minute), false)
		if answer, err := call(i, ctx, createMethod, "order 2", h.handle); err != nil || answer != "answer to order 2" {
			t.Errorf("another request past the TTL: %q, %v", answer, err)
		}
	})
}

// TestRacingFirstsRunOnce: requests with one key arriving together run
// once; every other is told the key is in progress, or replays the answer
// (on PostgreSQL, whose writers run side by side, the losers of the insert
// meet the unique index).
func TestRacingFirstsRunOnce(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		i := idempotency.New(openStore(t, b).Idempotency())
		ctx := caller("k-race")
		release := make(chan struct{})
		var h handler
		slow := func(ctx context.Context, req any) (any, error) {
			<-release
			return h.handle(ctx, req)
		}
		const racers = 8
		results := make(chan error, racers)
		for range racers {
			go func() {
				_, err := call(i, ctx, createMethod, "order 1", slow)
				results <- err
			}()
		}
		// The losers answer at once; the winner waits in its handler.
		ran := 0
		for n := range racers {
			if n == racers-1 {
				close(release)
			}
			var err error
			select {
			case err = <-results:
			case <-time.After(30 * time.Second):
				t.Fatalf("%d of %d racers answered before the winner was released, want %d", n, racers, racers-1)
			}
			if err == nil {
				ran++
				continue
			}
			wantRefusal(t, "racer", err, codes.AlreadyExists, "still in progress")
		}
		if ran != 1 || h.count() != 1 {
			t.Errorf("%d racers answered, the handler ran %d times; want 1 and 1", ran, h.count())
		}
	})
}

// TestStoreFailures: when the record cannot be read or written the request
// is refused before it runs; when its answer cannot be remembered the
// client still gets the answer, and the key is freed for a retry.
func TestStoreFailures(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		db, closeDB := openClosableStore(t, b)
		store := &failingComplete{Idempotency: db.Idempotency()}
		i := idempotency.New(store)
		ctx := caller("k-fail")
		var h handler

		store.fail.Store(true)
		answer, err := call(i, ctx, createMethod, "order 1", h.handle)
		if err != nil || answer != "answer to order 1" {
			t.Fatalf("a request whose answer cannot be stored: %q, %v; want its answer", answer, err)
		}
		store.fail.Store(false)
		if answer, err := call(i, ctx, createMethod, "order 1", h.handle); err != nil || answer != "answer to order 1" || h.count() != 2 {
			t.Errorf("retry: %q, %v after %d runs; want it run again", answer, err, h.count())
		}

		closeDB()
		_, err = call(i, caller("k-closed"), createMethod, "order 3", h.handle)
		if err == nil || h.count() != 2 {
			t.Errorf("database closed: %v after %d runs; want an error and no run", err, h.count())
		}
	})
}

// failingComplete is the real store whose Complete fails while fail is set.
type failingComplete struct {
	*storage.Idempotency
	fail atomic.Bool
}

func (f *failingComplete) Complete(ctx context.Context, id int, response []byte, httpCode int) error {
	if f.fail.Load() {
		return errors.New("disk full")
	}
	return f.Idempotency.Complete(ctx, id, response, httpCode)
}

// TestKeyOverREST: over REST the key is the Idempotency-Key header: one of
// 255 characters is taken, a longer one is refused naming the header; a
// retry replays the first answer, and a reuse with another body is a 409
// naming the header.
func TestKeyOverREST(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")

		long := strings.Repeat("k", 256)
		r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, platentest.OrderBody("acme-shop", "rest-1"), "Idempotency-Key", long)
		if _, fields := platentest.ErrorBody(t, r, 400); len(fields) != 1 || fields[0] != "Idempotency-Key" {
			t.Errorf("a 256-character key: fields %v, want Idempotency-Key", fields)
		}
		key := long[:255]
		first := srv.Do(t, "POST", "/api/v1/orders", acme.Token, platentest.OrderBody("acme-shop", "rest-1"), "Idempotency-Key", key)
		if first.Status != 200 {
			t.Fatalf("a 255-character key: %d %s", first.Status, first.Raw)
		}
		again := srv.Do(t, "POST", "/api/v1/orders", acme.Token, platentest.OrderBody("acme-shop", "rest-1"), "Idempotency-Key", key)
		if again.Status != 200 || string(again.Raw) != string(first.Raw) {
			t.Errorf("replay: %d %s, want %s", again.Status, again.Raw, first.Raw)
		}
		r = srv.Do(t, "POST", "/api/v1/orders", acme.Token, platentest.OrderBody("acme-shop", "rest-2"), "Idempotency-Key", key)
		if _, fields := platentest.ErrorBody(t, r, 409); len(fields) != 1 || fields[0] != "Idempotency-Key" {
			t.Errorf("reuse with another body: fields %v, want Idempotency-Key", fields)
		}
	})
}
