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

// TestTeamBacklog: a team's unfinished jobs are counted up to the bound
// asked for, by the index on the team (not by reading every job the queue
// keeps), only that team's jobs of that queue count, and the last
// priority among them is read.
func TestTeamBacklog(t *testing.T) {
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
			for _, priority := range []int{1, 3, 2} {
				insert(t, db, q, teamArgs{TeamID: 2}, &river.InsertOpts{Queue: "renders", Priority: priority})
			}
			insert(t, db, q, teamArgs{TeamID: 2}, &river.InsertOpts{Queue: "other", Priority: 4})
			for team, want := range map[int]queue.Backlog{1: {Jobs: 64, LastPriority: 1}, 2: {Jobs: 3, LastPriority: 3}, 3: {}} {
				if got := teamBacklog(t, db, q, team, 64); got != want {
					t.Errorf("team %d: backlog up to 64 %+v, want %+v", team, got, want)
				}
			}
			if got := teamBacklog(t, db, q, 1, 100); got.Jobs != 70 {
				t.Errorf("team 1: %d jobs counted up to 100, want 70", got.Jobs)
			}
			if plan := teamCountPlan(t, db, dialect); !strings.Contains(plan, "platen_river_job_team") {
				t.Errorf("the team count does not use the team index; its plan:\n%s", plan)
			}
		})
	}
}

func teamBacklog(t *testing.T, db *sql.DB, q *queue.Queue, team, upTo int) queue.Backlog {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	b, err := q.TeamBacklog(context.Background(), tx, "renders", team, upTo)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// teamCountPlan is the database's plan for the query TeamBacklog runs
// (as the SQL statement log would show it), with sequential scans
// discouraged on PostgreSQL: with a few rows it would rightly prefer one.
func teamCountPlan(t *testing.T, db *sql.DB, dialect string) string {
	t.Helper()
	query := `EXPLAIN QUERY PLAN SELECT priority FROM river_job WHERE queue = 'renders'
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
		query = `EXPLAIN SELECT priority FROM river_job WHERE queue = 'renders'
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
