// Package idempotency replays the first answer to a request sent again with
// the same Idempotency-Key: the same key and body within 24 h
// get the stored response, the same key with another body gets 409. It is a
// gRPC interceptor, so REST (whose header the gateway forwards) and gRPC
// clients get the same behaviour. A replay is marked with the response
// metadata idempotent-replayed: true (the HTTP header Idempotent-Replayed).
package idempotency

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/httpstatus"
)

// MetadataKey carries the key over gRPC; the gateway maps the HTTP
// Idempotency-Key header onto it.
const MetadataKey = "idempotency-key"

// ReplayedHeader is the response metadata a replayed answer carries,
// with the value "true"; the gateway sends it as the HTTP header
// Idempotent-Replayed (the name Stripe and the IETF Idempotency-Key draft's
// implementations use). A first answer has none.
const ReplayedHeader = "idempotent-replayed"

// TTL is how long a key is remembered.
const TTL = 24 * time.Hour

// Lease is how long a first request may run before a retry with its key
// takes over: longer than any request runs, short enough that a request
// killed mid-way does not block its key for the whole TTL.
const Lease = 2 * time.Minute

const maxKeyLength = 255

// Record is a remembered request and, once it finished, its answer.
type Record struct {
	ID          int
	Method      string
	RequestHash []byte
	// Response is the marshalled anypb.Any of the answer; empty while the
	// first request still runs.
	Response []byte
	HTTPCode int
}

// Store keeps the records.
type Store interface {
	// Begin records a new request under (teamID, key) and returns nil, or
	// returns the record already there (a record older than TTL is replaced).
	Begin(ctx context.Context, teamID int, key, method string, hash []byte) (existing *Record, id int, err error)
	// Complete stores the answer of the request begun as id.
	Complete(ctx context.Context, id int, response []byte, httpCode int) error
	// Abandon forgets the request begun as id, so that a retry runs again.
	Abandon(ctx context.Context, id int) error
}

// Interceptor is the gRPC side of idempotency.
type Interceptor struct {
	store    Store
	releaser *releaser
}

// New returns the interceptor; it must run after authentication.
func New(store Store) *Interceptor {
	return &Interceptor{store: store, releaser: &releaser{store: store}}
}

// Unary replays, refuses or runs and remembers a call that carries a key.
func (i *Interceptor) Unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	key := keyOf(ctx)
	if key == "" || !isCreate(info.FullMethod) {
		return handler(ctx, req)
	}
	if len(key) > maxKeyLength {
		return nil, apierr.Invalid("Idempotency-Key", "must be at most %d characters", maxKeyLength)
	}
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	msg, ok := req.(proto.Message)
	if !ok {
		return handler(ctx, req)
	}
	hash, err := requestHash(info.FullMethod, msg)
	if err != nil {
		return nil, err
	}
	// Keys are the team's, within what the token may see: a token bound to
	// another store of the team must not replay this store's answers.
	// (Length-prefixed: unambiguous whatever the store id holds.)
	scoped := fmt.Sprintf("%d:%s:%s", len(p.StoreID), p.StoreID, key)
	existing, id, err := i.store.Begin(ctx, p.TeamID, scoped, info.FullMethod, hash)
	if err != nil {
		return nil, err
	}
	if existing != nil && len(existing.Response) == 0 && i.releaser.take(existing.ID) {
		// The first request failed in an outage and its key waits for the
		// background releaser: the database answers again (Begin did), so
		// release it now rather than answer the retry 409.
		if err := i.store.Abandon(ctx, existing.ID); err != nil {
			i.release(context.WithoutCancel(ctx), existing.ID)
			return nil, err
		}
		if existing, id, err = i.store.Begin(ctx, p.TeamID, scoped, info.FullMethod, hash); err != nil {
			return nil, err
		}
	}
	if existing != nil {
		return replay(ctx, existing, info.FullMethod, hash)
	}
	return i.run(withToken(ctx, p.TeamID, scoped, hash), req, id, handler)
}

type tokenKey struct{}

// withToken gives the handler the request's token (see Token).
func withToken(ctx context.Context, teamID int, scopedKey string, hash []byte) context.Context {
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00%s\x00", teamID, scopedKey)
	h.Write(hash)
	return context.WithValue(ctx, tokenKey{}, hex.EncodeToString(h.Sum(nil)))
}

// Token names the request being run under an Idempotency-Key: its team,
// key, method and body, hashed; empty when it carries no key. The key's
// record gets the answer after the handler's own transaction, so a process
// that stops between the two leaves a record without an answer, which a
// retry takes over once its lease passes and runs again. A create stores
// the token with what it makes, in its own transaction, so that the run
// again can recognise its own earlier result and answer it (see
// MarkReplayed) instead of a conflict with itself.
func Token(ctx context.Context) string {
	token, _ := ctx.Value(tokenKey{}).(string)
	return token
}

// MarkReplayed marks the answer as a replay: a handler answering what an
// earlier run of the same request made (see Token).
func MarkReplayed(ctx context.Context) error {
	return grpc.SetHeader(ctx, metadata.Pairs(ReplayedHeader, "true"))
}

func (i *Interceptor) run(ctx context.Context, req any, id int, handler grpc.UnaryHandler) (any, error) {
	rec := &httpstatus.Recorder{}
	resp, err := handler(httpstatus.WithRecorder(ctx, rec), req)
	// The answer is remembered even if the client went away meanwhile.
	bg := context.WithoutCancel(ctx)
	if err != nil {
		i.release(bg, id)
		return nil, err
	}
	packed, err := anypb.New(resp.(proto.Message))
	if err == nil {
		var raw []byte
		if raw, err = proto.Marshal(packed); err == nil {
			err = i.store.Complete(bg, id, raw, rec.Code)
		}
	}
	if err != nil {
		// The request itself succeeded: answer it. Its key is freed so a
		// retry runs again (and meets, for a create, the duplicate's 409).
		slog.WarnContext(ctx, "could not remember the answer for an idempotency key", "error", err)
		i.release(bg, id)
	}
	return resp, nil
}

// ReleaseRetry is how often keys whose release met an unreachable
// database are released again, until the database answers.
const ReleaseRetry = 200 * time.Millisecond

// release forgets the request begun as id, so that a retry runs again. A
// request that failed because the database went away mostly cannot forget
// it then either: left alone, its key would answer "still in progress"
// (409) until the lease passed, minutes after the database came back. It
// is handed to the background releaser, which tries again until the
// database answers, so that the client's retry, once it is back, runs.
func (i *Interceptor) release(ctx context.Context, id int) {
	if err := i.store.Abandon(ctx, id); err == nil || !apierr.Unreachable(err) {
		return
	}
	i.releaser.add(ctx, id, time.Now().Add(Lease))
}

// releaser frees, one at a time, the keys whose release met an
// unreachable database: one goroutine and one database connection, however
// many requests failed in an outage, so that it never takes the pool's
// connections from the requests that come once the database is back.
type releaser struct {
	store   Store
	mu      sync.Mutex
	pending []pendingRelease
	running bool
}

// pendingRelease is a key to release, until its lease passes (when the
// next request with the key takes the record over anyway).
type pendingRelease struct {
	ctx   context.Context
	id    int
	until time.Time
}

func (r *releaser) add(ctx context.Context, id int, until time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending = append(r.pending, pendingRelease{ctx: ctx, id: id, until: until})
	if !r.running {
		r.running = true
		go r.run()
	}
}

// take removes id from the pending releases, reporting whether it was
// there: the caller releases it itself.
func (r *releaser) take(id int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, p := range r.pending {
		if p.id == id {
			r.pending = append(r.pending[:k], r.pending[k+1:]...)
			return true
		}
	}
	return false
}

// run makes a pass every ReleaseRetry until nothing is pending.
func (r *releaser) run() {
	for {
		time.Sleep(ReleaseRetry)
		r.mu.Lock()
		batch := r.pending
		r.pending = nil
		r.mu.Unlock()
		left := r.pass(batch)
		r.mu.Lock()
		r.pending = append(left, r.pending...)
		if len(r.pending) == 0 {
			r.running = false
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
	}
}

// pass releases batch in order and returns what is left: everything from
// the first release that met the database still unreachable on. A release
// that failed otherwise (the database closed at shutdown) is dropped.
func (r *releaser) pass(batch []pendingRelease) []pendingRelease {
	for k, p := range batch {
		if time.Now().After(p.until) {
			slog.WarnContext(p.ctx, "could not release an idempotency key; its lease has passed", "id", p.id)
			continue
		}
		if err := r.store.Abandon(p.ctx, p.id); err != nil && apierr.Unreachable(err) {
			return batch[k:]
		}
	}
	return nil
}

func replay(ctx context.Context, rec *Record, method string, hash []byte) (any, error) {
	if rec.Method != method || string(rec.RequestHash) != string(hash) {
		return nil, apierr.Conflict("Idempotency-Key", "this Idempotency-Key was already used with another request")
	}
	if len(rec.Response) == 0 {
		return nil, apierr.Conflict("Idempotency-Key", "a request with this Idempotency-Key is still in progress; retry later")
	}
	packed := &anypb.Any{}
	if err := proto.Unmarshal(rec.Response, packed); err != nil {
		return nil, err
	}
	resp, err := packed.UnmarshalNew()
	if err != nil {
		return nil, err
	}
	if rec.HTTPCode != 0 {
		if err := httpstatus.Set(ctx, rec.HTTPCode); err != nil {
			return nil, err
		}
	}
	// Without it a replay is indistinguishable from a first answer: after
	// a DELETE, the create replayed answers a uid that no longer exists.
	if err := grpc.SetHeader(ctx, metadata.Pairs(ReplayedHeader, "true")); err != nil {
		return nil, err
	}
	return resp, nil
}

// isCreate reports the calls the key applies to: the API keys POSTs,
// which are the Create RPCs. A key on a read or an update is ignored, so it
// can never replay stale data.
func isCreate(fullMethod string) bool {
	return strings.HasPrefix(fullMethod[strings.LastIndexByte(fullMethod, '/')+1:], "Create")
}

func keyOf(ctx context.Context) string {
	if v := metadata.ValueFromIncomingContext(ctx, MetadataKey); len(v) > 0 {
		return v[0]
	}
	return ""
}

func requestHash(method string, msg proto.Message) ([]byte, error) {
	raw, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	h.Write([]byte(method))
	h.Write([]byte{0})
	h.Write(raw)
	return h.Sum(nil), nil
}
