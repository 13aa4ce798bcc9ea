package cli_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
	"github.com/platen-print/platen/internal/poppler"
)

// TestCrashMidBatch kills `platen serve` (SIGKILL) while a batch of 500
// copies renders (its photo is being fetched); a new process resumes the
// batch, which reaches Ready with all 63 sheets.
func TestCrashMidBatch(t *testing.T) {
	t.Parallel() // each test runs processes of its own
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		var dbFlags []string
		if databaseURL := b.NewDatabaseURL(t); databaseURL != "" {
			dbFlags = []string{"--database-url", databaseURL}
		}
		crashMidBatch(t, dbFlags)
	})
}

func crashMidBatch(t *testing.T, dbFlags []string) {
	poppler.Need(t, "pdfinfo")
	images, hits := slowImages(t, 2*time.Second)
	dataDir := t.TempDir()
	flags := append([]string{"--data-dir", dataDir}, dbFlags...)
	boot := bootstrap(t, nil, append(flags, "--team", "acme", "--store", "acme-shop")...)
	var staff createdOperator
	decodeOne(t, runOK(t, nil, append([]string{"admin", "operator", "create", "--email", "grace@example.com", "--staff"}, flags...)...), &staff)
	serveFlags := append([]string{"--allow-private-network", "--render-workers", "2"}, dbFlags...)

	first := serve(t, dataDir, serveFlags...)
	post := func(s *server, path, token string, body any) map[string]any {
		t.Helper()
		raw, _ := json.Marshal(body)
		r := do(t, "POST", s.baseURL+path, token, string(raw))
		if r.status != http.StatusOK {
			t.Fatalf("POST %s: %d %s", path, r.status, r.body)
		}
		return r.object(t)
	}
	cat := post(first, "/api/v1/product-categories", boot.Token, map[string]any{"name": "Cards"})
	prod := post(first, "/api/v1/products", boot.Token, map[string]any{"category_id": cat["id"], "name": "Card", "order_column": 1, "active": true, "team_id": boot.TeamID})
	variant := post(first, "/api/v1/product-variants", boot.Token, map[string]any{"name": "A6", "product_id": prod["id"], "country_id": 276, "ecommerce_variant_ids": []string{"a6"}})
	tmpl := post(first, "/api/v1/operator/print-templates", staff.Token, map[string]any{
		"team_id": boot.TeamID, "name": "SRA3", "sheet_width_mm": 320, "sheet_height_mm": 450, "margin_top_mm": 5, "margin_right_mm": 5,
		"margin_bottom_mm": 5, "margin_left_mm": 5, "gap_mm": 6, "grid": map[string]any{"columns": 2, "rows": 4}, "crop_marks": true,
		"variant_ids": []any{variant["id"]},
	})
	doc := fmt.Sprintf(`{"width":140,"height":100,"bleed":2,"layers":[{"type":"image","src":%q,"x":0,"y":0,"width":140,"height":100},{"type":"text","text":"A6","x":5,"y":20,"size":12}]}`, images.URL+"/photo.jpg")
	var items []map[string]any
	for i := 1; i <= 5; i++ {
		items = append(items, map[string]any{"ecommerce_order_item_id": fmt.Sprintf("1001-%d", i), "ecommerce_variant_id": "a6", "quantity": 100,
			"thumbnails": []string{"https://example.com/t.png"}, "template_config": url.QueryEscape(doc)})
	}
	order := post(first, "/api/v1/orders", boot.Token, map[string]any{"store_id": "acme-shop", "ecommerce_order_id": "1001", "create_print_files": false, "items": items})
	var uids []string
	for _, it := range order["items"].([]any) {
		uids = append(uids, it.(map[string]any)["uid"].(string))
	}
	batch := post(first, "/api/v1/batch-orders", boot.Token, map[string]any{"order_items": uids, "print_templates": []any{tmpl["uid"]}})
	uid := batch["uid"].(string)

	// Kill it while the render fetches the photo.
	poll.Until(t, 30*time.Second, "the batch's render fetching its photo", func() bool { return hits.Of("/photo.jpg") > 0 })
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-first.done

	second := serve(t, dataDir, serveFlags...)
	var got map[string]any
	poll.Until(t, 90*time.Second, "the batch done after the restart", func() bool {
		got = do(t, "GET", second.baseURL+"/api/v1/batch-orders/"+uid, boot.Token, "").object(t)
		return got["status"] != "Batching"
	})
	file := got["files"].([]any)[0].(map[string]any)
	if got["status"] != "Ready" || file["pages"] != 63.0 {
		t.Fatalf("after the restart: %v", got)
	}
	if hits.Of("/photo.jpg") < 2 {
		t.Errorf("the photo was fetched %d times: the batch was not rendered again after the kill", hits.Of("/photo.jpg"))
	}
	resp, err := http.Get(file["url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	path := filepath.Join(t.TempDir(), "batch.pdf")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	out.Close()
	info, err := exec.Command("pdfinfo", path).CombinedOutput()
	if err != nil || !strings.Contains(strings.Join(strings.Fields(string(info)), " "), "Pages: 63") {
		t.Fatalf("pdfinfo: %v\n%s", err, info)
	}
}
