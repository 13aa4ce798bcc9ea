package queue_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/riverqueue/river"

	"github.com/platen-print/platen/internal/queue"
)

type teamArgs struct {
	TeamID int `json:"team_id"`
}

func (teamArgs) Kind() string { return "test_team" }

// TestCountTeamJobs: a team's unfinished jobs are counted up to the bound
// asked for, by the index on the team (not by reading every job the queue
// keeps), and only that team's jobs of that queue count.
func TestCountTeamJobs(t *testing.T) {
	for dialect, db := range databases(t) {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			if err := queue.Migrate(ctx, db, dialect); err != nil {
				t.Fatal(err)
			}
			// An inserter: no job runs, so every one stays unfinished.
			q, err := queue.New(db, dialect, nil, queue.Config{})
			if err != nil {
				t.Fatal(err)
			}
			for range 70 {
				insert(t, db, q, teamArgs{TeamID: 1}, &river.InsertOpts{Queue: "renders"})
			}
			for range 3 {
				insert(t, db, q, teamArgs{TeamID: 2}, &river.InsertOpts{Queue: "renders"})
			}
			insert(t, db, q, teamArgs{TeamID: 2}, &river.InsertOpts{Queue: "other"})
			for team, want := range map[int]int{1: 64, 2: 3, 3: 0} {
				if got := countTeam(t, db, q, team, 64); got != want {
					t.Errorf("team %d: %d jobs counted up to 64, want %d", team, got, want)
				}
			}
			if got := countTeam(t, db, q, 1, 100); got != 70 {
				t.Errorf("team 1: %d jobs counted up to 100, want 70", got)
			}
			if plan := teamCountPlan(t, db, dialect); !strings.Contains(plan, "platen_river_job_team") {
				t.Errorf("the team count does not use the team index; its plan:\n%s", plan)
			}
		})
	}
}

func countTeam(t *testing.T, db *sql.DB, q *queue.Queue, team, upTo int) int {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	n, err := q.CountTeamJobs(context.Background(), tx, "renders", team, upTo)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// teamCountPlan is the database's plan for the query CountTeamJobs runs
// (as the SQL statement log would show it), with sequential scans
// discouraged on PostgreSQL: with a few rows it would rightly prefer one.
func teamCountPlan(t *testing.T, db *sql.DB, dialect string) string {
	t.Helper()
	query := `EXPLAIN QUERY PLAN SELECT 1 FROM river_job WHERE queue = 'renders'
		AND json_extract(CAST(args AS TEXT), '$.team_id') = 1
		AND state IN ('available', 'pending', 'retryable', 'running', 'scheduled') LIMIT 64`
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if dialect == "postgres" {
		if _, err := tx.Exec(`SET LOCAL enable_seqscan = off`); err != nil {
			t.Fatal(err)
		}
		query = `EXPLAIN SELECT 1 FROM river_job WHERE queue = 'renders'
			AND args->>'team_id' = '1'
			AND state IN ('available', 'pending', 'retryable', 'running', 'scheduled') LIMIT 64`
	}
	rows, err := tx.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var plan strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&plan, vals...)
	}
	return plan.String()
}
