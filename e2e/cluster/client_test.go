package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/platen-print/platen/internal/idempotency"
)

// api calls the serves' REST APIs with the store's token, spreading the
// calls over both serves.
type api struct {
	c      *cluster
	client *http.Client
	next   atomic.Uint64 // which serve takes the next request
	// watch records the exchanges around the silent partition.
	watch partitionWatch
}

func newAPI(c *cluster) *api {
	return &api{c: c, client: &http.Client{Timeout: 30 * time.Second}}
}

// answer is one HTTP exchange.
type answer struct {
	status int
	body   []byte
	header http.Header
}

func (a answer) decode(v any) error { return json.Unmarshal(a.body, v) }

// once sends one request to serve i.
// token, when given, replaces the store's.
func (a *api) once(ctx context.Context, i int, method, path string, body []byte, key string, token ...string) (answer, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.c.serves[i].base+path, rd)
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Authorization", "Bearer "+a.c.token)
	if len(token) > 0 {
		req.Header.Set("Authorization", "Bearer "+token[0])
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	start := time.Now()
	ans, err := a.exchange(req)
	a.watch.note(start, method, path, key, ans, err)
	return ans, err
}

// exchange sends req and reads its answer.
func (a *api) exchange(req *http.Request) (answer, error) {
	resp, err := a.client.Do(req)
	if err != nil {
		return answer{header: http.Header{}}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{header: resp.Header}, err
	}
	return answer{status: resp.StatusCode, body: b, header: resp.Header}, nil
}

// retryable says an exchange failed for a reason of the cluster's, not of
// the request: no answer (a serve killed or stopping), a 5xx or 429 while
// the database or S3 is away, or a 409 saying that the first request with
// the key is still in progress (it may have died with its serve: its
// record is taken over after idempotency.Lease). A client retries those,
// with the same Idempotency-Key.
func retryable(a answer, err error) bool {
	return err != nil || a.status >= 500 || a.status == http.StatusTooManyRequests ||
		(a.status == http.StatusConflict && bytes.Contains(a.body, []byte("still in progress")))
}

// errGaveUp is a request that found no serve able to answer in time.
var errGaveUp = errors.New("no serve answered in time")

// send sends a request until an answer that is not retryable, alternating
// serves from the next one in turn, for at most three minutes (a serve that
// is down comes back, and outages last seconds; a key whose first request
// died is free again after idempotency.Lease). It returns the answer and
// how many attempts it took.
func (a *api) send(ctx context.Context, method, path string, body []byte, key string) (answer, int, error) {
	start := int(a.next.Add(1))
	deadline := time.Now().Add(idempotency.Lease + time.Minute)
	for attempt := 0; ; attempt++ {
		i := (start + attempt) % len(a.c.serves)
		ans, err := a.once(ctx, i, method, path, body, key)
		if !retryable(ans, err) {
			return ans, attempt + 1, nil
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return ans, attempt + 1, fmt.Errorf("%s %s: %w (last: %d %v)", method, path, errGaveUp, ans.status, err)
		}
		// A pause between rounds so that a serve coming back is not
		// hammered; the answer itself is the event awaited.
		if attempt%len(a.c.serves) == 1 {
			select {
			case <-ctx.Done():
			case <-time.After(250 * time.Millisecond):
			}
		}
	}
}
