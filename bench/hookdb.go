package bench

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // "pgx", for the PostgreSQL runs
	_ "modernc.org/sqlite"             // "sqlite", Platen's own build
)

// printRow is what the database says of a Family B print.
type printRow struct {
	uid, status string
	created     time.Time
	// updated is updated_at: for a ready print, when the transaction that
	// made it ready (and wrote its delivery) set the status.
	updated time.Time
}

// deliveryRow is what the database says of a webhook delivery.
type deliveryRow struct {
	created time.Time
	// attempted is delivered_at: when the delivering attempt started, just
	// before its POST. Zero while not delivered.
	attempted time.Time
}

// openEnvDB opens e's database for reading: the SQLite file read-only, or
// PostgreSQL in the run's schema (its URL carries the search_path).
func openEnvDB(e *env) (*sql.DB, error) {
	if e.databaseURL != "" {
		return sql.Open("pgx", e.databaseURL)
	}
	path := filepath.Join(e.dataDir, "platen.db")
	return sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro&_pragma=busy_timeout(10000)")
}

// readHookRows reads every shop print and every webhook delivery (by uid)
// of the run.
func readHookRows(ctx context.Context, e *env) ([]printRow, map[string]deliveryRow, error) {
	db, err := openEnvDB(e)
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	prints, err := readPrints(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	deliveries, err := readDeliveries(ctx, db)
	return prints, deliveries, err
}

func readPrints(ctx context.Context, db *sql.DB) ([]printRow, error) {
	rows, err := db.QueryContext(ctx, `SELECT uid, status, created_at, updated_at FROM shop_prints`)
	if err != nil {
		return nil, fmt.Errorf("reading shop_prints: %w", err)
	}
	defer rows.Close()
	var out []printRow
	for rows.Next() {
		var p printRow
		var created, updated dbTime
		if err := rows.Scan(&p.uid, &p.status, &created, &updated); err != nil {
			return nil, fmt.Errorf("reading shop_prints: %w", err)
		}
		p.created, p.updated = created.Time, updated.Time
		out = append(out, p)
	}
	return out, rows.Err()
}

func readDeliveries(ctx context.Context, db *sql.DB) (map[string]deliveryRow, error) {
	rows, err := db.QueryContext(ctx, `SELECT uid, created_at, delivered_at FROM webhook_deliveries`)
	if err != nil {
		return nil, fmt.Errorf("reading webhook_deliveries: %w", err)
	}
	defer rows.Close()
	out := map[string]deliveryRow{}
	for rows.Next() {
		var uid string
		var created, attempted dbTime
		if err := rows.Scan(&uid, &created, &attempted); err != nil {
			return nil, fmt.Errorf("reading webhook_deliveries: %w", err)
		}
		out[uid] = deliveryRow{created: created.Time, attempted: attempted.Time}
	}
	return out, rows.Err()
}

// dbTime scans a timestamp as either driver gives it: pgx a time.Time,
// modernc's SQLite a time.Time or the text Ent stored (Go's time.String
// form, UTC, to the microsecond). NULL leaves it zero.
type dbTime struct{ time.Time }

// sqliteTimeLayouts are the text forms tried, the one Ent writes first.
var sqliteTimeLayouts = []string{
	"2006-01-02 15:04:05.999999999 -0700 MST",
	"2006-01-02 15:04:05.999999999-07:00",
	time.RFC3339Nano,
}

func (t *dbTime) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		t.Time = time.Time{}
		return nil
	case time.Time:
		t.Time = v
		return nil
	case []byte:
		return t.parse(string(v))
	case string:
		return t.parse(v)
	}
	return fmt.Errorf("timestamp of type %T", v)
}

func (t *dbTime) parse(s string) error {
	for _, layout := range sqliteTimeLayouts {
		if parsed, err := time.Parse(layout, s); err == nil {
			t.Time = parsed
			return nil
		}
	}
	return fmt.Errorf("timestamp %q in no known form", s)
}
