package platentest_test

import (
	"database/sql"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestSchemaDropEndsWhatTheTestLeftOpen: a test that leaves transactions
// open on its fresh schema, one through the URL it was given and one on a
// connection of its own, fails naming each, and the schema's cleanup
// still ends within seconds, the schema gone, rather than waiting on them
// until the test binary's timeout. A test that leaves nothing open
// passes, its schema dropped at once.
func TestSchemaDropEndsWhatTheTestLeftOpen(t *testing.T) {
	b, ok := postgresBackend()
	if !ok {
		t.Skip(platentest.PostgresEnv + " is unset")
	}
	t.Run("left open", func(t *testing.T) {
		test := &recordedTest{TB: t}
		t.Cleanup(test.end) // should the test stop before its own end
		dbURL := b.NewDatabaseURL(test)
		schema := searchPath(t, dbURL)
		db := open(t, dbURL)
		if _, err := db.Exec("CREATE TABLE kept (n int)"); err != nil {
			t.Fatal(err)
		}
		writer, writerPID := beginOn(t, db, "INSERT INTO kept VALUES (1)")
		// A connection that does not carry the URL's application name.
		u, err := url.Parse(dbURL)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Del("application_name")
		u.RawQuery = q.Encode()
		reader, readerPID := beginOn(t, open(t, u.String()), "SELECT count(*) FROM "+schema+".kept")

		start := time.Now()
		test.end()
		took := time.Since(start)
		t.Logf("the cleanup took %s and said:", took.Round(time.Millisecond))
		for _, e := range test.errors {
			t.Log(e)
		}
		if took > 30*time.Second {
			t.Errorf("the cleanup took %s, want seconds", took)
		}
		for _, left := range []struct {
			pid       int
			statement string
		}{{writerPID, "INSERT INTO kept"}, {readerPID, "SELECT count(*) FROM " + schema + ".kept"}} {
			if !slices.ContainsFunc(test.errors, func(e string) bool {
				return strings.Contains(e, "transaction open") && strings.Contains(e, fmt.Sprintf("pid %d,", left.pid)) &&
					strings.Contains(e, left.statement)
			}) {
				t.Errorf("no error names the transaction left open by pid %d (%s); errors: %q", left.pid, left.statement, test.errors)
			}
		}
		if len(test.errors) != 2 {
			t.Errorf("errors %q, want one for each of the 2 transactions left open", test.errors)
		}
		if exists := schemaExists(t, dbURL, schema); exists {
			t.Errorf("schema %s is still there after its cleanup", schema)
		}
		for name, tx := range map[string]*sql.Tx{"writer": writer, "reader": reader} {
			if err := tx.Commit(); err == nil {
				t.Errorf("the %s's transaction committed after the cleanup, want it ended", name)
			}
		}
	})
	t.Run("nothing left", func(t *testing.T) {
		test := &recordedTest{TB: t}
		t.Cleanup(test.end)
		dbURL := b.NewDatabaseURL(test)
		schema := searchPath(t, dbURL)
		db := open(t, dbURL)
		if _, err := db.Exec("CREATE TABLE kept (n int); INSERT INTO kept VALUES (1)"); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		test.end()
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("the cleanup took %s with nothing left open", took)
		}
		if len(test.errors) != 0 {
			t.Errorf("errors %q with nothing left open, want none", test.errors)
		}
		if schemaExists(t, dbURL, schema) {
			t.Errorf("schema %s is still there after its cleanup", schema)
		}
	})
}

// recordedTest is a test whose cleanups run when end is called and whose
// errors are recorded rather than reported, so that a test can check what
// another test's cleanup did and said.
type recordedTest struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
	errors   []string
}

func (r *recordedTest) Helper() {}

func (r *recordedTest) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

func (r *recordedTest) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recordedTest) Error(args ...any) { r.Errorf("%s", fmt.Sprint(args...)) }

// end runs the cleanups, last registered first, once.
func (r *recordedTest) end() {
	r.mu.Lock()
	cleanups := r.cleanups
	r.cleanups = nil
	r.mu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
}

func postgresBackend() (platentest.Backend, bool) {
	for _, b := range platentest.Backends() {
		if b.Name == "postgres" {
			return b, true
		}
	}
	return platentest.Backend{}, false
}

func open(t *testing.T, dbURL string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// beginOn begins a transaction on db, runs statement in it and leaves it
// open; it returns the transaction and its backend's pid.
func beginOn(t *testing.T, db *sql.DB, statement string) (*sql.Tx, int) {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if err := tx.QueryRow("SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(statement); err != nil {
		t.Fatal(err)
	}
	return tx, pid
}

func searchPath(t *testing.T, dbURL string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("search_path")
}

// schemaExists asks on a new connection to dbURL: the test's were ended.
func schemaExists(t *testing.T, dbURL, schema string) bool {
	t.Helper()
	db := open(t, dbURL)
	var exists bool
	if err := db.QueryRow("SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", schema).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	return exists
}
