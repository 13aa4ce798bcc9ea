package panel_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
)

// slowPreview is a design whose PDF is a few vector ellipses (tens of
// milliseconds) but whose preview blends ellipses the size of a 2.8 m page
// into a 16-megapixel PNG, one after another: seconds each.
func slowPreview(ellipses int) string {
	list := make([]string, ellipses)
	for i := range list {
		list[i] = fmt.Sprintf(`{"type":"ellipse","x":%d,"y":0,"width":2800,"height":2800,"rotation":%d,"opacity":0.5,"fill":"#ff0000"}`, i, i*5)
	}
	return `{"width":2800,"height":2800,"layers":[` + strings.Join(list, ",") + `]}`
}

// smallCard is a 50 × 50 mm design that renders in a moment.
const smallCard = `{"width":50,"height":50,"layers":[{"type":"rect","x":5,"y":5,"width":40,"height":40,"fill":"#00ff00"}]}`

// previewAnswer is what a preview request got: the redirect to the PNG,
// or the placeholder's reason.
type previewAnswer struct {
	status  int
	reason  string // X-Preview of a placeholder
	elapsed time.Duration
	err     error
}

// askPreviews requests the preview of each print times times at once,
// as a page's lazy images do, until ctx ends.
func askPreviews(ctx context.Context, br *browser, ids []string, times int) <-chan previewAnswer {
	answers := make(chan previewAnswer, len(ids)*times)
	var wg sync.WaitGroup
	for _, id := range ids {
		for range times {
			wg.Go(func() { answers <- askPreview(ctx, br, id) })
		}
	}
	go func() { wg.Wait(); close(answers) }()
	return answers
}

func askPreview(ctx context.Context, br *browser, id string) previewAnswer {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, "GET", br.base+"/operator/prints/"+id+"/preview", nil)
	if err != nil {
		return previewAnswer{err: err}
	}
	resp, err := br.c.Do(req)
	if err != nil {
		return previewAnswer{err: err, elapsed: time.Since(start)}
	}
	resp.Body.Close()
	return previewAnswer{status: resp.StatusCode, reason: resp.Header.Get("X-Preview"), elapsed: time.Since(start)}
}

// pngRenders is how many PNG renders (previews) the server has made or
// tried, read from /metrics.
func pngRenders(t *testing.T, srv *platentest.Server) int {
	t.Helper()
	_, data := platentest.Get(t, http.DefaultClient, srv.BaseURL+"/metrics")
	total := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "platen_render_duration_seconds_count{") || !strings.Contains(line, `kind="png"`) {
			continue
		}
		n, err := strconv.Atoi(line[strings.LastIndexByte(line, ' ')+1:])
		if err != nil {
			t.Fatalf("metrics: %q", line)
		}
		total += n
	}
	return total
}

// TestPreviewsLeaveOtherTeamsRenders: one team's operator opens the
// previews of eight prints whose PDFs are cheap but whose previews take
// many seconds each, twice over, as a prints page's lazy images do; while
// they are in flight another team's 50 × 50 mm order gets ready within
// 10 s (previews rendered with print renders' processes held it for
// minutes), and every preview request answers within its wait, with the
// picture or a placeholder.
func TestPreviewsLeaveOtherTeamsRenders(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.RenderWorkers = 2 })
		acme, other := srv.Bootstrap(t, "acme", "acme-shop"), srv.Bootstrap(t, "other", "other-shop")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		theirs := srv.TeamOperator(t, "bob@example.com", other.TeamID)
		var slow []string
		for i := range 8 {
			slow = append(slow, orderWith(t, srv, acme, fmt.Sprintf("slow-%d", i), slowPreview(40)))
		}
		for _, id := range slow {
			waitStatus(t, srv, member.Token, id, "ready")
		}

		br := newBrowser(t, srv.BaseURL)
		br.signIn("ada@example.com", member.Password)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		answers := askPreviews(ctx, br, slow, 2)
		time.Sleep(500 * time.Millisecond) // the previews reach the renderer

		start := time.Now()
		card := orderWith(t, srv, other, "card", smallCard)
		waitStatusWithin(t, srv, theirs.Token, card, "ready", 10*time.Second)
		t.Logf("the other team's card was ready in %s", time.Since(start).Round(time.Millisecond))

		for a := range answers {
			if a.err != nil || (a.status != http.StatusFound && a.reason == "") || a.elapsed > 20*time.Second {
				t.Errorf("a preview answered %d %q after %s: %v", a.status, a.reason, a.elapsed, a.err)
			}
		}
	})
}

// TestAPreviewOverItsBudgetShowsAPlaceholder: with a 3 s budget, a slow
// preview answers a placeholder saying so, and the next request for it
// gets the same without rendering again; the render was stopped in its
// render process, which draws a small card's preview next.
func TestAPreviewOverItsBudgetShowsAPlaceholder(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.StartWith(t, b, func(c *config.Config) { c.RenderWorkers = 2; c.PreviewTimeout = 3 * time.Second })
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		// 400 page-sized translucent ellipses take many times the budget
		// on any machine (40 fitted in it on an idle one).
		slow, card := orderWith(t, srv, acme, "slow", slowPreview(400)), orderWith(t, srv, acme, "card", smallCard)
		waitStatus(t, srv, member.Token, slow, "ready")
		waitStatus(t, srv, member.Token, card, "ready")
		br := newBrowser(t, srv.BaseURL)
		br.signIn("ada@example.com", member.Password)

		resp, body := br.do("GET", "/operator/prints/"+slow+"/preview", nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Preview") != "slow" ||
			resp.Header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(body, "too long") {
			t.Fatalf("a slow preview: %d %q %q %s", resp.StatusCode, resp.Header.Get("X-Preview"), resp.Header.Get("Content-Type"), body)
		}
		renders := pngRenders(t, srv)
		if resp, _ := br.do("GET", "/operator/prints/"+slow+"/preview", nil); resp.Header.Get("X-Preview") != "slow" {
			t.Errorf("the slow preview again: %d %q", resp.StatusCode, resp.Header.Get("X-Preview"))
		}
		if got := pngRenders(t, srv); got != renders {
			t.Errorf("the slow preview was rendered again: %d renders, then %d", renders, got)
		}

		// The card waits for the slow render's process to be replaced
		// (a new one loads its fonts), which may outlast a request's wait.
		poll.Within(30*time.Second, nil, func() bool {
			resp, _ = br.do("GET", "/operator/prints/"+card+"/preview", nil)
			return resp.Header.Get("X-Preview") != "pending"
		})
		if resp.StatusCode != http.StatusFound {
			t.Fatalf("the card's preview after the slow one: %d %q", resp.StatusCode, resp.Header.Get("X-Preview"))
		}
		img, data := platentest.Get(t, http.DefaultClient, resp.Header.Get("Location"))
		if cfg, err := png.DecodeConfig(bytes.NewReader(data)); img.StatusCode != http.StatusOK || err != nil || cfg.Width != 71 {
			t.Errorf("the card's preview: %d, %v, %+v (50 mm at 36 dpi is 71 pixels)", img.StatusCode, err, cfg)
		}
	})
}

// TestOnePreviewRendersOnce: ten requests at once for one print's preview
// share one render.
func TestOnePreviewRendersOnce(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		id := orderWith(t, srv, acme, "poster", strings.ReplaceAll(slowPreview(2), "2800", "300"))
		waitStatus(t, srv, member.Token, id, "ready")
		br := newBrowser(t, srv.BaseURL)
		br.signIn("ada@example.com", member.Password)

		before := pngRenders(t, srv)
		for a := range askPreviews(t.Context(), br, []string{id}, 10) {
			if a.err != nil || a.status != http.StatusFound {
				t.Errorf("a preview: %d %q: %v", a.status, a.reason, a.err)
			}
		}
		if renders := pngRenders(t, srv) - before; renders != 1 {
			t.Errorf("ten requests for one preview made %d renders, want 1", renders)
		}
	})
}

// waitStatusWithin waits until a print has status, failing after limit.
func waitStatusWithin(t *testing.T, srv *platentest.Server, token, id, status string, limit time.Duration) {
	t.Helper()
	srv.WaitFor(t, limit, "print "+id+" "+status, func() bool {
		return srv.Do(t, "GET", "/api/v1/operator/prints/"+id, token, nil).Object(t)["status"] == status
	})
}
