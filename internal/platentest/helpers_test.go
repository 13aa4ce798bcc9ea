package platentest_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/platentest"
)

// TestOrdersAndPrints: OrderBody's orders are accepted as they are and
// with items of their own; a job's end notifies JobEnded; WaitPrint sees
// a print ready, and one that failed.
func TestOrdersAndPrints(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		if r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, platentest.OrderBody(acme.StoreID, "plain")); r.Status != http.StatusOK {
			t.Fatalf("the default order: %d %s", r.Status, r.Raw)
		}
		jobEnded := srv.JobEnded().Next()
		badFont := `{"width":10,"height":10,"layers":[{"type":"text","text":"x","font":"Nope","size":6}]}`
		order := platentest.OrderBody(acme.StoreID, "1", platentest.PrintFiles(), platentest.Design(platentest.EmptyDesign),
			platentest.Items(nil, map[string]any{"template_config": url.QueryEscape(`{"width":20,"height":20,"layers":[]}`), "quantity": 2},
				platentest.OrderItem("1-3", badFont)))
		r := srv.Do(t, "POST", "/api/v1/orders", acme.Token, order)
		if r.Status != http.StatusOK {
			t.Fatalf("the order of three items: %d %s", r.Status, r.Raw)
		}
		select {
		case <-jobEnded:
		case <-time.After(platentest.PrintTimeout):
			t.Fatal("no job ended after an order with print files")
		}
		if p := srv.WaitPrint(t, acme.Token, "1-1", platentest.PrintReady); p["url"] == nil {
			t.Errorf("a ready print without its url: %v", p)
		}
		if p := srv.WaitPrint(t, acme.Token, "1-2"); p["status"] != platentest.PrintReady {
			t.Errorf("an item with fields of its own: %v, want it ready", p)
		}
		if p := srv.WaitPrint(t, acme.Token, "1-3", platentest.PrintFailed); !strings.Contains(p["error"].(string), "Nope") {
			t.Errorf("the failure does not name the font: %v", p)
		}
	})
}

// TestReceiver: the first answers are FirstAnswering's, later ones
// Answering's; GETs find nothing and are not kept; Wait and Next see the
// requests in order, and Next says when none came.
func TestReceiver(t *testing.T) {
	rcv := platentest.NewReceiver(t, platentest.FirstAnswering(500, 503), platentest.Answering(http.StatusNoContent), platentest.GetsFindNothing())
	var statuses []int
	for _, body := range []string{`{"n":1}`, `{"n":2}`, `not JSON`, `{"n":4}`} {
		resp, err := http.Post(rcv.URL+"/hooks?x=1", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		statuses = append(statuses, resp.StatusCode)
	}
	if want := []int{500, 503, 204, 204}; !slices.Equal(statuses, want) {
		t.Errorf("answered %v, want %v", statuses, want)
	}
	resp, err := http.Get(rcv.URL + "/missing.png")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a GET: %d, want 404", resp.StatusCode)
	}
	got := rcv.Wait(t, 4, time.Second)
	if len(got) != 4 || got[0].Path != "/hooks?x=1" || got[0].Method != "POST" || got[0].Event()["n"] != 1.0 || got[2].JSON() != nil {
		t.Errorf("kept %+v", got)
	}
	for n := range 4 {
		d, err := rcv.Next(time.Second)
		if err != nil || string(d.Body) != string(got[n].Body) {
			t.Errorf("Next %d: %s, %v; want %s", n, d.Body, err, got[n].Body)
		}
	}
	if _, err := rcv.Next(10 * time.Millisecond); err == nil {
		t.Error("Next found a fifth request")
	}
}
