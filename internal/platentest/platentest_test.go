package platentest_test

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
)

// TestPostgresConfigured says whether a run tests the PostgreSQL backend:
// skipped, with the reason, when PLATEN_TEST_POSTGRES_URL is unset, so that
// a run on SQLite alone does not pass for a run on both. When it is set,
// it checks what every PostgreSQL test does first: a fresh schema of its
// own, on the server the variable names.
func TestPostgresConfigured(t *testing.T) {
	for _, b := range platentest.Backends() {
		if b.Name != "postgres" {
			continue
		}
		db, err := sql.Open("pgx", b.NewDatabaseURL(t))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var schema string
		if err := db.QueryRow("SELECT current_schema()").Scan(&schema); err != nil {
			t.Fatalf("%s: %v", platentest.PostgresEnv, err)
		}
		if !strings.HasPrefix(schema, "platen_test_") {
			t.Errorf("a fresh database's schema is %q, want one of its own (platen_test_…)", schema)
		}
		return
	}
	t.Skip(platentest.PostgresEnv + " is unset: the PostgreSQL backend is not tested")
}
