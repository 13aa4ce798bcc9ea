package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/render/reference"
)

// strictly decodes body into m as the proto spells its fields, refusing
// unknown ones: the gateway drops them silently, so a misspelt field would
// only show as a wrong figure.
func strictly(t *testing.T, body []byte, err error, m proto.Message) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if err := protojson.Unmarshal(body, m); err != nil {
		t.Fatalf("%T: %v\n%s", m, err, body)
	}
}

func TestBatchBodiesMatchTheProto(t *testing.T) {
	var category platenv1.CreateProductCategoryRequest
	body, err := categoryBody()
	strictly(t, body, err, &category)

	var product platenv1.CreateProductRequest
	body, err = productBody(3, 7)
	strictly(t, body, err, &product)
	if product.GetCategoryId() != 3 || product.GetTeamId() != 7 || !product.GetActive() {
		t.Errorf("product %v", &product)
	}

	var variant platenv1.CreateProductVariantRequest
	body, err = variantBody(5)
	strictly(t, body, err, &variant)
	if variant.GetProductId() != 5 || !slices.Equal(variant.EcommerceVariantIds, []string{batchVariant}) {
		t.Errorf("variant %v", &variant)
	}

	var tmpl platenv1.CreatePrintTemplateRequest
	body, err = printTemplateBody(7, 9)
	strictly(t, body, err, &tmpl)
	if tmpl.GetTeamId() != 7 || tmpl.SheetWidthMm != 320 || tmpl.SheetHeightMm != 450 ||
		tmpl.Grid.GetColumns() != 2 || tmpl.Grid.GetRows() != 4 || tmpl.GapMm != 6 || tmpl.SlotBleedMm != 1.5 ||
		tmpl.MarginLeftMm != 5 || !tmpl.CropMarks || !slices.Equal(tmpl.VariantIds, []int32{9}) {
		t.Errorf("template %v", &tmpl)
	}

	var batch platenv1.CreateBatchOrderRequest
	body, err = batchBody([]string{"i1", "i2"}, "t1")
	strictly(t, body, err, &batch)
	if !slices.Equal(batch.OrderItems, []string{"i1", "i2"}) || !slices.Equal(batch.PrintTemplates, []string{"t1"}) {
		t.Errorf("batch %v", &batch)
	}
}

// TestBatchOrderBody checks that every item is the reference page of the
// batch variant, one copy, and that the order renders nothing itself.
func TestBatchOrderBody(t *testing.T) {
	var order platenv1.CreateOrderRequest
	body, err := batchOrderBody("s", "o", "http://127.0.0.1:9/p.jpg?n=7", 50)
	strictly(t, body, err, &order)
	if order.CreatePrintFiles || len(order.Items) != 50 {
		t.Fatalf("create_print_files %v, %d items", order.CreatePrintFiles, len(order.Items))
	}
	ids := map[string]bool{}
	for _, item := range order.Items {
		ids[item.EcommerceOrderItemId] = true
		if item.EcommerceVariantId != batchVariant || item.GetQuantity() != 1 {
			t.Errorf("item %v", item)
		}
	}
	if len(ids) != 50 {
		t.Errorf("%d distinct item ids", len(ids))
	}
	doc, err := designdoc.ParseConfig(order.Items[49].TemplateConfig)
	if err != nil {
		t.Fatal(err)
	}
	if src := doc.Surfaces[0].Layers[0].Src; src != "http://127.0.0.1:9/p.jpg?n=7" {
		t.Errorf("src %q", src)
	}
}

func TestSheetsFor(t *testing.T) {
	for _, c := range []struct{ items, want int }{{0, 0}, {1, 1}, {8, 1}, {9, 2}, {200, 25}, {201, 26}} {
		if got := sheetsFor(c.items, gridColumns, gridRows); got != c.want {
			t.Errorf("sheetsFor(%d) = %d, want %d", c.items, got, c.want)
		}
	}
}

// TestImposeGrid lays out 12 pages with the suite's pdfcpu configuration
// (untimed): 2 sheets of 320 × 450 mm, the second half full.
func TestImposeGrid(t *testing.T) {
	var page bytes.Buffer
	if err := api.ImportImages(nil, &page, []io.Reader{bytes.NewReader(reference.Photo)}, nil, model.NewDefaultConfiguration()); err != nil {
		t.Fatal(err)
	}
	input, _, err := mergedCopies(page.Bytes(), 12)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := imposeGrid(input)
	if err != nil {
		t.Fatal(err)
	}
	file, err := measureSheets(out, sheetsFor(12, gridColumns, gridRows))
	if err != nil {
		t.Fatal(err)
	}
	if file.pages != 2 || file.size != "320×450 mm" || file.bytes != len(out) {
		t.Errorf("%+v", file)
	}
	if _, err := measureSheets(out, 3); err == nil {
		t.Error("measureSheets accepted 2 pages for 3")
	}
}

// fakeBatches serves the batch API as the issue describes it: orders
// answer their items' uids, a batch is Batching on its first read and
// Ready on the next, its file a signed link that redirects to sheets. With
// unimplemented set, POST /api/v1/batch-orders answers 501 as today's
// platen does.
func fakeBatches(t *testing.T, sheets []byte, pages int, unimplemented bool) *httptest.Server {
	var reads atomic.Int32
	mux := http.NewServeMux()
	var srv *httptest.Server
	mux.HandleFunc("POST /api/v1/orders", func(w http.ResponseWriter, r *http.Request) {
		var order platenv1.CreateOrderRequest
		body, _ := io.ReadAll(r.Body)
		if err := protojson.Unmarshal(body, &order); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		items := make([]map[string]string, len(order.Items))
		for i, item := range order.Items {
			items[i] = map[string]string{"uid": "uid-" + item.EcommerceOrderItemId}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"items": items})
	})
	mux.HandleFunc("POST /api/v1/batch-orders", func(w http.ResponseWriter, r *http.Request) {
		if unimplemented {
			w.WriteHeader(http.StatusNotImplemented)
			_, _ = io.WriteString(w, `{"code":12,"message":"method CreateBatchOrder not implemented"}`)
			return
		}
		var req platenv1.CreateBatchOrderRequest
		body, _ := io.ReadAll(r.Body)
		if err := protojson.Unmarshal(body, &req); err != nil || len(req.OrderItems) != batchItems || r.Header.Get("Authorization") != "Bearer plt_client" {
			http.Error(w, fmt.Sprintf("%v, %d items", err, len(req.OrderItems)), http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, `{"uid":"b1","status":"Batching","files":[{"url":null,"pages":0}],"error":null}`)
	})
	mux.HandleFunc("GET /api/v1/batch-orders/b1", func(w http.ResponseWriter, r *http.Request) {
		if reads.Add(1) == 1 {
			_, _ = io.WriteString(w, `{"uid":"b1","status":"Batching","files":[{"url":null,"pages":0}],"error":null}`)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"uid": "b1", "status": "Ready",
			"files": []map[string]any{{"url": srv.URL + "/api/v1/print-files/f1?token=x", "pages": pages}}})
	})
	mux.HandleFunc("GET /api/v1/print-files/f1", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/files/f1.pdf", http.StatusFound)
	})
	mux.HandleFunc("GET /files/f1.pdf", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(sheets) })
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestPlatenBatch runs the Platen half against fakeBatches (untimed):
// the batch is followed to Ready, its file downloaded through the redirect
// and counted; a 501 is reported as batches not served yet.
func TestPlatenBatch(t *testing.T) {
	var page bytes.Buffer
	if err := api.ImportImages(nil, &page, []io.Reader{bytes.NewReader(reference.Photo)}, nil, model.NewDefaultConfiguration()); err != nil {
		t.Fatal(err)
	}
	input, _, err := mergedCopies(page.Bytes(), batchItems)
	if err != nil {
		t.Fatal(err)
	}
	sheets, _, err := imposeGrid(input)
	if err != nil {
		t.Fatal(err)
	}
	want := sheetsFor(batchItems, gridColumns, gridRows)
	batcher := func(srv *httptest.Server) *platenBatcher {
		e := &env{baseURL: srv.URL, token: "plt_client", storeID: "s"}
		return &platenBatcher{e: e, template: "t1", client: srv.Client()}
	}

	_, file, err := batcher(fakeBatches(t, sheets, want, false)).batch(t.Context(), "r", "http://127.0.0.1:9/p.jpg", want)
	if err != nil {
		t.Fatal(err)
	}
	if file.pages != want || file.bytes != len(sheets) || file.size != "320×450 mm" {
		t.Errorf("%+v", file)
	}

	_, _, err = batcher(fakeBatches(t, sheets, want+1, false)).batch(t.Context(), "r", "http://127.0.0.1:9/p.jpg", want)
	if err == nil || !strings.Contains(err.Error(), "pages is 26") {
		t.Errorf("a file of the wrong page count: %v", err)
	}

	_, _, err = batcher(fakeBatches(t, sheets, want, true)).batch(t.Context(), "r", "http://127.0.0.1:9/p.jpg", want)
	if err == nil || !strings.Contains(err.Error(), "501 Not Implemented") || !strings.Contains(err.Error(), "does not make batch orders yet") {
		t.Errorf("501: %v", err)
	}
}
