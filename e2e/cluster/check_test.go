package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/queue"
)

// printState is a print as the API shows it after the run, with the
// files a ready one links.
type printState struct {
	family  string // "A", "B" or "batch"
	subject string // order item uid (A), print id (B) or batch uid
	prefix  string // its files' key prefix in the bucket
	status  string
	errText string
	files   []fileRef
}

type fileRef struct {
	url    string
	sha256 string
	size   int64
}

// ready says the print ended ready.
func (p printState) ready() bool { return p.status == "ready" || p.status == "Ready" }

// settled says the print has ended, one way or the other.
func (p printState) settled() bool {
	switch p.status {
	case "ready", "processingfailed", "failed", "Ready", "Failed":
		return true
	}
	return false
}

// orderView is what the checks read of a Family A order.
type orderView struct {
	UID   string `json:"uid"`
	Items []struct {
		UID   string `json:"uid"`
		ID    string `json:"ecommerce_order_item_id"`
		Print struct {
			Status string  `json:"status"`
			URL    *string `json:"url"`
			Error  *string `json:"error"`
			Size   *int64  `json:"size"`
			SHA256 *string `json:"sha256"`
		} `json:"print"`
	} `json:"items"`
}

// shopView is what the checks read of a Family B order.
type shopView struct {
	Data struct {
		Ref        string `json:"reference_number"`
		ExternalID string `json:"external_id"`
		Lines      []struct {
			Prints []struct {
				ID     string  `json:"id"`
				Status string  `json:"status"`
				Error  *string `json:"error"`
				Files  []struct {
					URL    string `json:"url"`
					Size   int64  `json:"size"`
					SHA256 string `json:"sha256"`
				} `json:"files"`
			} `json:"prints"`
		} `json:"lines"`
	} `json:"data"`
}

// prints reads every print of the ledger's live orders through the API.
func (ld *load) prints(ctx context.Context) ([]printState, error) {
	var out []printState
	for _, o := range ld.l.orders {
		if o.deleted {
			continue
		}
		ps, err := ld.orderPrints(ctx, o)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	for _, s := range ld.l.shop {
		ps, err := ld.shopPrints(ctx, s)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	for _, uid := range ld.l.batches {
		p, err := ld.batchPrint(ctx, uid)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// batchPrint reads a batch as a print: its status and its sheets' files.
func (ld *load) batchPrint(ctx context.Context, uid string) (printState, error) {
	ans, _, err := ld.api.send(ctx, "GET", "/api/v1/batch-orders/"+uid, nil, "")
	var v struct {
		Status string  `json:"status"`
		Error  *string `json:"error"`
		Files  []struct {
			URL    *string `json:"url"`
			Size   *int64  `json:"size"`
			SHA256 *string `json:"sha256"`
		} `json:"files"`
	}
	if err != nil || ans.status != http.StatusOK || ans.decode(&v) != nil {
		return printState{}, fmt.Errorf("batch %s: %v %d %s", uid, err, ans.status, ans.body)
	}
	p := printState{family: "batch", subject: uid, prefix: "batches/" + uid + "/", status: v.Status}
	if v.Error != nil {
		p.errText = *v.Error
	}
	for _, f := range v.Files {
		if f.URL != nil && f.Size != nil && f.SHA256 != nil {
			p.files = append(p.files, fileRef{url: *f.URL, sha256: *f.SHA256, size: *f.Size})
		}
	}
	return p, nil
}

func (ld *load) orderPrints(ctx context.Context, o *orderRec) ([]printState, error) {
	ans, _, err := ld.api.send(ctx, "GET", "/api/v1/orders/"+o.uid, nil, "")
	var v orderView
	if err != nil || ans.status != http.StatusOK || ans.decode(&v) != nil {
		return nil, fmt.Errorf("order %s (%s): %v %d %s", o.ecomID, o.uid, err, ans.status, ans.body)
	}
	var out []printState
	for _, it := range v.Items {
		p := printState{family: "A", subject: it.UID, prefix: "orders/" + v.UID + "/" + it.UID + "-", status: it.Print.Status}
		if it.Print.Error != nil {
			p.errText = *it.Print.Error
		}
		if it.Print.URL != nil && it.Print.SHA256 != nil && it.Print.Size != nil {
			p.files = []fileRef{{url: *it.Print.URL, sha256: *it.Print.SHA256, size: *it.Print.Size}}
		}
		out = append(out, p)
	}
	return out, nil
}

func (ld *load) shopPrints(ctx context.Context, s *shopRec) ([]printState, error) {
	ans, _, err := ld.api.send(ctx, "GET", "/v1/shop/orders/"+url.PathEscape(s.ref), nil, "")
	var v shopView
	if err != nil || ans.status != http.StatusOK || ans.decode(&v) != nil {
		return nil, fmt.Errorf("shop order %s (%s): %v %d %s", s.externalID, s.ref, err, ans.status, ans.body)
	}
	var out []printState
	for _, l := range v.Data.Lines {
		for _, pr := range l.Prints {
			p := printState{family: "B", subject: pr.ID, prefix: "shop/" + v.Data.Ref + "/" + pr.ID + "-", status: pr.Status}
			if pr.Error != nil {
				p.errText = *pr.Error
			}
			for _, f := range pr.Files {
				p.files = append(p.files, fileRef{url: f.URL, sha256: f.SHA256, size: f.Size})
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// waitSettled polls until every print has ended and the queues hold
// nothing left to do, or within passes; it returns the prints as last
// read.
func (c *cluster) waitSettled(t *testing.T, ld *load, within time.Duration) []printState {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ps, err := ld.prints(context.Background())
		if err != nil {
			t.Fatalf("read prints: %v", err)
		}
		open := 0
		for _, p := range ps {
			if !p.settled() {
				open++
			}
		}
		pending := 0
		for _, job := range c.jobs(t) {
			if !queue.Finished(job) {
				pending++
			}
		}
		missing := len(c.missingEvents(ps))
		if open == 0 && pending == 0 && missing == 0 {
			return ps
		}
		if time.Now().After(deadline) {
			t.Logf("not settled after %s: %d prints open, %d jobs pending, %d ready events missing", within, open, pending, missing)
			return ps
		}
		time.Sleep(time.Second)
	}
}

// row is one invariant's line of the table.
type row struct {
	name   string
	ok     bool
	detail string
}

// transientWords mark a failure reason that a fault of the cluster caused
// and a retry could have got past: a print must never fail for those.
var transientWords = []string{
	"interrupted", "unavailable", "connection", "timeout", "deadline", "reset", "refused",
	"EOF", "database", "storage", "s3", "S3", "503", "no such host", "broken pipe", "context canceled",
}

// checkCreates: every acknowledged create exists once, every delete is
// gone, no answer broke the API's rules (replays included), and nothing
// exists that the shop was not told of.
func (c *cluster) checkCreates(t *testing.T, ld *load) row {
	t.Helper()
	var problems []string
	problems = append(problems, ld.l.anomalies...)
	live, deleted := 0, 0
	for _, o := range ld.l.orders {
		n := c.count(t, "SELECT count(*) FROM orders WHERE ecommerce_order_id = $1", o.ecomID)
		switch {
		case o.deleted && n != 0:
			problems = append(problems, fmt.Sprintf("deleted order %s still stored (%d)", o.ecomID, n))
		case !o.deleted && n != 1:
			problems = append(problems, fmt.Sprintf("order %s stored %d times", o.ecomID, n))
		}
		if o.deleted {
			deleted++
		} else {
			live++
		}
	}
	for _, s := range ld.l.shop {
		if n := c.count(t, "SELECT count(*) FROM shop_orders WHERE external_id = $1", s.externalID); n != 1 {
			problems = append(problems, fmt.Sprintf("shop order %s stored %d times", s.externalID, n))
		}
	}
	if n := c.count(t, "SELECT count(*) FROM orders"); n != live {
		problems = append(problems, fmt.Sprintf("%d orders stored, %d acknowledged and not deleted", n, live))
	}
	if n := c.count(t, "SELECT count(*) FROM shop_orders"); n != len(ld.l.shop) {
		problems = append(problems, fmt.Sprintf("%d shop orders stored, %d acknowledged", n, len(ld.l.shop)))
	}
	if n := c.count(t, "SELECT count(*) FROM batch_orders"); n != len(ld.l.batches) {
		problems = append(problems, fmt.Sprintf("%d batches stored, %d acknowledged", n, len(ld.l.batches)))
	}
	return row{"every acknowledged create exists exactly once", len(problems) == 0,
		summary(fmt.Sprintf("%d Family A orders (%d deleted), %d Family B orders, %d batches; %d requests needed a retry (%d creates answered by a replay of what their lost first attempt made), the slowest answered after %s: %s; ops %v",
			len(ld.l.orders), deleted, len(ld.l.shop), len(ld.l.batches), ld.l.retries, ld.l.recovered, ld.l.slowest.Round(time.Millisecond), ld.l.slowestOp, ld.l.ops), problems)}
}

// checkPrints: every print ended ready, or failed for a reason of its
// own, never a transient one.
func checkPrints(ps []printState) row {
	var problems []string
	ready, failed := 0, 0
	for _, p := range ps {
		switch {
		case p.ready():
			ready++
		case p.settled():
			failed++
			for _, w := range transientWords {
				if strings.Contains(p.errText, w) {
					problems = append(problems, fmt.Sprintf("%s print %s failed for a transient reason: %s", p.family, p.subject, p.errText))
					break
				}
			}
		default:
			problems = append(problems, fmt.Sprintf("%s print %s is still %s", p.family, p.subject, p.status))
		}
	}
	return row{"every print ready, or failed for a non-transient reason", len(problems) == 0,
		summary(fmt.Sprintf("%d prints: %d ready, %d failed", len(ps), ready, failed), problems)}
}

// eventKey names an event: its kind, its print and the files it
// announces. One event, one delivery id.
type eventKey struct{ event, subject, digest string }

// readyEvent is the event a ready print announces itself with.
func readyEvent(p printState) eventKey {
	var digests []string
	for _, f := range p.files {
		digests = append(digests, f.sha256)
	}
	ev := map[string]string{"A": "order_item.print_file.ready", "B": "print_files.ready", "batch": "batch_order.ready"}[p.family]
	return eventKey{ev, p.subject, strings.Join(digests, ",")}
}

// accepted is every event the receiver accepted, with its delivery ids.
func (c *cluster) accepted() map[eventKey][]string {
	ds, _, _, _ := c.hooks.snapshot()
	byEvent := map[eventKey][]string{}
	for _, d := range ds {
		k := eventKey{d.Event, d.Body.subject(), d.Body.digest()}
		byEvent[k] = append(byEvent[k], d.ID)
	}
	for k := range byEvent {
		sort.Strings(byEvent[k])
	}
	return byEvent
}

// missingEvents are the ready prints whose ready event (for the files they
// hold now) the receiver has not accepted.
func (c *cluster) missingEvents(ps []printState) []string {
	ds, _, _, _ := c.hooks.snapshot()
	got := map[eventKey]bool{}
	for _, d := range ds {
		if d.Accepted {
			got[eventKey{d.Event, d.Body.subject(), d.Body.digest()}] = true
		}
	}
	var missing []string
	for _, p := range ps {
		if p.ready() && !got[readyEvent(p)] {
			missing = append(missing, fmt.Sprintf("%s print %s: no %s for %s", p.family, p.subject, readyEvent(p).event, readyEvent(p).digest))
		}
	}
	return missing
}

// checkEvents: every ready print's event was accepted, under one delivery
// id, and every attempt's signatures verified.
func (c *cluster) checkEvents(ps []printState) row {
	problems := c.missingEvents(ps)
	byEvent := c.accepted()
	for k, ids := range byEvent {
		if len(ids) > 1 {
			problems = append(problems, fmt.Sprintf("%s of %s came under %d delivery ids %v", k.event, k.subject, len(ids), ids))
		}
	}
	ds, attempts, refused, badSig := c.hooks.snapshot()
	if badSig > 0 {
		problems = append(problems, fmt.Sprintf("%d attempts with a signature that did not verify", badSig))
	}
	return row{"every ready event delivered, once per delivery id, signed", len(problems) == 0,
		summary(fmt.Sprintf("%d deliveries, %d attempts (%d refused on purpose), %d bad signatures", len(ds), attempts, refused, badSig), problems)}
}

// checkFiles: every file a ready print links downloads with its SHA-256,
// and every object in the bucket is a file of a ready print.
func (c *cluster) checkFiles(t *testing.T, ps []printState) row {
	t.Helper()
	var problems []string
	want := map[string]map[string]bool{} // key prefix → the digests of its files now
	downloads := 0
	for _, p := range ps {
		if !p.ready() {
			continue
		}
		want[p.prefix] = map[string]bool{}
		if len(p.files) == 0 {
			problems = append(problems, fmt.Sprintf("ready %s print %s links no file", p.family, p.subject))
		}
		for _, f := range p.files {
			want[p.prefix][f.sha256] = true
			downloads++
			if got, n, err := download(f.url); err != nil || got != f.sha256 || n != f.size {
				problems = append(problems, fmt.Sprintf("%s print %s: download %s: sha256 %s size %d, want %s %d (%v)", p.family, p.subject, f.url, got, n, f.sha256, f.size, err))
			}
		}
	}
	keys, err := c.s3Client.list(context.Background())
	if err != nil {
		t.Fatalf("list the bucket: %v", err)
	}
	for _, key := range keys {
		if !c.referenced(key, want) {
			problems = append(problems, "unreferenced object "+key)
		}
	}
	return row{"every linked file downloads with its sha256; no unreferenced object", len(problems) == 0,
		summary(fmt.Sprintf("%d downloads checked, %d objects in the bucket", downloads, len(keys)), problems)}
}

// referenced says key is a file of a ready print: under its prefix, with
// the bytes of one of its files now.
func (c *cluster) referenced(key string, want map[string]map[string]bool) bool {
	for prefix, digests := range want {
		if strings.HasPrefix(key, prefix) {
			sum, err := c.s3Client.sha256Of(context.Background(), key)
			return err == nil && digests[sum]
		}
	}
	return false
}

// download follows a link to its bytes and returns their SHA-256 and size.
func download(link string) (string, int64, error) {
	resp, err := http.Get(link)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", 0, fmt.Errorf("status %d", resp.StatusCode)
	}
	h := sha256.New()
	n, err := io.Copy(h, resp.Body)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// checkQueues: nothing left queued, running or scheduled, and no print
// processing.
func (c *cluster) checkQueues(t *testing.T, ps []printState) row {
	t.Helper()
	var problems []string
	counts := map[string]int{} // "kind state" → jobs
	var unfinished []string
	for _, job := range c.jobs(t) {
		key := job.Kind + " " + string(job.State)
		if counts[key]++; counts[key] == 1 && !queue.Finished(job) {
			unfinished = append(unfinished, key)
		}
	}
	var states []string
	for _, key := range slices.Sorted(maps.Keys(counts)) {
		states = append(states, fmt.Sprintf("%s %d", key, counts[key]))
	}
	slices.Sort(unfinished)
	for _, key := range unfinished {
		kind, state, _ := strings.Cut(key, " ")
		problems = append(problems, fmt.Sprintf("%d %s jobs still %s", counts[key], kind, state))
	}
	for _, p := range ps {
		if p.status == "processing" {
			problems = append(problems, fmt.Sprintf("%s print %s still processing", p.family, p.subject))
		}
	}
	return row{"queues drained, nothing stuck processing", len(problems) == 0, summary(strings.Join(states, "; "), problems)}
}

// summary is a row's detail: what was counted, then the first problems.
func summary(counted string, problems []string) string {
	const shown = 8
	if len(problems) > shown {
		problems = append(problems[:shown:shown], fmt.Sprintf("… and %d more", len(problems)-shown))
	}
	if len(problems) == 0 {
		return counted
	}
	return counted + "\n      " + strings.Join(problems, "\n      ")
}

// printTable prints the rows, and the faults with their times, to stdout
// (so that make test-cluster shows it) and fails the test on a failed row.
func printTable(t *testing.T, fs []*fault, rows []row, wall time.Duration) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "\nCluster run: 2 serve, 2 render, PostgreSQL, SeaweedFS; %s\n\n", wall.Round(time.Second))
	fmt.Fprintf(&b, "%-3s %-58s %s\n", "#", "fault (in this order)", "took")
	for i, f := range fs {
		fmt.Fprintf(&b, "%-3d %-58s %s\n", i+1, f.name, f.took.Round(100*time.Millisecond))
	}
	fmt.Fprintf(&b, "\n%-70s %-6s %s\n", "invariant", "result", "detail")
	for _, r := range rows {
		res := "PASS"
		if !r.ok {
			res = "FAIL"
		}
		fmt.Fprintf(&b, "%-70s %-6s %s\n", r.name, res, r.detail)
	}
	fmt.Println(b.String())
	for _, r := range rows {
		if !r.ok {
			t.Errorf("invariant failed: %s", r.name)
		}
	}
}
