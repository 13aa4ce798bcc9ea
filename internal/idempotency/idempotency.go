// Package idempotency replays the first answer to a request sent again with
// the same Idempotency-Key: the same key and body within 24 h
// get the stored response, the same key with another body gets 409. It is a
// gRPC interceptor, so REST (whose header the gateway forwards) and gRPC
// clients get the same behaviour. A replay is marked with the response
// metadata idempotent-replayed: true (the HTTP header Idempotent-Replayed).
package idempotency

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
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
	ID int
	// Attempt names the run that wrote the record (see Store.Begin).
	Attempt     string
	Method      string
	RequestHash []byte
	// Response is the marshalled anypb.Any of the answer; empty while the
	// first request still runs.
	Response []byte
	HTTPCode int
}

// Store keeps the records.
type Store interface {
	// Begin records a new request under (teamID, key), written by the run
	// named attempt, and returns nil, or returns the record already there
	// (a record older than TTL is replaced).
	Begin(ctx context.Context, teamID int, key, attempt, method string, hash []byte) (existing *Record, id int, err error)
	// Complete stores the answer of the request begun as id.
	Complete(ctx context.Context, id int, response []byte, httpCode int) error
	// Abandon forgets the record attempt wrote under (teamID, key) while it
	// has no answer, so that a retry runs again; no such record is no
	// error. Naming the run rather than the record lets a run whose Begin
	// failed without knowing whether it was written abandon it too.
	Abandon(ctx context.Context, teamID int, key, attempt string) error
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
	run := attemptRun{teamID: p.TeamID, key: scoped, attempt: newAttempt()}
	existing, id, err := i.begin(ctx, run, info.FullMethod, hash)
	if err == nil && existing != nil && len(existing.Response) == 0 && i.releaser.failed(existing.Attempt) {
		// The record was left by a run of this process that failed in an
		// outage (its key waits for the background releaser, or its Begin
		// was written after all by a commit delivered late): the database
		// answers again (Begin did), so free it now rather than answer the
		// retry 409 "still in progress".
		if err := i.store.Abandon(ctx, p.TeamID, scoped, existing.Attempt); err != nil {
			return nil, err
		}
		run.attempt = newAttempt()
		existing, id, err = i.begin(ctx, run, info.FullMethod, hash)
	}
	if err != nil {
		return nil, err
	}
	if existing != nil {
		return replay(ctx, existing, info.FullMethod, hash)
	}
	return i.run(withToken(ctx, p.TeamID, scoped, hash), req, run, id, handler)
}

// begin is Store.Begin for run. When the database stopped answering, the
// record may have been written all the same (the commit went out, its
// answer did not come back, or it is delivered once the network heals):
// the releaser is told to watch for it and free it.
func (i *Interceptor) begin(ctx context.Context, run attemptRun, method string, hash []byte) (*Record, int, error) {
	existing, id, err := i.store.Begin(ctx, run.teamID, run.key, run.attempt, method, hash)
	if err != nil && apierr.Unreachable(err) {
		i.releaser.add(context.WithoutCancel(ctx), run, true)
	}
	return existing, id, err
}

// attemptRun is one run of a request under its key.
type attemptRun struct {
	teamID  int
	key     string
	attempt string
}

// newAttempt names a run: random, so that no two runs anywhere share it.
func newAttempt() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
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

func (i *Interceptor) run(ctx context.Context, req any, run attemptRun, id int, handler grpc.UnaryHandler) (any, error) {
	rec := &httpstatus.Recorder{}
	resp, err := handler(httpstatus.WithRecorder(ctx, rec), req)
	// The answer is remembered even if the client went away meanwhile.
	bg := context.WithoutCancel(ctx)
	if err != nil {
		i.release(bg, run)
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
		i.release(bg, run)
	}
	return resp, nil
}

// ReleaseRetry is how often keys whose release met an unreachable
// database are released again, until the database answers.
const ReleaseRetry = 200 * time.Millisecond

// release forgets run's record, so that a retry runs again. A request that
// failed because the database went away mostly cannot forget it then
// either: left alone, its key would answer "still in progress" (409) until
// the lease passed, minutes after the database came back. It is handed to
// the background releaser, which tries again until the database answers,
// so that the client's retry, once it is back, runs.
func (i *Interceptor) release(ctx context.Context, run attemptRun) {
	if err := i.store.Abandon(ctx, run.teamID, run.key, run.attempt); err == nil || !apierr.Unreachable(err) {
		return
	}
	i.releaser.add(ctx, run, false)
}

// maxPendingReleases bounds the releaser's memory in a long outage under
// load; a run past it keeps its key until the lease passes.
const maxPendingReleases = 1 << 16

// releaser frees, one at a time, the keys of runs that failed in an
// outage: one goroutine and one database connection, however many requests
// failed, so that it never takes the pool's connections from the requests
// that come once the database is back. The runs it holds are failed: a
// retry that meets one's record frees it at once (see failed).
type releaser struct {
	store   Store
	mu      sync.Mutex
	pending map[string]*pendingRelease // by attempt
	running bool
}

// pendingRelease is a failed run whose record is to be freed.
type pendingRelease struct {
	ctx context.Context
	run attemptRun
	// until is the run's lease: past it the next request with the key
	// takes the record over anyway.
	until time.Time
	// unknown: the run's Begin failed, so its record may yet be written by
	// a commit delivered late; it is freed again, at growing intervals,
	// until the lease passes.
	unknown bool
	next    time.Time
	wait    time.Duration
}

func (r *releaser) add(ctx context.Context, run attemptRun, unknown bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending == nil {
		r.pending = make(map[string]*pendingRelease)
	}
	if len(r.pending) >= maxPendingReleases {
		slog.WarnContext(ctx, "too many idempotency keys to release; this one waits for its lease")
		return
	}
	r.pending[run.attempt] = &pendingRelease{ctx: ctx, run: run, until: time.Now().Add(Lease),
		unknown: unknown, wait: time.Second}
	if !r.running {
		r.running = true
		go r.loop()
	}
}

// failed reports whether attempt is a run of this process that failed and
// whose record is still to be freed.
func (r *releaser) failed(attempt string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.pending[attempt]
	return ok
}

// loop makes a pass every ReleaseRetry until nothing is pending.
func (r *releaser) loop() {
	for {
		time.Sleep(ReleaseRetry)
		for _, p := range r.due() {
			if !r.releaseOne(p) {
				break // the database is still away: the next pass
			}
		}
		r.mu.Lock()
		if len(r.pending) == 0 {
			r.running = false
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
	}
}

// due is the pending releases to try now, oldest first; those past their
// lease are dropped.
func (r *releaser) due() []*pendingRelease {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	var due []*pendingRelease
	for attempt, p := range r.pending {
		switch {
		case now.After(p.until):
			delete(r.pending, attempt)
		case !now.Before(p.next):
			due = append(due, p)
		}
	}
	slices.SortFunc(due, func(a, b *pendingRelease) int { return a.until.Compare(b.until) })
	return due
}

// releaseOne frees p's record, reporting false when the database is still
// unreachable. A release that failed otherwise (the database closed at
// shutdown) is dropped.
func (r *releaser) releaseOne(p *pendingRelease) bool {
	err := r.store.Abandon(p.ctx, p.run.teamID, p.run.key, p.run.attempt)
	if err != nil && apierr.Unreachable(err) {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil && p.unknown {
		p.next, p.wait = time.Now().Add(p.wait), 2*p.wait
		return true
	}
	delete(r.pending, p.run.attempt)
	return true
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
