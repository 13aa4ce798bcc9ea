// Package platentest starts real Platen servers for tests: the real gRPC
// and HTTP servers on 127.0.0.1:0, on a fresh SQLite file, and on a fresh
// PostgreSQL schema when PLATEN_TEST_POSTGRES_URL is set. Tests call them
// through the public interfaces only.
package platentest

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/operators"
	"github.com/platen-print/platen/internal/platentest/poll"
	"github.com/platen-print/platen/internal/server"
)

// PostgresEnv names the PostgreSQL server tests may use.
const PostgresEnv = "PLATEN_TEST_POSTGRES_URL"

// Backend is a database a test runs on.
type Backend struct {
	Name string
	// NewDatabaseURL returns a fresh, empty database for one server ("" for
	// SQLite, which lives in the server's data dir).
	NewDatabaseURL func(t testing.TB) string
	// postgres is the PostgreSQL server's URL; "" on SQLite.
	postgres string
}

// Backends are SQLite always, and PostgreSQL when PLATEN_TEST_POSTGRES_URL
// is set; CI sets it, so no backend is skipped there. This is the one
// place that reads the variable: tests take their databases from here
// (EachBackend), and TestPostgresConfigured says when PostgreSQL is left
// out.
func Backends() []Backend {
	list := []Backend{SQLite()}
	if base := os.Getenv(PostgresEnv); base != "" {
		list = append(list, Backend{Name: "postgres", postgres: base,
			NewDatabaseURL: func(t testing.TB) string { return FreshPostgresSchema(t, base) }})
	}
	return list
}

// SQLite is the embedded database of `platen serve`'s defaults. Behaviour
// tests run on every backend (EachBackend); a benchmark of that default
// may take this one alone.
func SQLite() Backend {
	return Backend{Name: "sqlite", NewDatabaseURL: func(testing.TB) string { return "" }}
}

// EachBackend runs fn as a subtest on every backend, the backends side
// by side: each has a server and a database of its own, and much of a
// test's time is spent waiting (on a database, a render process, a
// retry), so the two overlap well. fn must therefore not share what it
// writes with the other backend's run, nor call t.Setenv.
func EachBackend(t *testing.T, fn func(t *testing.T, b Backend)) {
	for _, b := range Backends() {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			fn(t, b)
		})
	}
}

// EachBackendInTurn is EachBackend one backend after the other, for the
// tests that measure the whole process (its goroutines, heap, peak RSS,
// latency under an attack, password hashes): the other backend's run
// would be counted in.
func EachBackendInTurn(t *testing.T, fn func(t *testing.T, b Backend)) {
	for _, b := range Backends() {
		t.Run(b.Name, func(t *testing.T) { fn(t, b) })
	}
}

// Server is a running platen serve with its database and data dir.
type Server struct {
	*server.Server
	Config  config.Config
	BaseURL string

	// jobEnded is notified whenever one of the server's jobs ends, for the
	// waits of wait.go.
	jobEnded *poll.Signal

	// What the conformance test found (conformance.go).
	conformanceStats    conformanceStats
	conformanceMu       sync.Mutex
	conformanceProblems []string
}

// Start starts a server on backend b and stops it when the test ends.
func Start(t testing.TB, b Backend) *Server {
	t.Helper()
	return StartWith(t, b, nil)
}

// StartWith is Start with the configuration changed by edit (when not nil)
// before the server starts.
func StartWith(t testing.TB, b Backend, edit func(*config.Config)) *Server {
	t.Helper()
	cfg := config.Default()
	cfg.HTTPAddr = "127.0.0.1:0"
	cfg.GRPCAddr = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	cfg.DatabaseURL = b.NewDatabaseURL(t)
	cfg.AccessLog = false
	// Render processes start at a test's first render: most tests never
	// render, and on a small machine starting four processes per server
	// took most of a test server's start.
	cfg.Render.ProcessesOnDemand = true
	if edit != nil {
		edit(&cfg)
	}
	return StartConfig(t, cfg)
}

// StartConfig starts a server with cfg and stops it when the test ends.
func StartConfig(t testing.TB, cfg config.Config) *Server {
	t.Helper()
	slog.SetDefault(slog.New(slog.NewJSONHandler(io.Discard, nil)))
	s, err := server.Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("start server: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	srv := &Server{Server: s, Config: cfg, BaseURL: "http://" + s.HTTPAddr(), jobEnded: &poll.Signal{}}
	srv.followJobs(t)
	t.Cleanup(func() {
		srv.reportConformance()
		srv.conformanceMu.Lock()
		defer srv.conformanceMu.Unlock()
		for _, p := range srv.conformanceProblems {
			t.Errorf("OpenAPI conformance: %s", p)
		}
	})
	return srv
}

// Tenant is a team with a store and a token bound to it.
type Tenant struct {
	TeamID  int
	StoreID string
	Token   string
}

// Bootstrap creates (or reuses) a team and store and issues a store-bound
// token, as `platen admin bootstrap` does.
func (s *Server) Bootstrap(t testing.TB, team, store string) Tenant {
	t.Helper()
	out, err := s.DB().Bootstrap(context.Background(), team, store, nil)
	if err != nil {
		t.Fatalf("bootstrap %s/%s: %v", team, store, err)
	}
	return Tenant{TeamID: out.TeamID, StoreID: out.StoreID, Token: out.Token}
}

// TeamToken issues a team-wide token (bound to no store).
func (s *Server) TeamToken(t testing.TB, teamID int) string {
	t.Helper()
	token, _, err := s.DB().IssueToken(context.Background(), teamID, nil, "team")
	if err != nil {
		t.Fatalf("issue team token: %v", err)
	}
	return token
}

// Staff creates a staff operator account, as `platen admin operator
// create --staff` does, with its password and operator token.
func (s *Server) Staff(t testing.TB, email string) *operators.Created {
	t.Helper()
	return s.operator(t, email, true, nil)
}

// TeamOperator creates an operator account of team, with its password and
// operator token.
func (s *Server) TeamOperator(t testing.TB, email string, team int) *operators.Created {
	t.Helper()
	return s.operator(t, email, false, &team)
}

// operator creates the account, its password hashed at the operators'
// TestCost (sign-ins check it at that cost), trying again while the process's password
// hashes are all busy (ErrPasswordsBusy): tests running side by side hash
// at once, and on a loaded machine one may wait longer than a sign-in does.
func (s *Server) operator(t testing.TB, email string, staff bool, team *int) *operators.Created {
	t.Helper()
	var created *operators.Created
	var err error
	for range 20 {
		created, err = operators.CreateAtCost(t.Context(), s.DB().Operators(), operators.TestCost, email, "", staff, team)
		if !errors.Is(err, operators.ErrPasswordsBusy) {
			break
		}
	}
	if err != nil {
		t.Fatalf("operator %s: %v", email, err)
	}
	return created
}
