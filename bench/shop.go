package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

const (
	// shopDesignID is the design version every Family B order of the bench
	// names; cheapDesign is its document: one rectangle, so that a render
	// costs little beside the order, status and webhook work around it.
	shopDesignID = "bench-d1"
	cheapDesign  = `{"width":50,"height":50,"layers":[{"type":"rect","x":5,"y":5,"width":40,"height":40,"fill":"#3030c0"}]}`
	// shopLines is the size of the order shop-get reads: the issue's
	// 10-line order.
	shopLines = 10
	// shopSeedWait bounds the wait for the seeded order's renders.
	shopSeedWait = 60 * time.Second
)

// shopOrder is the part of a Family B order answer the bench reads.
type shopOrder struct {
	ReferenceNumber string `json:"reference_number"`
	Lines           []struct {
		Prints []struct {
			ID     string            `json:"id"`
			Status string            `json:"status"`
			Files  []json.RawMessage `json:"files"`
		} `json:"prints"`
	} `json:"lines"`
}

// allReady says whether every print of o is ready with at least one file.
func (o *shopOrder) allReady() bool {
	for _, l := range o.Lines {
		for _, p := range l.Prints {
			if p.Status != "ready" || len(p.Files) == 0 {
				return false
			}
		}
	}
	return len(o.Lines) > 0
}

// shopOrderBody is a Family B order of lines lines of shopDesignID; the
// bench's ids never need escaping.
func shopOrderBody(externalID string, lines int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"external_id":%q,"lines":[`, externalID)
	for i := range lines {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"design_version_id":%q,"quantity":1}`, shopDesignID)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// newAPIRequest is a request to e with the bench's token, and a JSON body
// when body is not nil.
func (e *env) newAPIRequest(ctx context.Context, method, path string, body []byte) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, e.baseURL+path, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+e.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// call sends a request and decodes a 2xx answer's JSON into out (when not
// nil); any other status is an error carrying the answer.
func (e *env) call(ctx context.Context, client *http.Client, method, path string, body []byte, out any) error {
	req, err := e.newAPIRequest(ctx, method, path, body)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &apiError{method: method, path: path, code: resp.StatusCode, status: resp.Status, body: data}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: %w: %s", method, path, err, tail(data))
	}
	return nil
}

// apiError is an answer outside 2xx, which a caller can tell apart by its
// status code (errors.As): the batch suite reports a 501 as batches not yet
// served rather than as a failure of the run.
type apiError struct {
	method, path string
	code         int
	status       string // "501 Not Implemented"
	body         []byte
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%s %s: %s: %s", e.method, e.path, e.status, tail(e.body))
}

// registerDesign registers shopDesignID with cheapDesign.
func (e *env) registerDesign(ctx context.Context, client *http.Client) error {
	body, err := json.Marshal(map[string]string{
		"design_version_id": shopDesignID,
		"template_config":   url.QueryEscape(cheapDesign),
	})
	if err != nil {
		return err
	}
	return e.call(ctx, client, http.MethodPost, "/api/v1/design-versions", body, nil)
}

// seedShop makes the order shop-get reads: a 10-line order of the cheap
// design, once every print is ready, so that the answer carries 10 files
// with their signed links.
func (e *env) seedShop(ctx context.Context) error {
	client := &http.Client{Timeout: 30 * time.Second}
	if err := e.registerDesign(ctx, client); err != nil {
		return e.withLog(fmt.Errorf("registering the design: %w", err))
	}
	var created struct{ Data shopOrder }
	body := shopOrderBody(e.run+"-shop-seed", shopLines)
	if err := e.call(ctx, client, http.MethodPost, "/v1/shop/orders", body, &created); err != nil {
		return e.withLog(fmt.Errorf("seeding a shop order: %w", err))
	}
	ref := created.Data.ReferenceNumber
	deadline := time.Now().Add(shopSeedWait)
	for {
		var got struct{ Data shopOrder }
		if err := e.call(ctx, client, http.MethodGet, "/v1/shop/orders/"+url.PathEscape(ref), nil, &got); err != nil {
			return e.withLog(fmt.Errorf("reading the seeded shop order: %w", err))
		}
		if got.Data.allReady() {
			e.shopRef = ref
			return nil
		}
		if time.Now().After(deadline) {
			return e.withLog(fmt.Errorf("shop order %s: prints not all ready after %s", ref, shopSeedWait))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// getShopOrder reads the seeded shop order by its reference_number.
func getShopOrder(e *env) func(worker, seq int) (*http.Request, error) {
	path := "/v1/shop/orders/" + url.PathEscape(e.shopRef)
	return func(int, int) (*http.Request, error) {
		return e.newAPIRequest(context.Background(), http.MethodGet, path, nil)
	}
}
