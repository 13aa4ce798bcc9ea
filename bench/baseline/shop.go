package baseline

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// shopSchema is Family B's two tables as Platen keeps them, with the same
// unique indexes (the read below uses them as Platen's does).
const shopSchema = `
CREATE TABLE IF NOT EXISTS shop_orders (id INTEGER PRIMARY KEY, team_id INTEGER, store_id TEXT, external_id TEXT,
  reference_number TEXT UNIQUE, lines_hash TEXT, created_at DATETIME, updated_at DATETIME, UNIQUE (store_id, external_id));
CREATE TABLE IF NOT EXISTS shop_prints (id INTEGER PRIMARY KEY, uid TEXT UNIQUE,
  shop_order_id INTEGER REFERENCES shop_orders(id), position INTEGER, line_external_id TEXT, design_version_id TEXT,
  quantity INTEGER, status TEXT, file_count INTEGER,
  UNIQUE (shop_order_id, position), UNIQUE (shop_order_id, line_external_id));`

// shopOrderQuery is Platen's read of an order with its prints: one join, by
// store and reference_number or external_id.
const shopOrderQuery = `SELECT o.id, o.team_id, o.external_id, o.reference_number, o.lines_hash,
  p.uid, p.line_external_id, p.design_version_id, p.quantity, p.status, p.file_count
  FROM shop_orders AS o JOIN shop_prints AS p ON p.shop_order_id = o.id
  WHERE o.store_id = ? AND (o.reference_number = ? OR o.external_id = ?)
  ORDER BY o.id, p.position`

// shop is the baseline of the shop-get scenario: Platen's read of a Family
// B order (one prepared join, links signed once per answer), answered with
// encoding/json. Create stores the prints as ready without rendering: only
// the read is measured.
type shop struct {
	db       *sql.DB
	read     *sql.Stmt
	storeID  string
	linkKey  []byte
	linkLife time.Duration
}

// baselineStore is the baseline's one store (no tokens, no tenancy).
const baselineStore = "bench"

func newShop(ctx context.Context, db, reads *sql.DB) (*shop, error) {
	if _, err := db.ExecContext(ctx, shopSchema); err != nil {
		return nil, err
	}
	read, err := reads.PrepareContext(ctx, shopOrderQuery)
	if err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return &shop{db: db, read: read, storeID: baselineStore, linkKey: key, linkLife: 7 * 24 * time.Hour}, nil
}

func (s *shop) routes(mux *http.ServeMux) {
	// The bench registers its design before ordering; the baseline keeps
	// no designs, so it only says yes.
	mux.HandleFunc("POST /api/v1/design-versions", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	})
	mux.HandleFunc("POST /v1/shop/orders", s.create)
	mux.HandleFunc("GET /v1/shop/orders/{ref}", s.get)
}

type shopFile struct {
	Index  int    `json:"index"`
	Type   string `json:"type"`
	Copies int    `json:"copies"`
	URL    string `json:"url"`
}

type shopPrint struct {
	ID     string     `json:"id"`
	Status string     `json:"status"`
	Files  []shopFile `json:"files"`
}

type shopLine struct {
	ExternalID      string      `json:"external_id"`
	DesignVersionID string      `json:"design_version_id"`
	Quantity        int         `json:"quantity"`
	Prints          []shopPrint `json:"prints"`
}

type shopOrder struct {
	ReferenceNumber string     `json:"reference_number"`
	ExternalID      string     `json:"external_id"`
	Lines           []shopLine `json:"lines"`
}

type shopRequest struct {
	ExternalID string `json:"external_id"`
	Lines      []struct {
		DesignVersionID string `json:"design_version_id"`
		Quantity        int    `json:"quantity"`
	} `json:"lines"`
}

// create stores the order with every print ready and one file each.
func (s *shop) create(w http.ResponseWriter, r *http.Request) {
	var req shopRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Lines) == 0 {
		http.Error(w, `{"message":"bad request"}`, http.StatusBadRequest)
		return
	}
	ref, err := s.insert(r.Context(), &req)
	if err != nil {
		http.Error(w, `{"message":"conflict"}`, http.StatusConflict)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]string{"reference_number": ref, "external_id": req.ExternalID}})
}

func (s *shop) insert(ctx context.Context, req *shopRequest) (string, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	now := time.Now().UTC()
	ref := uuid.NewString()[:9]
	res, err := tx.ExecContext(ctx, `INSERT INTO shop_orders (team_id, store_id, external_id, reference_number, lines_hash, created_at, updated_at)
		VALUES (1, ?, ?, ?, '', ?, ?)`, s.storeID, req.ExternalID, ref, now, now)
	if err != nil {
		return "", err
	}
	orderID, _ := res.LastInsertId()
	for i, l := range req.Lines {
		if _, err := tx.ExecContext(ctx, `INSERT INTO shop_prints (uid, shop_order_id, position, line_external_id, design_version_id, quantity, status, file_count)
			VALUES (?, ?, ?, ?, ?, ?, 'ready', 1)`, uuid.NewString(), orderID, i, strconv.Itoa(i+1), l.DesignVersionID, l.Quantity); err != nil {
			return "", err
		}
	}
	return ref, tx.Commit()
}

// get answers the order with its prints and their links.
func (s *shop) get(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("ref")
	o, err := s.find(r.Context(), ref)
	if err != nil || o == nil {
		http.Error(w, `{"message":"not found"}`, http.StatusNotFound)
		return
	}
	base := "http://" + r.Host + "/v1/shop/files/"
	token := s.sign(o.ReferenceNumber)
	for i := range o.Lines {
		p := &o.Lines[i].Prints[0]
		for j := range p.Files {
			p.Files[j].URL = base + url.PathEscape(p.ID) + "/" + strconv.Itoa(j+1) + "?token=" + token
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"data": o})
}

// find reads the order; a reference_number match wins over an external_id
// one, as in Platen. It returns nil when there is none.
func (s *shop) find(ctx context.Context, ref string) (*shopOrder, error) {
	rows, err := s.read.QueryContext(context.WithoutCancel(ctx), s.storeID, ref, ref)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var found []*shopOrder
	lastID := int64(-1)
	for rows.Next() {
		var o shopOrder
		var l shopLine
		var p shopPrint
		var id, teamID int64
		var hash string
		var files int
		if err := rows.Scan(&id, &teamID, &o.ExternalID, &o.ReferenceNumber, &hash,
			&p.ID, &l.ExternalID, &l.DesignVersionID, &l.Quantity, &p.Status, &files); err != nil {
			return nil, err
		}
		if id != lastID {
			found, lastID = append(found, &o), id
		}
		p.Files = make([]shopFile, files)
		for i := range p.Files {
			p.Files[i] = shopFile{Index: i + 1, Type: "single_file", Copies: l.Quantity}
		}
		l.Prints = []shopPrint{p}
		last := found[len(found)-1]
		last.Lines = append(last.Lines, l)
	}
	if err := rows.Err(); err != nil || len(found) == 0 {
		return nil, err
	}
	for _, o := range found {
		if o.ReferenceNumber == ref {
			return o, nil
		}
	}
	return found[0], nil
}

// sign is a download token for the order's files: HMAC-SHA256 over the
// scope, the order and the expiry, as Platen's links carry.
func (s *shop) sign(reference string) string {
	msg := []byte{1}
	msg = append(msg, "shop_order\x00"...)
	msg = append(msg, reference...)
	msg = binary.BigEndian.AppendUint64(msg, uint64(time.Now().Add(s.linkLife).Unix()))
	mac := hmac.New(sha256.New, s.linkKey)
	mac.Write(msg)
	return base64.RawURLEncoding.EncodeToString(mac.Sum(msg))
}
