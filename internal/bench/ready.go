package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/platen-print/platen/internal/bench/reference"
)

const (
	// readyPoll is how often the print status is read while waiting: small
	// beside the time measured, large enough not to load the server.
	readyPoll = 5 * time.Millisecond
	// readyWait bounds the wait for one order.
	readyWait = 30 * time.Second
)

// renderedOrderBody is a Family A order of one item whose design is the
// reference page with its photo at photoURL, with print files requested.
func renderedOrderBody(storeID, orderID, itemID, photoURL string) ([]byte, error) {
	return json.Marshal(map[string]any{
		"store_id":           storeID,
		"ecommerce_order_id": orderID,
		"create_print_files": true,
		"items": []map[string]any{{
			"ecommerce_order_item_id": itemID,
			"ecommerce_variant_id":    "v1",
			"quantity":                1,
			"thumbnails":              []string{"https://example.com/t.png"},
			"template_config":         url.QueryEscape(string(reference.Document(photoURL))),
		}},
	})
}

// postToReady posts one such order to e and polls its item's print status
// until it is ready. It returns the time from the start of the POST to its
// answer, and to the first status answer that said ready.
func (e *env) postToReady(ctx context.Context, client *http.Client, orderID, photoURL string) (posted, ready time.Duration, err error) {
	itemID := orderID + "-1"
	body, err := renderedOrderBody(e.storeID, orderID, itemID, photoURL)
	if err != nil {
		return 0, 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.baseURL+"/api/v1/orders", bytes.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+e.token)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	if err := expect200(client, req); err != nil {
		return 0, 0, err
	}
	posted = time.Since(start)
	for time.Since(start) < readyWait {
		status, err := e.printStatus(ctx, client, itemID)
		switch {
		case err != nil:
			return 0, 0, err
		case status == "ready":
			return posted, time.Since(start), nil
		case status == "processingfailed":
			return 0, 0, fmt.Errorf("order %s: the render failed (see the server's log)", orderID)
		}
		select {
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		case <-time.After(readyPoll):
		}
	}
	return 0, 0, fmt.Errorf("order %s: not ready after %s", orderID, readyWait)
}

// printStatus reads the item's print status: received, processing,
// processingfailed or ready.
func (e *env) printStatus(ctx context.Context, client *http.Client, itemID string) (string, error) {
	req, err := e.newPrintRequest(itemID)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req.WithContext(ctx))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s: %s", req.URL.Path, resp.Status, tail(body))
	}
	var answer struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return "", fmt.Errorf("GET %s: %w: %s", req.URL.Path, err, tail(body))
	}
	return answer.Status, nil
}
