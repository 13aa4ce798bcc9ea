package bench

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	mathrand "math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/platen-print/platen/bench/loadgen"
	"github.com/platen-print/platen/internal/render/reference"
)

// LatencyOptions configures the latency suite (RunLatency): how long an
// order takes to become a ready file, and a webhook to arrive, on the
// reference page with its photo inside the document as a data: URL.
type LatencyOptions struct {
	Platen      string
	PostgresURL string
	// Orders are timed one at a time, at idle, for each family.
	Orders int
	// Rate is the Family A orders a second of the loaded step, sent for
	// LoadFor.
	Rate    float64
	LoadFor time.Duration
	// BigPosts are POSTs of an order whose template_config is BigConfig
	// bytes, timed one at a time.
	BigPosts  int
	BigConfig int
	// Clients post Pages orders back to back until all are ready (the
	// throughput step), and Burst orders timed against rsvg-convert.
	Clients int
	Pages   int
	Burst   int
	// ProfileDir, when set, receives CPU profiles of the server over the
	// large POSTs and the throughput step.
	ProfileDir string
	// PhotoFile, when set, is a JPEG the page carries in place of the
	// reference photo: an 800 KB photo makes it the heavy page.
	PhotoFile string
}

func (o LatencyOptions) validate() error {
	switch {
	case o.Orders < 1 || o.BigPosts < 1:
		return errors.New("-latency-orders and -latency-big-posts must be positive")
	case o.Rate <= 0 || o.LoadFor <= 0:
		return errors.New("-latency-rate and -latency-d must be positive")
	case o.Clients < 1 || o.Pages < 1 || o.Burst < 1:
		return errors.New("-latency-clients, -latency-pages and -latency-burst must be positive")
	case o.BigConfig < 1000:
		return errors.New("-latency-big-config must be at least 1000 bytes")
	}
	return nil
}

func latencyFlags(fs *flag.FlagSet) func(platen, postgresURL, profileDir string) LatencyOptions {
	var o LatencyOptions
	fs.IntVar(&o.Orders, "latency-orders", 50, "latency: orders of each family timed one at a time at idle, after 1 unmeasured")
	fs.Float64Var(&o.Rate, "latency-rate", 100, "latency: Family A orders a second of the loaded step")
	fs.DurationVar(&o.LoadFor, "latency-d", 10*time.Second, "latency: how long the loaded step sends orders")
	fs.IntVar(&o.BigPosts, "latency-big-posts", 30, "latency: POSTs of an order with a large template_config, after 3 unmeasured")
	fs.IntVar(&o.BigConfig, "latency-big-config", 1_100_000, "latency: the large template_config's length in bytes")
	fs.IntVar(&o.Clients, "latency-clients", 8, "latency: concurrent clients of the throughput steps")
	fs.IntVar(&o.Pages, "latency-pages", 1000, "latency: orders the clients post until all are ready, for pages a second")
	fs.IntVar(&o.Burst, "latency-burst", 20, "latency: orders the clients post, timed against rsvg-convert on the same pages")
	fs.StringVar(&o.PhotoFile, "latency-photo", "", "latency: a JPEG file the page carries in place of the reference photo (the heavy page: an 800 KB photo)")
	return func(platen, postgresURL, profileDir string) LatencyOptions {
		o.Platen, o.PostgresURL, o.ProfileDir = platen, postgresURL, profileDir
		return o
	}
}

// statusPoll is how often the idle steps read a print's status: the
// figures are as a client polling that often sees them.
const statusPoll = time.Millisecond

// RunLatency runs the latency suite on SQLite, and on PostgreSQL when
// PostgresURL is set, writing a markdown table to out.
func RunLatency(ctx context.Context, o LatencyOptions, out, logw io.Writer) error {
	if err := o.validate(); err != nil {
		return err
	}
	goVersion, err := builtWith(o.Platen)
	if err != nil {
		return err
	}
	photo := reference.Photo
	if o.PhotoFile != "" {
		if photo, err = os.ReadFile(o.PhotoFile); err != nil {
			return fmt.Errorf("-latency-photo: %w", err)
		}
	}
	config := latencyConfigWith(photo)
	fmt.Fprintf(out, "\nplaten-bench latency: %s %s/%s, NumCPU %d; platen built with %s; the reference page with its photo as a data: URL (%d bytes of template_config)\n\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), goVersion, len(config))
	fmt.Fprintln(out, "| database | step | n | p50 ms | p90 ms | p99 ms | max ms |")
	fmt.Fprintln(out, "|---|---|---:|---:|---:|---:|---:|")
	return onEachDatabase(ctx, o.PostgresURL, "latency", logw, func(db database) error {
		return latencyOn(ctx, o, db, config, out, logw)
	})
}

// latencyConfig is the reference page's template_config with its photo
// inside, as a data: URL: no fetch stands between the order and its file.
func latencyConfig() string { return latencyConfigWith(reference.Photo) }

// latencyConfigWith is the reference page's template_config carrying
// jpeg as its photo.
func latencyConfigWith(jpeg []byte) string {
	photo := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(jpeg)
	return url.QueryEscape(string(reference.Document(photo)))
}

// latencyBench is one database's run.
type latencyBench struct {
	LatencyOptions
	e      *env
	out    io.Writer
	logw   io.Writer
	db     string
	client *http.Client
	config string
	// operator is a staff operator's token, to read prints' histories.
	operator string
	prof     *profiler
}

func latencyOn(ctx context.Context, o LatencyOptions, db database, config string, out, logw io.Writer) (err error) {
	fmt.Fprintf(logw, "platen-bench: latency: %s: starting platen serve\n", db.name())
	prof, err := newProfiler(o.ProfileDir)
	if err != nil {
		return err
	}
	// The webhook receiver is on loopback.
	e, err := startEnv(ctx, o.Platen, db, logw, append([]string{"--allow-private-network"}, prof.args()...)...)
	if err != nil {
		return err
	}
	defer stopKeepingErr(e, &err)
	b := &latencyBench{LatencyOptions: o, e: e, out: out, db: db.name(), logw: logw, prof: prof,
		client: &http.Client{Timeout: readyWait}, config: config}
	receiver, err := startHookReceiver()
	if err != nil {
		return err
	}
	defer receiver.close()
	if b.operator, err = e.staffOperator(ctx, o.Platen); err != nil {
		return err
	}
	for _, step := range []func(context.Context, *hookReceiver) error{b.idleFamilyA, b.idleFamilyB, b.bigPosts, b.loaded, b.againstRSVG, b.throughput} {
		if err := step(ctx, receiver); err != nil {
			return e.withLog(err)
		}
	}
	return nil
}

func (b *latencyBench) row(step string, took []time.Duration) {
	slices.Sort(took)
	fmt.Fprintf(b.out, "| %s | %s | %d | %.1f | %.1f | %.1f | %.1f |\n", b.db, step, len(took),
		millis(loadgen.Percentile(took, 50)), millis(loadgen.Percentile(took, 90)),
		millis(loadgen.Percentile(took, 99)), millis(took[len(took)-1]))
}

// pause waits a random time below orderPause before an idle order: the
// queues poll on a fixed period, and real orders arrive at random.
func pause(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(mathrand.N(orderPause)):
		return nil
	}
}

// idleFamilyA times Family A orders one at a time: the POST, and from its
// answer to the first print status that says ready.
//
// The print's history (the database's clock, which is this machine's)
// splits the second into the queue's pickup, from the order's commit to
// the render job's start, and the render job, to the status ready; the
// rest is the order's answer reaching the client and the polls.
func (b *latencyBench) idleFamilyA(ctx context.Context, _ *hookReceiver) error {
	var posts, ready, picked, rendered []time.Duration
	var renders renderCalls
	for i := range b.Orders + 1 {
		if i == 1 { // the first order, a warm-up, is not counted
			if err := renders.start(ctx, b); err != nil {
				return err
			}
		}
		if err := pause(ctx); err != nil {
			return err
		}
		orderID := fmt.Sprintf("%s-lat-a-%d", b.e.run, i)
		body, err := json.Marshal(familyAOrder(b.e.storeID, orderID, b.config, true))
		if err != nil {
			return err
		}
		var answer orderAnswer
		start := time.Now()
		if err := b.e.call(ctx, b.client, http.MethodPost, "/api/v1/orders", body, &answer); err != nil {
			return err
		}
		answered := time.Now()
		if err := b.pollUntil(ctx, orderID, func() (bool, error) {
			status, err := b.e.printStatus(ctx, b.client, orderID+"-1")
			if status == "processingfailed" {
				err = fmt.Errorf("order %s: the render failed", orderID)
			}
			return status == "ready", err
		}); err != nil {
			return err
		}
		seen := time.Since(answered)
		if len(answer.Items) != 1 {
			return fmt.Errorf("order %s: the answer has %d items", orderID, len(answer.Items))
		}
		steps, err := b.history(ctx, answer.Items[0].UID)
		if err != nil {
			return err
		}
		if i > 0 {
			posts, ready = append(posts, answered.Sub(start)), append(ready, seen)
			picked, rendered = append(picked, steps["rendering"].Sub(steps["queued"])), append(rendered, steps["ready"].Sub(steps["rendering"]))
		}
	}
	b.row("A: POST answered", posts)
	b.row("A: POST answer → status ready", ready)
	b.row("A: of which queued → rendering (history)", picked)
	b.row("A: of which rendering → ready (history)", rendered)
	mean, err := renders.mean(ctx, b)
	if err != nil {
		return err
	}
	fmt.Fprintf(b.out, "| %s | A: of which the call to the renderer (metrics) | %d | mean %.1f | | | |\n", b.db, len(rendered), millis(mean))
	return nil
}

// renderCalls reads the serve's render call histogram
// (platen_render_duration_seconds, PDFs that rendered) at the start and
// the end of a step, for the mean call of the step.
type renderCalls struct{ sum, count float64 }

var renderCallMetrics = []string{
	`platen_render_duration_seconds_sum{kind="pdf",outcome="ok"}`,
	`platen_render_duration_seconds_count{kind="pdf",outcome="ok"}`,
}

func (r *renderCalls) start(ctx context.Context, b *latencyBench) error {
	v, err := scrapeGauges(ctx, b.client, b.e.baseURL+"/metrics", renderCallMetrics...)
	if err != nil {
		return err
	}
	r.sum, r.count = v[0], v[1]
	return nil
}

func (r *renderCalls) mean(ctx context.Context, b *latencyBench) (time.Duration, error) {
	v, err := scrapeGauges(ctx, b.client, b.e.baseURL+"/metrics", renderCallMetrics...)
	if err != nil {
		return 0, err
	}
	if v[1] <= r.count {
		return 0, errors.New("no render call counted in the step")
	}
	return time.Duration((v[0] - r.sum) / (v[1] - r.count) * float64(time.Second)), nil
}

// orderAnswer is what the latency steps read of an order's answer.
type orderAnswer struct {
	Items []struct {
		UID string `json:"uid"`
	} `json:"items"`
}

// idleFamilyB times Family B orders one at a time, with a webhook
// endpoint set: from the POST's answer to the first poll that says ready,
// and from the print's ready (its history, the database's clock, which is
// this machine's) to the webhook's arrival.
func (b *latencyBench) idleFamilyB(ctx context.Context, receiver *hookReceiver) error {
	if err := b.setUpFamilyB(ctx, receiver.url); err != nil {
		return err
	}
	var ready, hooks []time.Duration
	for i := range b.Orders + 1 {
		if err := pause(ctx); err != nil {
			return err
		}
		ref := fmt.Sprintf("%s-lat-b-%d", b.e.run, i)
		body, _ := json.Marshal(map[string]any{"external_id": ref, "lines": []any{map[string]any{"design_version_id": latencyDesign, "quantity": 1}}})
		var created struct{ Data shopOrder }
		if err := b.e.call(ctx, b.client, http.MethodPost, "/v1/shop/orders", body, &created); err != nil {
			return err
		}
		answered := time.Now()
		if err := b.pollUntil(ctx, ref, func() (bool, error) {
			var got struct{ Data shopOrder }
			err := b.e.call(ctx, b.client, http.MethodGet, "/v1/shop/orders/"+url.PathEscape(ref), nil, &got)
			return err == nil && got.Data.allReady(), err
		}); err != nil {
			return err
		}
		seen := time.Since(answered)
		printID := created.Data.Lines[0].Prints[0].ID
		readyAt, err := b.readyAt(ctx, printID)
		if err != nil {
			return err
		}
		arrived, err := waitArrival(ctx, receiver, printID)
		if err != nil {
			return err
		}
		if i > 0 {
			ready, hooks = append(ready, seen), append(hooks, arrived.Sub(readyAt))
		}
	}
	b.row("B: POST answer → poll ready", ready)
	b.row("B: ready → webhook arrived", hooks)
	return nil
}

// latencyDesign is the design version of the Family B orders.
const latencyDesign = "latency-reference"

func (b *latencyBench) setUpFamilyB(ctx context.Context, hookURL string) error {
	body, _ := json.Marshal(map[string]string{"design_version_id": latencyDesign, "template_config": b.config})
	if err := b.e.call(ctx, b.client, http.MethodPost, "/api/v1/design-versions", body, nil); err != nil {
		return err
	}
	body, _ = json.Marshal(map[string]string{"url": hookURL})
	return b.e.call(ctx, b.client, http.MethodPut, "/api/v1/stores/"+url.PathEscape(b.e.storeID)+"/webhook", body, nil)
}

// readyAt is when the print's history says it became ready.
func (b *latencyBench) readyAt(ctx context.Context, printID string) (time.Time, error) {
	steps, err := b.history(ctx, printID)
	if err != nil {
		return time.Time{}, err
	}
	return steps["ready"], nil
}

// history is when the print last reached each step of its history
// (queued, rendering, ready …); an error when it has not reached ready.
func (b *latencyBench) history(ctx context.Context, printID string) (map[string]time.Time, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.e.baseURL+"/api/v1/operator/prints/"+url.PathEscape(printID), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+b.operator)
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var p struct {
		History []struct {
			Kind string    `json:"kind"`
			At   time.Time `json:"at"`
		} `json:"history"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		return nil, fmt.Errorf("print %s: %s: %w", printID, resp.Status, err)
	}
	steps := map[string]time.Time{}
	for _, h := range p.History {
		steps[h.Kind] = h.At
	}
	if _, ok := steps["ready"]; !ok {
		return nil, fmt.Errorf("print %s: no ready in its history", printID)
	}
	return steps, nil
}

// waitArrival waits for the print's webhook.
func waitArrival(ctx context.Context, r *hookReceiver, printID string) (time.Time, error) {
	deadline := time.Now().Add(readyWait)
	for time.Now().Before(deadline) {
		arrivals, _ := r.snapshot()
		for _, a := range arrivals {
			if a.printID == printID {
				return a.at, nil
			}
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(statusPoll):
		}
	}
	return time.Time{}, fmt.Errorf("print %s: no webhook after %s", printID, readyWait)
}

// pollUntil calls done every statusPoll until it says so, for readyWait.
func (b *latencyBench) pollUntil(ctx context.Context, what string, done func() (bool, error)) error {
	deadline := time.Now().Add(readyWait)
	for time.Now().Before(deadline) {
		ok, err := done()
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(statusPoll):
		}
	}
	return fmt.Errorf("%s: not ready after %s", what, readyWait)
}

// bigPosts times POSTs of an order whose design carries BigConfig bytes
// (an image as a data: URL of random bytes: the API checks the design's
// numbers, not its images), without print files.
func (b *latencyBench) bigPosts(ctx context.Context, _ *hookReceiver) error {
	config := bigConfig(b.BigConfig)
	var took []time.Duration
	profiled := b.prof.during(ctx, b.db+"-big-post", time.Now(), time.Second, b.logw)
	defer func() { <-profiled }()
	for i := range b.BigPosts + 3 {
		body, err := json.Marshal(familyAOrder(b.e.storeID, fmt.Sprintf("%s-big-%d", b.e.run, i), config, false))
		if err != nil {
			return err
		}
		start := time.Now()
		if err := b.e.call(ctx, b.client, http.MethodPost, "/api/v1/orders", body, nil); err != nil {
			return err
		}
		if i >= 3 {
			took = append(took, time.Since(start))
		}
	}
	b.row(fmt.Sprintf("A: POST of a %.1f MB template_config", float64(len(config))/1e6), took)
	return nil
}

// bigConfig is a URL-encoded design document of about n bytes.
func bigConfig(n int) string {
	encode := func(raw []byte) string {
		doc, _ := json.Marshal(map[string]any{"width": 100, "height": 100, "layers": []any{map[string]any{
			"type": "image", "x": 0, "y": 0, "width": 100, "height": 100,
			"src": "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(raw)}}})
		return url.QueryEscape(string(doc))
	}
	raw := make([]byte, n*3/4)
	_, _ = rand.Read(raw)
	// Escaping base64's + and / makes it longer: shrink the image to fit.
	first := encode(raw)
	return encode(raw[:len(raw)*n/len(first)])
}

// loaded sends Family A orders at Rate for LoadFor, open loop, then reads
// each print's ready time from its history: from the POST's answer to
// ready, with no polling load on the server.
func (b *latencyBench) loaded(ctx context.Context, _ *hookReceiver) error {
	type sent struct {
		itemUID  string
		answered time.Time
	}
	var (
		mu     sync.Mutex
		orders []sent
		wg     sync.WaitGroup
		failed error
	)
	client := &http.Client{Transport: loadgen.NewTransport(maxOrdersInFlight), Timeout: loadgen.DefaultTimeout}
	defer client.CloseIdleConnections()
	interval := time.Duration(float64(time.Second) / b.Rate)
	start := time.Now()
	for i := 0; ; i++ {
		at := start.Add(time.Duration(i) * interval)
		if !at.Before(start.Add(b.LoadFor)) || sleepUntil(ctx, at) != nil {
			break
		}
		body, err := json.Marshal(familyAOrder(b.e.storeID, fmt.Sprintf("%s-load-%d", b.e.run, i), b.config, true))
		if err != nil {
			return err
		}
		wg.Go(func() {
			var answer orderAnswer
			err := b.e.call(ctx, client, http.MethodPost, "/api/v1/orders", body, &answer)
			answered := time.Now()
			mu.Lock()
			defer mu.Unlock()
			if err != nil || len(answer.Items) != 1 {
				failed = errors.Join(failed, fmt.Errorf("order POST: %v", err))
				return
			}
			orders = append(orders, sent{answer.Items[0].UID, answered})
		})
	}
	wg.Wait()
	if failed != nil {
		return failed
	}
	var took []time.Duration
	for _, o := range orders {
		var readyAt time.Time
		if err := b.pollUntil(ctx, o.itemUID, func() (bool, error) {
			var err error
			readyAt, err = b.readyAt(ctx, o.itemUID)
			return err == nil, nil
		}); err != nil {
			return err
		}
		took = append(took, readyAt.Sub(o.answered))
	}
	b.row(fmt.Sprintf("A at %.0f orders/s: POST answer → ready", b.Rate), took)
	return nil
}

// familyAOrder is a one-item Family A order of the design config.
func familyAOrder(storeID, orderID, config string, printFiles bool) map[string]any {
	return map[string]any{
		"store_id":           storeID,
		"ecommerce_order_id": orderID,
		"create_print_files": printFiles,
		"items": []map[string]any{{
			"ecommerce_order_item_id": orderID + "-1",
			"ecommerce_variant_id":    "v1",
			"quantity":                1,
			"thumbnails":              []string{"https://example.com/t.png"},
			"template_config":         config,
		}},
	}
}
