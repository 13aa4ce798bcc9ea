package hostile

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
	"github.com/platen-print/platen/internal/renderjobs"
)

// TestOneImageDrawnManyTimesCostsItsBudgetNotTheServer: layers pointing at
// one 100-megapixel PNG of a few hundred kilobytes took 18 GB. Now the
// image is fetched once, found over a render's decoding budget before a
// pixel is decoded, and the item fails with the reason naming the layer;
// the server's memory and /healthz hold, and another team's order is
// ready meanwhile.
func TestOneImageDrawnManyTimesCostsItsBudgetNotTheServer(t *testing.T) {
	platentest.EachBackendInTurn(t, func(t *testing.T, b platentest.Backend) {
		images := hugePNG(t)
		srv := start(t, b, nil)
		attacker := srv.Bootstrap(t, "attacker", "shop-a")
		other := srv.Bootstrap(t, "other", "shop-b")
		c := watch(t, srv)
		doc := imageLayers(images.URL+"/huge.png", attackBodyLayers)
		var uids []string
		for i := range 2 {
			r := srv.Do(t, "POST", "/api/v1/orders", attacker.Token, platentest.OrderBody(attacker.StoreID, fmt.Sprintf("big-%d", i), platentest.PrintFiles(), platentest.Design(doc)))
			if r.Status != http.StatusOK {
				t.Fatalf("attack order: %d %s", r.Status, r.Raw)
			}
			uids = append(uids, r.Object(t)["uid"].(string))
		}
		referenceOrderReady(t, srv, other, "ref-1")
		for i, uid := range uids {
			srv.WaitPrintWithin(t, otherTeamsReady, attacker.Token, fmt.Sprintf("big-%d-1", i), "processingfailed")
			want := "layers[0]: decoding the 10000×10000 image needs 382 MB, over the 128 MB a render may spend on pixels"
			if reason := itemError(t, srv, attacker.Token, uid); !strings.HasPrefix(reason, want) {
				t.Errorf("reason %q; want %q…", reason, want)
			}
		}
		c.check(t)
	})
}

// TestOneTeamsBacklogDoesNotHoldAnotherTeamsOrder: a team's shop order of
// twenty slow designs is rendering when another team posts one small
// order; that order is ready long before the backlog is through.
func TestOneTeamsBacklogDoesNotHoldAnotherTeamsOrder(t *testing.T) {
	platentest.EachBackendInTurn(t, func(t *testing.T, b platentest.Backend) {
		srv := start(t, b, nil)
		heavy := srv.Bootstrap(t, "heavy", "shop-a")
		other := srv.Bootstrap(t, "other", "shop-b")
		c := watch(t, srv)
		if r := srv.Do(t, "POST", "/api/v1/design-versions", heavy.Token, map[string]any{"design_version_id": "poster", "template_config": heavyDoc(80)}); r.Status != http.StatusOK {
			t.Fatalf("design version: %d %s", r.Status, r.Raw)
		}
		lines := make([]map[string]any, 20)
		for i := range lines {
			lines[i] = map[string]any{"design_version_id": "poster", "quantity": 1}
		}
		if r := srv.Do(t, "POST", "/v1/shop/orders", heavy.Token, map[string]any{"external_id": "BULK-1", "lines": lines}); r.Status != http.StatusCreated {
			t.Fatalf("bulk order: %d %s", r.Status, r.Raw)
		}
		waitShopRendering(t, srv)
		referenceOrderReady(t, srv, other, "ref-1")
		// The other team's render went ahead of the backlog's later ones.
		if p := renderPriorities(t, srv, "render_order_item"); len(p) != 1 || p[0] != 1 {
			t.Errorf("the other team's render has priority %v; want 1", p)
		}
		if p := renderPriorities(t, srv, "render_shop_print"); p[len(p)-1] <= 1 {
			t.Errorf("the backlog's last render has priority %d; want it behind other teams' first", p[len(p)-1])
		}
		if done := finishedShopPrints(t, srv); done >= len(lines)/2 {
			t.Errorf("%d of the backlog's %d prints had finished first: the other order was not served ahead of them", done, len(lines))
		}
		c.check(t)
	})
}

// waitShopRendering waits until the backlog's renders are running.
func waitShopRendering(t *testing.T, srv *platentest.Server) {
	t.Helper()
	poll.Until(t, otherTeamsReady, "the backlog rendering", func() bool {
		for _, job := range srv.Jobs(t, renderjobs.ShopRenderKind) {
			if job.State == rivertype.JobStateRunning {
				return true
			}
		}
		return false
	})
}

// renderPriorities lists the River priorities of kind's jobs, in order.
func renderPriorities(t *testing.T, srv *platentest.Server, kind string) []int {
	t.Helper()
	var out []int
	for _, job := range srv.Jobs(t, kind) {
		out = append(out, job.Priority)
	}
	return out
}

func finishedShopPrints(t *testing.T, srv *platentest.Server) int {
	t.Helper()
	var n int
	if err := srv.DB().JobPool().QueryRow(`SELECT count(*) FROM shop_prints WHERE status <> 'processing'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestARenderOverItsTimeFailsOnceWithTheReason: a render past
// --render-timeout (of wall clock or CPU) fails at once with the reason, is not retried, and the
// render process is free again for others.
func TestARenderOverItsTimeFailsOnceWithTheReason(t *testing.T) {
	platentest.EachBackendInTurn(t, func(t *testing.T, b platentest.Backend) {
		srv := start(t, b, func(c *config.Config) { c.Render.Timeout = time.Second })
		attacker := srv.Bootstrap(t, "attacker", "shop-a")
		other := srv.Bootstrap(t, "other", "shop-b")
		r := srv.Do(t, "POST", "/api/v1/orders", attacker.Token, platentest.OrderBody(attacker.StoreID, "slow", platentest.PrintFiles(), platentest.Design(heavyDoc(400))))
		if r.Status != http.StatusOK {
			t.Fatalf("order: %d %s", r.Status, r.Raw)
		}
		srv.WaitPrintWithin(t, otherTeamsReady, attacker.Token, "slow-1", "processingfailed")
		// Its wall clock or, on a busy machine first, its CPU time.
		reason := itemError(t, srv, attacker.Token, r.Object(t)["uid"].(string))
		if !strings.HasPrefix(reason, "render exceeded 1 s") && reason != "render exceeded its CPU limit of 1 s" {
			t.Errorf("reason %q; want render exceeded 1 s…", reason)
		}
		if attempts := srv.Jobs(t, renderjobs.RenderKind)[0].Attempt; attempts != 1 {
			t.Errorf("the render ran %d times; a render over its time must not be retried", attempts)
		}
		referenceOrderReady(t, srv, other, "ref-1")
	})
}
