package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/platen-print/platen/internal/render/reference"
)

// The Platen half of the batch suite: 200 items of the reference page,
// batched on a print template of the grid, timed from
// POST /api/v1/batch-orders to the first GET that answers Ready.

const (
	// batchOrders is how many orders carry a batch's items, batchItems
	// between them: a batch gathers items of several orders.
	batchOrders = 4
	// batchVariant is the e-commerce variant id of every item, which the
	// print template's product variant lists.
	batchVariant = "bench-card"
	// operatorEmail is the staff operator's, who creates the template.
	operatorEmail = "bench@example.com"
	// batchWait bounds the wait for one batch: 200 items rendered on 2
	// cores, with room for a slow phase of the host.
	batchWait = 5 * time.Minute
)

// errNoBatches is a platen that answers 501 to a batch: built before
// batch orders were, it has no Platen figure to give.
var errNoBatches = errors.New("this platen does not make batch orders yet, so there is no Platen figure")

// platenBatcher is a platen serve ready for batches: a staff operator's
// print template of the grid, assigned to a product variant that
// the items' e-commerce variant id selects.
type platenBatcher struct {
	e        *env
	template string // its uid
	client   *http.Client
}

// newPlatenBatcher creates the operator, the catalogue and the print
// template on e, which must serve.
func newPlatenBatcher(ctx context.Context, platen string, e *env) (*platenBatcher, error) {
	client := &http.Client{Timeout: time.Minute}
	opToken, err := e.staffOperator(ctx, platen)
	if err != nil {
		return nil, err
	}
	variantID, err := e.cardVariant(ctx, client)
	if err != nil {
		return nil, err
	}
	body, err := printTemplateBody(e.teamID, variantID)
	if err != nil {
		return nil, err
	}
	op := *e // as the operator sees the server: the operator API wants its token
	op.token = opToken
	var created struct {
		UID string `json:"uid"`
	}
	if err := op.call(ctx, client, http.MethodPost, "/api/v1/operator/print-templates", body, &created); err != nil {
		return nil, fmt.Errorf("creating the print template: %w", err)
	}
	if created.UID == "" {
		return nil, errors.New("the created print template has no uid")
	}
	return &platenBatcher{e: e, template: created.UID, client: client}, nil
}

// staffOperator creates the staff operator with `platen admin operator
// create` and returns its operator API token.
func (e *env) staffOperator(ctx context.Context, platen string) (string, error) {
	created, err := e.createOperator(ctx, platen, "--email", operatorEmail, "--staff")
	return created.Token, err
}

// createdOperator is what `platen admin operator create` prints.
type createdOperator struct {
	Email    string `json:"email"`
	Password string `json:"password"`
	Token    string `json:"token"`
}

// createOperator runs `platen admin operator create` with args.
func (e *env) createOperator(ctx context.Context, platen string, args ...string) (createdOperator, error) {
	var out createdOperator
	raw, err := e.admin(ctx, platen, append([]string{"operator", "create"}, args...)...)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, fmt.Errorf("admin operator create printed %q: %w", tail(raw), err)
	}
	if !strings.HasPrefix(out.Token, "plo_") || out.Password == "" {
		return out, fmt.Errorf("admin operator create printed no operator token and password: %q", tail(raw))
	}
	return out, nil
}

// cardVariant creates a category, a product and the variant whose
// e-commerce variant id is batchVariant, and returns the variant's id.
func (e *env) cardVariant(ctx context.Context, client *http.Client) (int64, error) {
	var category, product, variant idAnswer
	steps := []struct {
		path string
		body func() ([]byte, error)
		out  *idAnswer
	}{
		{"/api/v1/product-categories", categoryBody, &category},
		{"/api/v1/products", func() ([]byte, error) { return productBody(category.ID, e.teamID) }, &product},
		{"/api/v1/product-variants", func() ([]byte, error) { return variantBody(product.ID) }, &variant},
	}
	for _, s := range steps {
		body, err := s.body()
		if err != nil {
			return 0, err
		}
		if err := e.call(ctx, client, http.MethodPost, s.path, body, s.out); err != nil {
			return 0, err
		}
		if s.out.ID == 0 {
			return 0, fmt.Errorf("POST %s: no id in the answer", s.path)
		}
	}
	return variant.ID, nil
}

// idAnswer is the integer id that catalogue creates answer with.
type idAnswer struct {
	ID int64 `json:"id"`
}

func categoryBody() ([]byte, error) {
	return json.Marshal(map[string]any{"name": "Cards"})
}

func productBody(categoryID, teamID int64) ([]byte, error) {
	return json.Marshal(map[string]any{
		"category_id": categoryID, "name": "Reference card", "order_column": 1, "active": true, "team_id": teamID,
	})
}

func variantBody(productID int64) ([]byte, error) {
	return json.Marshal(map[string]any{
		"name": "Reference card", "product_id": productID, "country_id": 276, // Germany
		"ecommerce_variant_ids": []string{batchVariant},
	})
}

// printTemplateBody is the sheet: SRA3, 5 mm margins, 6 mm between
// the slots of a 2 × 4 grid that share the rest evenly (152 × 105.5 mm, so
// that the 148.5 × 105 mm card fits turned), 1.5 mm of each item's bleed
// kept (all the card has), crop marks, for the variant.
func printTemplateBody(teamID, variantID int64) ([]byte, error) {
	return json.Marshal(map[string]any{
		"team_id":         teamID,
		"name":            fmt.Sprintf("SRA3 %dx%d", gridColumns, gridRows),
		"sheet_width_mm":  sheetWidthMM,
		"sheet_height_mm": sheetHeightMM,
		"margin_top_mm":   5, "margin_right_mm": 5, "margin_bottom_mm": 5, "margin_left_mm": 5,
		"gap_mm":        6,
		"slot_bleed_mm": 1.5,
		"grid":          map[string]any{"columns": gridColumns, "rows": gridRows},
		"crop_marks":    true,
		"variant_ids":   []int64{variantID},
	})
}

// batchOrderBody is a Family A order of n items of the reference card, with
// its photo at photoURL, one copy each, of the batch variant; it asks for
// no print files, so that the items wait for their batch unrendered.
func batchOrderBody(storeID, orderID, photoURL string, n int) ([]byte, error) {
	config := url.QueryEscape(string(reference.Card(photoURL)))
	items := make([]map[string]any, n)
	for i := range items {
		items[i] = map[string]any{
			"ecommerce_order_item_id": fmt.Sprintf("%s-%d", orderID, i+1),
			"ecommerce_variant_id":    batchVariant,
			"quantity":                1,
			"thumbnails":              []string{"https://example.com/t.png"},
			"template_config":         config,
		}
	}
	return json.Marshal(map[string]any{
		"store_id":           storeID,
		"ecommerce_order_id": orderID,
		"create_print_files": false,
		"items":              items,
	})
}

func batchBody(items []string, template string) ([]byte, error) {
	return json.Marshal(map[string]any{"order_items": items, "print_templates": []string{template}})
}

// batchOrder is the part of a batch order's answer the suite reads.
type batchOrder struct {
	UID    string `json:"uid"`
	Status string `json:"status"`
	Files  []struct {
		URL   *string `json:"url"`
		Pages int     `json:"pages"`
	} `json:"files"`
	Error *string `json:"error"`
}

// batch orders batchItems new items of the reference page with their photo
// at photoURL (one URL for all: the same page 200 times, whose photo a
// sheet file can hold once; a new URL each batch, so that none finds it in
// the render cache), then times one batch of them on the template from the
// start of the POST to the first answer that says Ready. It downloads the
// file and checks that it holds sheets pages.
func (b *platenBatcher) batch(ctx context.Context, run, photoURL string, sheets int) (time.Duration, sheetFile, error) {
	items, err := b.orderItems(ctx, run, photoURL)
	if err != nil {
		return 0, sheetFile{}, err
	}
	body, err := batchBody(items, b.template)
	if err != nil {
		return 0, sheetFile{}, err
	}
	start := time.Now()
	var created batchOrder
	if err := b.e.call(ctx, b.client, http.MethodPost, "/api/v1/batch-orders", body, &created); err != nil {
		var answer *apiError
		if errors.As(err, &answer) && answer.code == http.StatusNotImplemented {
			return 0, sheetFile{}, fmt.Errorf("%w: %w", errNoBatches, err)
		}
		return 0, sheetFile{}, err
	}
	ready, took, err := b.waitReady(ctx, created.UID, start)
	if err != nil {
		return 0, sheetFile{}, err
	}
	file, err := b.download(ctx, ready, sheets)
	if err != nil {
		return 0, sheetFile{}, fmt.Errorf("batch %s: %w", created.UID, err)
	}
	return took, file, nil
}

// orderItems posts batchOrders orders of batchItems items between them and
// returns the items' uids.
func (b *platenBatcher) orderItems(ctx context.Context, run, photoURL string) ([]string, error) {
	var uids []string
	for i := range batchOrders {
		n := batchItems / batchOrders
		if i == batchOrders-1 {
			n = batchItems - len(uids)
		}
		body, err := batchOrderBody(b.e.storeID, fmt.Sprintf("%s-%d", run, i+1), photoURL, n)
		if err != nil {
			return nil, err
		}
		var order orderAnswer
		if err := b.e.call(ctx, b.client, http.MethodPost, "/api/v1/orders", body, &order); err != nil {
			return nil, err
		}
		if len(order.Items) != n {
			return nil, fmt.Errorf("POST /api/v1/orders: %d items in the answer, sent %d", len(order.Items), n)
		}
		for _, item := range order.Items {
			uids = append(uids, item.UID)
		}
	}
	return uids, nil
}

// waitReady polls the batch every readyPoll until it is Ready, and returns
// it with the time from start.
func (b *platenBatcher) waitReady(ctx context.Context, uid string, start time.Time) (batchOrder, time.Duration, error) {
	path := "/api/v1/batch-orders/" + url.PathEscape(uid)
	for time.Since(start) < batchWait {
		var got batchOrder
		if err := b.e.call(ctx, b.client, http.MethodGet, path, nil, &got); err != nil {
			return got, 0, err
		}
		switch got.Status {
		case "Ready":
			return got, time.Since(start), nil
		case "Failed":
			why := "no error given"
			if got.Error != nil {
				why = *got.Error
			}
			return got, 0, fmt.Errorf("batch %s failed: %s", uid, why)
		}
		select {
		case <-ctx.Done():
			return got, 0, ctx.Err()
		case <-time.After(readyPoll):
		}
	}
	return batchOrder{}, 0, fmt.Errorf("batch %s: not Ready after %s", uid, batchWait)
}

// download fetches the batch's one file by its signed link, following the
// redirect to the file, and measures it.
func (b *platenBatcher) download(ctx context.Context, batch batchOrder, sheets int) (sheetFile, error) {
	if len(batch.Files) != 1 || batch.Files[0].URL == nil {
		return sheetFile{}, fmt.Errorf("the batch is Ready with %d files, want 1 with a url", len(batch.Files))
	}
	if got := batch.Files[0].Pages; got != sheets {
		return sheetFile{}, fmt.Errorf("files[0].pages is %d, want %d", got, sheets)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *batch.Files[0].URL, nil)
	if err != nil {
		return sheetFile{}, err
	}
	resp, err := b.client.Do(req) // no token: the link carries its own
	if err != nil {
		return sheetFile{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return sheetFile{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return sheetFile{}, fmt.Errorf("GET files[0].url: %s: %s", resp.Status, tail(data))
	}
	file, err := measureSheets(data, sheets)
	if err != nil {
		return sheetFile{}, fmt.Errorf("the downloaded file: %w", err)
	}
	return file, nil
}
