package baseline

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestShop checks that the baseline answers a Family B order as Platen
// does: every print ready, one signed link each, one token per answer.
func TestShop(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, lis, t.TempDir()) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Error(err)
		}
	}()
	base := "http://" + lis.Addr().String()
	lines := strings.Repeat(`{"design_version_id":"d1","quantity":2},`, 9) + `{"design_version_id":"d1","quantity":2}`
	resp, err := http.Post(base+"/v1/shop/orders", "application/json", strings.NewReader(`{"external_id":"SO-1","lines":[`+lines+`]}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Data struct {
			ReferenceNumber string `json:"reference_number"`
		}
	}
	err = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusCreated || created.Data.ReferenceNumber == "" {
		t.Fatalf("create: %d, %+v, %v", resp.StatusCode, created, err)
	}
	for _, ref := range []string{created.Data.ReferenceNumber, "SO-1"} {
		got := getOrder(t, base+"/v1/shop/orders/"+ref)
		if got.ReferenceNumber != created.Data.ReferenceNumber || len(got.Lines) != 10 {
			t.Fatalf("GET %s: %+v", ref, got)
		}
		for _, l := range got.Lines {
			p := l.Prints[0]
			if p.Status != "ready" || len(p.Files) != 1 || p.Files[0].Copies != 2 ||
				!strings.HasPrefix(p.Files[0].URL, base+"/v1/shop/files/"+p.ID+"/1?token=") {
				t.Errorf("GET %s: line %+v", ref, l)
			}
		}
	}
}

func getOrder(t *testing.T, url string) shopOrder {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Data shopOrder }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d, %v", url, resp.StatusCode, err)
	}
	return out.Data
}
