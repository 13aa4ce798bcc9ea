// Package baseline is the yardstick of BENCHMARKS.md: a plain net/http
// handler doing the same SQLite work as Platen's hot endpoints (insert an
// order with its item in one transaction; read an item's print status; read
// a Family B order with its prints and signed links, see shop.go), with
// database/sql, prepared statements and no gRPC, gateway, auth or Ent.
// Platen's figures are read against it, measured in the same minutes on the
// same machine, so that a slower host does not pass for a slower Platen.
package baseline

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"time"

	"github.com/google/uuid"
	_ "modernc.org/sqlite" // the same SQLite as Platen's
)

type server struct {
	// db is the write pool (one connection, so writers queue in Go rather
	// than in SQLite's busy handler, as Platen's do); reads use a pool.
	db          *sql.DB
	reads       *sql.DB
	insertOrder *sql.Stmt
	insertItem  *sql.Stmt
	readStatus  *sql.Stmt
}

type orderRequest struct {
	StoreID          string `json:"store_id"`
	EcommerceOrderID string `json:"ecommerce_order_id"`
	Items            []struct {
		EcommerceOrderItemID string   `json:"ecommerce_order_item_id"`
		EcommerceVariantID   string   `json:"ecommerce_variant_id"`
		Quantity             int      `json:"quantity"`
		TemplateConfig       string   `json:"template_config"`
		Thumbnails           []string `json:"thumbnails"`
	} `json:"items"`
}

const schema = `
CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY, uid TEXT UNIQUE, store_id TEXT, ecommerce_order_id TEXT,
  created_at DATETIME, updated_at DATETIME, UNIQUE (store_id, ecommerce_order_id));
CREATE TABLE IF NOT EXISTS order_items (id INTEGER PRIMARY KEY, uid TEXT UNIQUE, order_id INTEGER REFERENCES orders(id),
  store_id TEXT, ecommerce_order_item_id TEXT, ecommerce_variant_id TEXT, quantity INTEGER, template_config TEXT,
  thumbnails TEXT, print_status TEXT, UNIQUE (store_id, ecommerce_order_item_id));`

// Serve runs the baseline on lis with its database in dir until ctx ends.
func Serve(ctx context.Context, lis net.Listener, dir string) error {
	dsn := "file:" + (&url.URL{Path: filepath.Join(dir, "baseline.db")}).EscapedPath() +
		"?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	reads, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	defer reads.Close()
	reads.SetMaxOpenConns(8)
	reads.SetMaxIdleConns(8)
	if _, err := db.Exec(schema); err != nil {
		return err
	}
	s := &server{db: db, reads: reads}
	if s.insertOrder, err = db.Prepare(`INSERT INTO orders (uid, store_id, ecommerce_order_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`); err != nil {
		return err
	}
	if s.insertItem, err = db.Prepare(`INSERT INTO order_items (uid, order_id, store_id, ecommerce_order_item_id, ecommerce_variant_id, quantity, template_config, thumbnails, print_status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'received')`); err != nil {
		return err
	}
	if s.readStatus, err = reads.Prepare(`SELECT print_status FROM order_items WHERE ecommerce_order_item_id = ? LIMIT 2`); err != nil {
		return err
	}
	shop, err := newShop(ctx, db, reads)
	if err != nil {
		return err
	}
	defer shop.read.Close()
	mux := http.NewServeMux()
	shop.routes(mux)
	mux.HandleFunc("POST /api/v1/orders", s.create)
	mux.HandleFunc("GET /api/v1/order-items/{id}/print", s.status)
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"status":"ok"}`)) })
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(lis); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (s *server) create(w http.ResponseWriter, r *http.Request) {
	var req orderRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Items) == 0 {
		http.Error(w, `{"message":"bad request"}`, http.StatusBadRequest)
		return
	}
	resp, err := s.insert(r.Context(), &req)
	if err != nil {
		http.Error(w, `{"message":"conflict"}`, http.StatusConflict)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

func (s *server) insert(ctx context.Context, req *orderRequest) (map[string]any, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	now := time.Now().UTC()
	uid := uuid.NewString()
	res, err := tx.Stmt(s.insertOrder).ExecContext(ctx, uid, req.StoreID, req.EcommerceOrderID, now, now)
	if err != nil {
		return nil, err
	}
	orderID, _ := res.LastInsertId()
	items := make([]map[string]string, len(req.Items))
	for i, it := range req.Items {
		itemUID := uuid.NewString()
		thumbs, _ := json.Marshal(it.Thumbnails)
		if _, err := tx.Stmt(s.insertItem).ExecContext(ctx, itemUID, orderID, req.StoreID, it.EcommerceOrderItemID,
			it.EcommerceVariantID, it.Quantity, it.TemplateConfig, string(thumbs)); err != nil {
			return nil, err
		}
		items[i] = map[string]string{"uid": itemUID, "ecommerce_order_item_id": it.EcommerceOrderItemID}
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return map[string]any{"uid": uid, "ecommerce_order_id": req.EcommerceOrderID, "items": items}, nil
}

func (s *server) status(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var status string
	if err := s.readStatus.QueryRowContext(r.Context(), id).Scan(&status); err != nil {
		http.Error(w, `{"message":"not found"}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"ecommerce_order_item_id": id, "status": status, "url": nil})
}
