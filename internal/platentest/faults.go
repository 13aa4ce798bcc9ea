package platentest

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"testing"

	"github.com/platen-print/platen/internal/config"
)

// WriteFault makes a database refuse every write (refuse true) and take
// them again (false), as a failing disk or a read-only failover would.
type WriteFault func(t *testing.T, refuse bool)

// StartWithWriteFault is StartWith on a database that the returned fault
// can make refuse every write mid-run: on SQLite the writer connection
// turns query_only; on PostgreSQL the server logs in as a role of its own
// whose sessions turn read-only (see ReadOnlyPostgres).
func StartWithWriteFault(t *testing.T, b Backend, edit func(*config.Config)) (*Server, WriteFault) {
	t.Helper()
	if b.postgres != "" {
		dbURL, fault := ReadOnlyPostgres(t, b)
		srv := StartWith(t, Backend{Name: b.Name, NewDatabaseURL: func(testing.TB) string { return dbURL }}, edit)
		return srv, fault
	}
	srv := StartWith(t, b, edit)
	return srv, func(t *testing.T, refuse bool) {
		t.Helper()
		// The writer pool is one connection: every write takes it.
		pragma := "PRAGMA query_only = OFF"
		if refuse {
			pragma = "PRAGMA query_only = ON"
		}
		if _, err := srv.DB().JobPool().Exec(pragma); err != nil {
			t.Fatalf("%s: %v", pragma, err)
		}
	}
}

// ReadOnlyPostgres returns the URL of a fresh schema (as FreshPostgresSchema)
// on the PostgreSQL backend b, reached as a login role made for the test, and a fault that turns the
// role's sessions read-only (default_transaction_read_only) or back, ending
// its open sessions so that the pool's next ones take the setting. Only
// the test's own role changes, so other tests on the server are not
// touched. The role is dropped when the test ends.
func ReadOnlyPostgres(t *testing.T, b Backend) (string, WriteFault) {
	t.Helper()
	base := b.postgres
	if base == "" {
		t.Fatalf("ReadOnlyPostgres on the %s backend", b.Name)
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	t.Cleanup(func() { admin.Close() })
	var suffix [6]byte
	_, _ = rand.Read(suffix[:])
	role := "platen_test_role_" + hex.EncodeToString(suffix[:])
	if _, err := admin.Exec("CREATE ROLE " + role + " LOGIN"); err != nil {
		t.Fatalf("create role: %v", err)
	}
	t.Cleanup(func() { // after the schema's drop, registered below
		if _, err := admin.Exec("DROP ROLE " + role); err != nil {
			t.Errorf("drop role %s: %v", role, err)
		}
	})
	u, err := url.Parse(FreshPostgresSchema(t, base))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec("GRANT ALL ON SCHEMA " + u.Query().Get("search_path") + " TO " + role); err != nil {
		t.Fatalf("grant: %v", err)
	}
	u.User = url.User(role)
	return u.String(), func(t *testing.T, refuse bool) {
		t.Helper()
		stmt := "ALTER ROLE " + role + " RESET default_transaction_read_only"
		if refuse {
			stmt = "ALTER ROLE " + role + " SET default_transaction_read_only = on"
		}
		if _, err := admin.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		if _, err := admin.Exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", role); err != nil {
			t.Fatalf("end the role's sessions: %v", err)
		}
	}
}
