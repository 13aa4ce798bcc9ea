package platentest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver for schema set-up
)

// FreshPostgresSchema creates a schema of its own for one test server, so
// parallel runs never see each other's rows, and drops it when the test
// ends; it returns base with the schema as its search_path, and as its
// application_name, so that the drop can tell the test's connections
// from others'. Register it before anything that uses the schema, so that
// its drop runs last.
//
// The drop never waits on the test for long: a transaction the test left
// open (or a connection still working in the schema) holds locks the drop
// needs, so after dropLockTimeout of waiting the drop ends those sessions,
// fails the test naming each, and tries again.
func FreshPostgresSchema(t testing.TB, base string) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "platen_test_" + hex.EncodeToString(b[:])
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() { dropSchema(t, db, schema) })
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", PostgresEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	q.Set("application_name", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

const (
	// dropLockTimeout is how long one attempt to drop a test's schema
	// waits for the locks it needs. A server the test started has shut
	// down by then, so nothing of the test's should hold one for long.
	dropLockTimeout = 5 * time.Second
	// dropAttempts: after the first, each follows the ending of the
	// sessions that held the schema.
	dropAttempts = 3
	// dropStatementTimeout bounds the drop itself, however it is held up.
	dropStatementTimeout = time.Minute
)

// SQLSTATEs after which the drop is tried again.
const (
	lockNotAvailable = "55P03" // lock_timeout
	deadlockDetected = "40P01"
)

// dropSchema drops schema and everything in it. When sessions keep it
// from doing so, it ends them (see FreshPostgresSchema): each is reported
// as an error of the test, which must not leave them behind.
func dropSchema(t testing.TB, db *sql.DB, schema string) {
	for attempt := 1; ; attempt++ {
		err := tryDropSchema(db, schema)
		if err == nil {
			return
		}
		var pgErr *pgconn.PgError
		held := errors.As(err, &pgErr) && (pgErr.Code == lockNotAvailable || pgErr.Code == deadlockDetected)
		if !held || attempt == dropAttempts {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		holders, err := schemaHolders(db, schema)
		if err != nil {
			t.Errorf("drop schema %s: find what holds it: %v", schema, err)
			return
		}
		for _, h := range holders {
			t.Errorf("schema %s: the test left %s; it was ended so that the schema could be dropped (commit or roll back every transaction, and stop what uses the schema, before the test ends)", schema, h)
		}
		if err := endSessions(db, holders); err != nil {
			t.Errorf("drop schema %s: end the sessions that hold it: %v", schema, err)
			return
		}
	}
}

// tryDropSchema drops schema unless that means waiting longer than
// dropLockTimeout for a lock.
func tryDropSchema(db *sql.DB, schema string) error {
	// The server's timeouts are what end the wait: a cancelled call would
	// leave the server waiting on, holding the locks it already has. The
	// context only keeps the test from outliving a server that stopped
	// answering.
	ctx, cancel := context.WithTimeout(context.Background(), 2*dropStatementTimeout)
	defer cancel()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	settings := fmt.Sprintf("SET LOCAL lock_timeout = %d; SET LOCAL statement_timeout = %d",
		dropLockTimeout.Milliseconds(), dropStatementTimeout.Milliseconds())
	if _, err := tx.ExecContext(ctx, settings); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
		return err
	}
	return tx.Commit()
}

// session is another backend that holds a test's schema.
type session struct {
	pid             int
	applicationName string
	state           string
	inTransaction   time.Duration // since the transaction began
	query           string        // the current or last statement
}

func (s session) String() string {
	query := strings.Join(strings.Fields(s.query), " ")
	if len(query) > 200 {
		query = query[:200] + "…"
	}
	what := "a session"
	if strings.HasPrefix(s.state, "idle in transaction") {
		what = "a transaction open"
	}
	return fmt.Sprintf("%s (pid %d, application_name %q, %s for %s, last statement %q)",
		what, s.pid, s.applicationName, s.state, s.inTransaction.Round(time.Millisecond), query)
}

// schemaHolders are the sessions, other than the caller's, in a
// transaction that can hold schema: those of the test's connections
// (named after the schema, see FreshPostgresSchema) and any other that
// has a lock on the schema or on something in it.
func schemaHolders(db *sql.DB, schema string) ([]session, error) {
	rows, err := db.Query(`
		WITH ns AS (SELECT oid FROM pg_namespace WHERE nspname = $1)
		SELECT a.pid, coalesce(a.application_name, ''), coalesce(a.state, ''),
			extract(epoch FROM now() - a.xact_start)::float8, coalesce(a.query, '')
		FROM pg_stat_activity a
		WHERE a.pid <> pg_backend_pid() AND a.xact_start IS NOT NULL
			AND (a.application_name = $1 OR a.pid IN (
				SELECT l.pid FROM pg_locks l
				LEFT JOIN pg_class c ON l.locktype = 'relation' AND c.oid = l.relation
				WHERE l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
					AND (c.relnamespace IN (SELECT oid FROM ns)
						OR (l.classid = 'pg_namespace'::regclass AND l.objid IN (SELECT oid FROM ns)))))
		ORDER BY a.pid`, schema)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var holders []session
	for rows.Next() {
		var s session
		var seconds float64
		if err := rows.Scan(&s.pid, &s.applicationName, &s.state, &seconds, &s.query); err != nil {
			return nil, err
		}
		s.inTransaction = time.Duration(seconds * float64(time.Second))
		holders = append(holders, s)
	}
	return holders, rows.Err()
}

// endSessions terminates the backends of sessions. They are gone a
// moment later, and with them the locks they held, which the next drop
// waits for.
func endSessions(db *sql.DB, sessions []session) error {
	pids := make([]int64, len(sessions))
	for i, s := range sessions {
		pids[i] = int64(s.pid)
	}
	_, err := db.Exec(`SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid`, pids)
	return err
}
