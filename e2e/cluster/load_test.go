package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/platentest"
)

// ledger is what the load was told: every acknowledged create, change and
// delete, and every answer the API does not allow.
type ledger struct {
	mu        sync.Mutex
	orders    []*orderRec // Family A, in creation order
	shop      []*shopRec  // Family B
	batches   []string    // batch uids
	ops       map[string]int
	retries   int // requests that took more than one attempt
	anomalies []string
	// slowest is the longest any operation waited for its answer, retries
	// included, and which one it was.
	slowest   time.Duration
	slowestOp string
	// recovered counts creates whose answer came as a replay to the
	// client's retry: the first attempt made it, and its answer was lost.
	recovered int
}

// orderRec is a Family A order as the shop knows it.
type orderRec struct {
	key, ecomID, uid string
	items            []string // ecommerce_order_item_id of each item
	itemUIDs         []string
	version          int // of the items' designs; PUT raises it
	deleted          bool
	// batched orders are in a batch: they are neither changed nor
	// deleted, so that the batch's outcome depends on the faults only.
	batched bool
}

// shopRec is a Family B order as the shop knows it.
type shopRec struct {
	externalID, ref string
	lines           int
}

// noteRecovered counts a create's first answer to the client that came
// as a replay.
func (l *ledger) noteRecovered(a answer) {
	if a.header.Get("Idempotent-Replayed") == "true" {
		l.mu.Lock()
		l.recovered++
		l.mu.Unlock()
	}
}

func newLedger() *ledger { return &ledger{ops: map[string]int{}} }

func (l *ledger) anomaly(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.anomalies = append(l.anomalies, fmt.Sprintf(format, args...))
}

func (l *ledger) count(op string, attempts int, took time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ops[op]++
	if attempts > 1 {
		l.retries++
	}
	if took > l.slowest {
		l.slowest, l.slowestOp = took, fmt.Sprintf("%s (%d attempts)", op, attempts)
	}
}

// designs are the Family B design versions registered before the load.
const designs = 4

// designDoc is a small card whose text names what it is, so that every
// render differs; slow ones also place an image that the image server
// holds back, so that their renders stay in flight for seconds.
func designDoc(label, slowImage string) string {
	layers := []map[string]any{
		{"type": "rect", "x": -2, "y": -2, "width": 104, "height": 74, "fill": "#f2e8d5"},
		{"type": "text", "text": label, "font": "Go-Bold", "size": 14, "x": 5, "y": 28, "width": 90, "align": "center"},
	}
	if slowImage != "" {
		layers = append(layers, map[string]any{"type": "image", "src": slowImage, "x": 5, "y": 5, "width": 20, "height": 15})
	}
	doc, _ := json.Marshal(map[string]any{"width": 100, "height": 70, "bleed": 2, "layers": layers})
	return url.QueryEscape(string(doc))
}

// load drives the mixed load: workers, each with its own orders, so that
// a worker's change or delete never races another's.
type load struct {
	api *api
	l   *ledger
	// template is the print template batches lay the cards out on.
	template string
	// seq numbers orders across workers, so that ids never repeat.
	mu  sync.Mutex
	seq int
}

func (ld *load) nextSeq() int {
	ld.mu.Lock()
	defer ld.mu.Unlock()
	ld.seq++
	return ld.seq
}

// registerDesigns registers Family B's design versions.
func (ld *load) registerDesigns(t *testing.T) {
	t.Helper()
	for i := range designs {
		body, _ := json.Marshal(map[string]any{
			"design_version_id": fmt.Sprintf("dv-%d", i),
			"template_config":   designDoc(fmt.Sprintf("design %d", i), ""),
		})
		ans, _, err := ld.api.send(context.Background(), "POST", "/api/v1/design-versions", body, "")
		if err != nil || ans.status != http.StatusOK {
			t.Fatalf("register design dv-%d: %v %d %s", i, err, ans.status, ans.body)
		}
	}
}

// schedule is each worker's round of operations.
var schedule = []string{"createA", "createB", "createA", "put", "createA", "createB", "delete", "createA", "batch"}

// run works until stop is closed or the worker has done max operations,
// one every pace.
func (ld *load) run(ctx context.Context, stop <-chan struct{}, max int, pace time.Duration) {
	tick := time.NewTicker(pace)
	defer tick.Stop()
	var mine []*orderRec
	for i := 0; i < max; i++ {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		switch schedule[i%len(schedule)] {
		case "createA":
			if o := ld.createOrder(ctx, ld.nextSeq(), i%3 == 0, ""); o != nil {
				mine = append(mine, o)
			}
		case "createB":
			ld.createShop(ctx, ld.nextSeq())
		case "put":
			ld.changeDesign(ctx, pick(mine, i))
		case "delete":
			ld.deleteOrder(ctx, pick(mine, i+1))
		case "batch":
			a, b := newestTwo(mine)
			ld.createBatch(ctx, a, b)
		}
	}
}

// pick is a live order of the worker's, chosen by n, or nil.
func pick(mine []*orderRec, n int) *orderRec {
	for k := range mine {
		if o := mine[(n+k)%len(mine)]; !o.deleted && !o.batched {
			return o
		}
	}
	return nil
}

// newestTwo are the worker's two newest orders neither deleted nor in a
// batch (nil when there are fewer): their prints are likely still
// rendering, so the batch meets them mid-way.
func newestTwo(mine []*orderRec) (a, b *orderRec) {
	for k := len(mine) - 1; k >= 0; k-- {
		o := mine[k]
		switch {
		case o.deleted || o.batched:
		case a == nil:
			a = o
		default:
			return a, o
		}
	}
	return nil, nil
}

// orderBody is a Family A create (or PUT) with the items' designs at the
// order's version.
func orderBody(o *orderRec, slowImage string) []byte {
	var items []map[string]any
	for _, id := range o.items {
		items = append(items, map[string]any{
			"ecommerce_order_item_id": id, "ecommerce_variant_id": "card", "price": 5,
			"template_config": designDoc(fmt.Sprintf("%s v%d", id, o.version), slowImage),
		})
	}
	order := platentest.OrderBody(storeID, o.ecomID, platentest.PrintFiles(), platentest.Items(items...))
	order["currency_code"], order["total_price"] = "EUR", 10
	body, _ := json.Marshal(order)
	return body
}

// createOrder creates a Family A order with print files, retrying with its
// Idempotency-Key until it is acknowledged; every other create's answer is
// replayed once with the same key, on the next serve.
func (ld *load) createOrder(ctx context.Context, n int, twoItems bool, slowImage string) *orderRec {
	o := &orderRec{key: fmt.Sprintf("create-A-%d", n), ecomID: fmt.Sprintf("A-%d", n), version: 1}
	o.items = []string{o.ecomID + "-1"}
	if twoItems {
		o.items = append(o.items, o.ecomID+"-2")
	}
	body := orderBody(o, slowImage)
	start := time.Now()
	ans, attempts, err := ld.api.send(ctx, "POST", "/api/v1/orders", body, o.key)
	ld.l.count("create A", attempts, time.Since(start))
	var got struct {
		UID   string `json:"uid"`
		Items []struct {
			UID string `json:"uid"`
		} `json:"items"`
	}
	if err != nil || ans.status != http.StatusOK || ans.decode(&got) != nil || got.UID == "" {
		ld.l.anomaly("create %s: %v %d %s", o.ecomID, err, ans.status, ans.body)
		return nil
	}
	o.uid = got.UID
	ld.l.noteRecovered(ans)
	for _, it := range got.Items {
		o.itemUIDs = append(o.itemUIDs, it.UID)
	}
	ld.l.mu.Lock()
	ld.l.orders = append(ld.l.orders, o)
	ld.l.mu.Unlock()
	if n%2 == 0 {
		ld.replay(ctx, o, body)
	}
	return o
}

// replay sends a create again with its key: the first answer must come
// back, marked replayed.
func (ld *load) replay(ctx context.Context, o *orderRec, body []byte) {
	start := time.Now()
	ans, attempts, err := ld.api.send(ctx, "POST", "/api/v1/orders", body, o.key)
	ld.l.count("replay A", attempts, time.Since(start))
	var got struct {
		UID string `json:"uid"`
	}
	if err != nil || ans.status != http.StatusOK || ans.decode(&got) != nil || got.UID != o.uid ||
		ans.header.Get("Idempotent-Replayed") != "true" {
		ld.l.anomaly("replay of %s (uid %s): %v %d replayed=%q %s", o.key, o.uid, err, ans.status,
			ans.header.Get("Idempotent-Replayed"), ans.body)
	}
}

// createShop creates a Family B order of one or two lines.
func (ld *load) createShop(ctx context.Context, n int) {
	s := &shopRec{externalID: fmt.Sprintf("B-%d", n), lines: 1 + n%2}
	var lines []map[string]any
	for k := range s.lines {
		lines = append(lines, map[string]any{"design_version_id": fmt.Sprintf("dv-%d", (n+k)%designs), "quantity": 1 + k})
	}
	body, _ := json.Marshal(map[string]any{"external_id": s.externalID, "lines": lines})
	start := time.Now()
	ans, attempts, err := ld.api.send(ctx, "POST", "/v1/shop/orders", body, "create-"+s.externalID)
	ld.l.count("create B", attempts, time.Since(start))
	var got struct {
		Data struct {
			Ref string `json:"reference_number"`
		} `json:"data"`
	}
	// 201 for a new order; 200 when a retry found the first one made.
	created := ans.status == http.StatusCreated || (attempts > 1 && ans.status == http.StatusOK)
	if err != nil || !created || ans.decode(&got) != nil || got.Data.Ref == "" {
		ld.l.anomaly("create %s: %v %d %s", s.externalID, err, ans.status, ans.body)
		return
	}
	s.ref = got.Data.Ref
	ld.l.mu.Lock()
	ld.l.shop = append(ld.l.shop, s)
	ld.l.mu.Unlock()
}

// changeDesign PUTs new designs for every item of o: they render again.
func (ld *load) changeDesign(ctx context.Context, o *orderRec) {
	if o == nil {
		return
	}
	o.version++
	start := time.Now()
	ans, attempts, err := ld.api.send(ctx, "PUT", "/api/v1/orders/"+o.uid, orderBody(o, ""), "")
	ld.l.count("put A", attempts, time.Since(start))
	if err != nil || ans.status != http.StatusOK {
		ld.l.anomaly("put %s v%d: %v %d %s", o.ecomID, o.version, err, ans.status, ans.body)
	}
}

// deleteOrder deletes o; a 404 on a retry means the lost first attempt
// deleted it.
func (ld *load) deleteOrder(ctx context.Context, o *orderRec) {
	if o == nil {
		return
	}
	start := time.Now()
	ans, attempts, err := ld.api.send(ctx, "DELETE", "/api/v1/orders/"+o.uid, nil, "")
	ld.l.count("delete A", attempts, time.Since(start))
	if err != nil || !(ans.status == http.StatusOK || (attempts > 1 && ans.status == http.StatusNotFound)) {
		ld.l.anomaly("delete %s: %v %d %s", o.ecomID, err, ans.status, ans.body)
		return
	}
	ld.l.mu.Lock()
	o.deleted = true
	ld.l.mu.Unlock()
}

// createBatch lays the items of two orders out on the print template.
func (ld *load) createBatch(ctx context.Context, a, b *orderRec) {
	if a == nil {
		return
	}
	a.batched, b.batched = true, true
	items := append(append([]string{}, a.itemUIDs...), b.itemUIDs...)
	body, _ := json.Marshal(map[string]any{"order_items": items, "print_templates": []string{ld.template}})
	start := time.Now()
	ans, attempts, err := ld.api.send(ctx, "POST", "/api/v1/batch-orders", body, "batch-"+a.ecomID+"-"+b.ecomID)
	ld.l.count("batch", attempts, time.Since(start))
	var got struct {
		UID string `json:"uid"`
	}
	if err != nil || ans.status != http.StatusOK || ans.decode(&got) != nil || got.UID == "" {
		ld.l.anomaly("batch of %s and %s: %v %d %s", a.ecomID, b.ecomID, err, ans.status, ans.body)
		return
	}
	ld.l.noteRecovered(ans)
	ld.l.mu.Lock()
	ld.l.batches = append(ld.l.batches, got.UID)
	ld.l.mu.Unlock()
}

// setupBatches makes what a batch needs: a staff operator, a card variant
// that the items' ecommerce_variant_id names, and a print template for it.
func (ld *load) setupBatches(t *testing.T, c *cluster) {
	t.Helper()
	out := runOut(t, c.env(), c.platen, "admin", "operator", "create", "--email", "ops@example.com", "--staff",
		"--database-url", c.dbURL, "--data-dir", c.dir)
	var staff struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(out, &staff); err != nil || staff.Token == "" {
		t.Fatalf("operator create: %q: %v", out, err)
	}
	post := func(path, token string, body map[string]any) map[string]any {
		t.Helper()
		raw, _ := json.Marshal(body)
		ans, err := ld.api.once(context.Background(), 0, "POST", path, raw, "", token)
		var v map[string]any
		if err != nil || ans.status != http.StatusOK || ans.decode(&v) != nil {
			t.Fatalf("POST %s: %v %d %s", path, err, ans.status, ans.body)
		}
		return v
	}
	cat := post("/api/v1/product-categories", c.token, map[string]any{"name": "Cards"})
	prod := post("/api/v1/products", c.token, map[string]any{"category_id": cat["id"], "name": "Card", "order_column": 1, "active": true, "team_id": c.teamID})
	variant := post("/api/v1/product-variants", c.token, map[string]any{"name": "Card", "product_id": prod["id"], "country_id": 276, "ecommerce_variant_ids": []string{"card"}})
	tmpl := post("/api/v1/operator/print-templates", staff.Token, map[string]any{
		"team_id": c.teamID, "name": "SRA3", "sheet_width_mm": 320, "sheet_height_mm": 450, "margin_top_mm": 5, "margin_right_mm": 5,
		"margin_bottom_mm": 5, "margin_left_mm": 5, "gap_mm": 6, "grid": map[string]any{"columns": 2, "rows": 4}, "crop_marks": true,
		"variant_ids": []any{variant["id"]},
	})
	ld.template, _ = tmpl["uid"].(string)
}
