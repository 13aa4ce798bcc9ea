package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/platen-print/platen/internal/render/reference"
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
	start := time.Now()
	if err := e.call(ctx, client, http.MethodPost, "/api/v1/orders", body, nil); err != nil {
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
	var answer struct {
		Status string `json:"status"`
	}
	err := e.call(ctx, client, http.MethodGet, "/api/v1/order-items/"+url.PathEscape(itemID)+"/print", nil, &answer)
	return answer.Status, err
}
