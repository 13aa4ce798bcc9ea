package bench

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/platen-print/platen/bench/loadgen"
	"github.com/platen-print/platen/internal/procstat"
)

// HostileOptions configures the hostile suite (RunHostile): each attack of
// the hostile-input suite, run against platen serve for Duration while
// another team's reference orders go from POST to ready.
type HostileOptions struct {
	Platen      string
	PostgresURL string
	Duration    time.Duration
	Attacks     []string
	Photo       []byte
}

func (o HostileOptions) validate() error {
	if o.Duration <= 0 {
		return errors.New("-hostile-d must be positive")
	}
	for _, name := range o.Attacks {
		if findAttack(name) == nil {
			return fmt.Errorf("unknown attack %q (known: %s)", name, strings.Join(attackNames(), ", "))
		}
	}
	return nil
}

func hostileFlags(fs *flag.FlagSet) func(platen, postgresURL string) HostileOptions {
	var o HostileOptions
	var attacks string
	fs.DurationVar(&o.Duration, "hostile-d", 10*time.Second, "hostile: how long each attack runs")
	fs.StringVar(&attacks, "attacks", strings.Join(attackNames(), ","), "hostile: comma-separated attacks")
	return func(platen, postgresURL string) HostileOptions {
		o.Platen, o.PostgresURL, o.Attacks = platen, postgresURL, commaList(attacks)
		return o
	}
}

// attack is one way a tenant, or anyone, tried to take the service away
// from everyone: run sends it until ctx ends, counting the answers.
type attack struct {
	name, description string
	run               func(ctx context.Context, h *hostileRun, answers *statusCounts) error
}

var attacks = []attack{
	{"spin", "designs that spun the drawing library for ever (stroke_width, rotation 1e308), 4 senders", attackDesign(spinDesign)},
	{"panic", "designs that panicked the drawing library (every number ±1e308), 4 senders", attackDesign(panicDesign)},
	{"huge-image", "orders of 50 layers drawing one 100-megapixel PNG of 100 KB, one every 200 ms", attackHugeImage},
	{"unauth-8mb", "8 MB order bodies without a token, 8 senders", attackUnauthenticated},
	{"backlog", "a 500-line shop order of a slow design (about 1 s a render)", attackBacklog},
	{"nul", "NUL inside properties and note, 4 senders", attackDesign(nulOrder)},
	{"font-bomb", "an operator's uploads of a 150 KB TTF whose A nests 4 composite glyphs 8 deep, 2 senders", attackFontBomb},
	{"design-version-body", "8 MB design versions whose template_config holds 4,000,000 zeros, 10 senders", attackDesignVersionBody},
	{"preview-flood", "the attacking team's operator opening the panel previews of 8 prints that are slow to preview (about 15 s each), 8 senders", attackPreviewFlood},
	{"signin-flood", "40 sign-ins at once with unknown e-mails, each from its own address, and a blocked staff e-mail in other spellings", attackSignIn},
}

func findAttack(name string) *attack {
	for i := range attacks {
		if attacks[i].name == name {
			return &attacks[i]
		}
	}
	return nil
}

func attackNames() []string {
	names := make([]string, len(attacks))
	for i, a := range attacks {
		names[i] = a.name
	}
	return names
}

// hostileRun is one server under attack: the attacker is the env's own
// team; victim, a second team of the same server.
type hostileRun struct {
	e, victim *env
	photos    *photoServer
	hugePNG   string // its URL
	client    *http.Client
}

// RunHostile runs every attack on each database and prints one table row
// per attack: what the attacker got, and what everyone else paid.
func RunHostile(ctx context.Context, o HostileOptions, out, logw io.Writer) error {
	fmt.Fprintf(out, "\n## Hostile input: each attack for %s, another team's reference order meanwhile\n\n", o.Duration)
	fmt.Fprintln(out, "| database | attack | attacker's answers | other team's orders | POST to ready p50 ms | max ms | /healthz p50 ms | p99 ms | serve peak RSS MB | render processes peak RSS MB |")
	fmt.Fprintln(out, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
	databases := []database{sqliteDatabase{}}
	if o.PostgresURL != "" {
		databases = append(databases, postgresDatabase{url: o.PostgresURL})
	}
	var failed []error
	for _, db := range databases {
		for _, name := range o.Attacks {
			if err := runAttack(ctx, o, db, findAttack(name), out, logw); err != nil {
				failed = append(failed, fmt.Errorf("%s: %s: %w", db.name(), name, err))
			}
		}
	}
	return errors.Join(failed...)
}

// runAttack starts a fresh server, runs a against it for o.Duration, and
// measures the other team's orders, /healthz and memory meanwhile.
func runAttack(ctx context.Context, o HostileOptions, db database, a *attack, out, logw io.Writer) (err error) {
	fmt.Fprintf(logw, "platen-bench: %s: attack %s: %s\n", db.name(), a.name, a.description)
	photos, err := startPhotoServer(o.Photo)
	if err != nil {
		return err
	}
	defer photos.close()
	huge, closeHuge, err := serveHugePNG()
	if err != nil {
		return err
	}
	defer closeHuge()
	e, err := startEnv(ctx, o.Platen, db, logw, "--allow-private-network")
	if err != nil {
		return err
	}
	defer stopKeepingErr(e, &err)
	victim, err := e.secondTeam(ctx, o.Platen, "victim", "victim-shop")
	if err != nil {
		return err
	}
	h := &hostileRun{e: e, victim: victim, photos: photos, hugePNG: huge, client: &http.Client{Timeout: readyWait}}
	attackCtx, stop := context.WithTimeout(ctx, o.Duration)
	defer stop()
	var answers statusCounts
	mem := watchMemory(attackCtx, e.cmd.Process.Pid)
	probes := probeHealthz(attackCtx, e.baseURL)
	attackDone := make(chan error, 1)
	go func() { attackDone <- a.run(attackCtx, h, &answers) }()
	ready, err := h.victimOrders(attackCtx)
	stop()
	if aerr := <-attackDone; aerr != nil && !errors.Is(aerr, context.Canceled) && !errors.Is(aerr, context.DeadlineExceeded) {
		err = errors.Join(err, aerr)
	}
	if err != nil {
		return e.withLog(err)
	}
	health := <-probes
	serve, renders := mem()
	slices.Sort(ready)
	slices.Sort(health)
	fmt.Fprintf(out, "| %s | %s | %s | %d | %.0f | %.0f | %.1f | %.1f | %.0f | %.0f |\n", db.name(), a.name, answers.String(), len(ready),
		millis(loadgen.Percentile(ready, 50)), millis(ready[len(ready)-1]),
		millis(loadgen.Percentile(health, 50)), millis(loadgen.Percentile(health, 99)), mb(serve), mb(renders))
	return nil
}

// victimOrders posts the other team's reference orders one after another,
// with a random pause between, until ctx ends; it returns each one's time
// from POST to ready.
func (h *hostileRun) victimOrders(ctx context.Context) ([]time.Duration, error) {
	var took []time.Duration
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			if len(took) == 0 {
				return nil, errors.New("no order of the other team was timed")
			}
			return took, nil
		case <-time.After(rand.N(orderPause)):
		}
		_, ready, err := h.victim.postToReady(context.WithoutCancel(ctx), h.client, fmt.Sprintf("victim-%d", i), h.photos.next())
		if err != nil {
			return nil, fmt.Errorf("the other team's order: %w", err)
		}
		took = append(took, ready)
	}
}

// secondTeam bootstraps another team and store on e's database, while e
// serves, and returns e as that team sees it.
func (e *env) secondTeam(ctx context.Context, platen, team, store string) (*env, error) {
	raw, err := e.admin(ctx, platen, "bootstrap", "--team", team, "--store", store)
	if err != nil {
		return nil, err
	}
	var b bootstrapOutput
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, err
	}
	other := *e
	other.token, other.storeID, other.teamID = b.Token, b.StoreID, b.TeamID
	return &other, nil
}

// statusCounts counts the attacker's answers by status code.
type statusCounts struct {
	mu     sync.Mutex
	counts map[int]int
}

func (s *statusCounts) add(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.counts == nil {
		s.counts = map[int]int{}
	}
	s.counts[code]++
}

func (s *statusCounts) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	codes := make([]int, 0, len(s.counts))
	for c := range s.counts {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%d×%d", s.counts[c], c)
	}
	return strings.Join(parts, ", ")
}

// send posts body to path with token ("" for none) and counts the answer.
func (h *hostileRun) send(ctx context.Context, path, token string, body []byte, answers *statusCounts) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.e.baseURL+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	answers.add(resp.StatusCode)
	return nil
}

// senders runs n loops of send until ctx ends.
func senders(ctx context.Context, n int, send func(i int) error) error {
	var wg sync.WaitGroup
	errs := make([]error, n)
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				if err := send(w*1_000_000 + i); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// The documents of the first attacks, as an order body of the attacker.
const (
	spinDesign  = `{"width":100,"height":100,"layers":[{"type":"rect","x":10,"y":10,"width":50,"height":50,"fill":"#000","stroke":"#f00","stroke_width":1e308,"rotation":1e308}]}`
	panicDesign = `{"width":100,"height":100,"layers":[{"type":"rect","x":-1e308,"y":1e308,"width":1e308,"height":1e308,"stroke_width":1e308,"radius":1e308,"rotation":1e308,"fill":"#000"}]}`
	nulOrder    = "nul"
)

func attackDesign(doc string) func(context.Context, *hostileRun, *statusCounts) error {
	return func(ctx context.Context, h *hostileRun, answers *statusCounts) error {
		return senders(ctx, 4, func(i int) error {
			body := attackOrder(h.e.storeID, fmt.Sprintf("a-%d", i), doc)
			return h.send(ctx, "/api/v1/orders", h.e.token, body, answers)
		})
	}
}

// attackOrder is an order of one item of design doc; the "nul" design is a
// plain card whose properties and note hold NUL characters.
func attackOrder(storeID, id, doc string) []byte {
	item := map[string]any{
		"ecommerce_order_item_id": id + "-1", "ecommerce_variant_id": "v", "quantity": 1,
		"thumbnails": []string{"https://example.com/t.png"}, "template_config": url.QueryEscape(doc),
	}
	o := map[string]any{"store_id": storeID, "ecommerce_order_id": id, "create_print_files": true, "items": []any{item}}
	if doc == nulOrder {
		item["template_config"] = url.QueryEscape(`{"width":10,"height":10,"layers":[]}`)
		item["properties"] = map[string]any{"a\u0000": []string{"x\u0000"}}
		o["note"] = "a\u0000b"
	}
	body, _ := json.Marshal(o)
	return body
}

func attackHugeImage(ctx context.Context, h *hostileRun, answers *statusCounts) error {
	layers := make([]string, 50)
	for i := range layers {
		layers[i] = fmt.Sprintf(`{"type":"image","src":%q,"x":%d,"y":5,"width":40,"height":40}`, h.hugePNG, i%50)
	}
	doc := `{"width":100,"height":60,"layers":[` + strings.Join(layers, ",") + `]}`
	for i := 0; ctx.Err() == nil; i++ {
		if err := h.send(ctx, "/api/v1/orders", h.e.token, attackOrder(h.e.storeID, fmt.Sprintf("huge-%d", i), doc), answers); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
	return ctx.Err()
}

// attackUnauthenticated sends 8 MB bodies of empty items with no token.
func attackUnauthenticated(ctx context.Context, h *hostileRun, answers *statusCounts) error {
	body := make([]byte, 0, 8<<20)
	body = append(body, `{"items":[`...)
	for len(body) < 8<<20-16 {
		body = append(body, "{},"...)
	}
	body = append(body, "{}]}"...)
	return senders(ctx, 8, func(int) error { return h.send(ctx, "/api/v1/orders", "", body, answers) })
}

// slowDesign is a legitimate design that takes about a second to render.
func slowDesign() string {
	text, _ := json.Marshal(strings.Repeat("Heavy text wraps and wraps ", 300))
	list := make([]string, 12)
	for i := range list {
		list[i] = fmt.Sprintf(`{"type":"text","text":%s,"size":6,"x":2,"y":%d,"width":290,"rotation":%d}`, text, i*30, i*7)
	}
	return `{"width":297,"height":420,"layers":[` + strings.Join(list, ",") + `]}`
}

func attackBacklog(ctx context.Context, h *hostileRun, answers *statusCounts) error {
	version, _ := json.Marshal(map[string]string{"design_version_id": "slow-poster", "template_config": url.QueryEscape(slowDesign())})
	if err := h.send(ctx, "/api/v1/design-versions", h.e.token, version, answers); err != nil {
		return err
	}
	lines := make([]map[string]any, 500)
	for i := range lines {
		lines[i] = map[string]any{"design_version_id": "slow-poster", "quantity": 1}
	}
	order, _ := json.Marshal(map[string]any{"external_id": "BULK-1", "lines": lines})
	if err := h.send(ctx, "/v1/shop/orders", h.e.token, order, answers); err != nil {
		return err
	}
	<-ctx.Done()
	return ctx.Err()
}

// serveHugePNG serves a 10,000 × 10,000 grey PNG (100 megapixels) of about
// 100 KB on loopback.
func serveHugePNG() (string, func(), error) {
	const side = 10_000
	var idat bytes.Buffer
	zw := zlib.NewWriter(&idat)
	row := make([]byte, side+1)
	for range side {
		_, _ = zw.Write(row)
	}
	_ = zw.Close()
	var png bytes.Buffer
	png.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(kind string, data []byte) {
		_ = binary.Write(&png, binary.BigEndian, uint32(len(data))) //nolint:gosec // small
		png.WriteString(kind)
		png.Write(data)
		_ = binary.Write(&png, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(kind), data...)))
	}
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, side), side)
	chunk("IHDR", append(ihdr, 8, 0, 0, 0, 0))
	chunk("IDAT", idat.Bytes())
	chunk("IEND", nil)
	data := png.Bytes()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(data)
	})}
	go func() { _ = srv.Serve(lis) }()
	return "http://" + lis.Addr().String() + "/huge.png", func() { _ = srv.Close() }, nil
}

// probeHealthz times GET /healthz every 10 ms until ctx ends, then sends
// the times.
func probeHealthz(ctx context.Context, base string) <-chan []time.Duration {
	out := make(chan []time.Duration, 1)
	go func() {
		client := &http.Client{Timeout: 5 * time.Second}
		var took []time.Duration
		for ctx.Err() == nil {
			began := time.Now()
			resp, err := client.Get(base + "/healthz")
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				took = append(took, time.Since(began))
			} else if ctx.Err() == nil {
				took = append(took, 5*time.Second) // a probe that failed counts as the worst
			}
			time.Sleep(10 * time.Millisecond)
		}
		if len(took) == 0 {
			took = []time.Duration{0}
		}
		out <- took
	}()
	return out
}

// watchMemory reads the peak resident memory (VmHWM) of serve (pid) and
// of each of its render processes every 50 ms until ctx ends; the function
// it returns gives the highest once ctx has ended.
func watchMemory(ctx context.Context, pid int) func() (serve, renders int64) {
	var serve, renders int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if rss, err := procstat.PeakRSS(pid); err == nil {
				serve = max(serve, rss)
			}
			for _, child := range procstat.Children(pid) {
				if rss, err := procstat.PeakRSS(child); err == nil {
					renders = max(renders, rss)
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	return func() (int64, int64) {
		<-done
		return serve, renders
	}
}
