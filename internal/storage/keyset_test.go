package storage_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/designversions"
	"github.com/platen-print/platen/internal/pagination"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/storage"
)

// TestPagesAcrossEqualTimes: a list whose rows share creation times, read
// two at a time with each page's cursor, gives every row once, newest
// first and by key within a time, with no page cut inside a tie going
// wrong; another team's rows never appear.
func TestPagesAcrossEqualTimes(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		ctx := context.Background()
		db := migrated(t, b.NewDatabaseURL(t))
		older := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
		newer := older.Add(time.Microsecond)
		rows := []struct {
			team int
			id   string
			at   time.Time
		}{
			{1, "a", older}, {1, "c", older}, {1, "b", older},
			{1, "e", newer}, {1, "d", newer}, {1, "g", newer}, {1, "f", newer},
			{2, "x", older}, {2, "y", newer},
		}
		for _, r := range rows {
			if err := storage.InsertVersionAt(ctx, db, r.team, r.id, r.at); err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		var after *pagination.Cursor
		for page := 0; page < 10; page++ {
			list, more, err := db.Designs().ListVersions(ctx, designversions.Query{TeamID: 1, PageSize: 2, After: after})
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range list {
				got = append(got, v.ID)
			}
			if !more {
				break
			}
			last := list[len(list)-1]
			after = &pagination.Cursor{CreatedAt: last.CreatedAt, UID: last.ID}
		}
		if want := []string{"g", "f", "e", "d", "c", "b", "a"}; !slices.Equal(got, want) {
			t.Errorf("pages of two gave %v, want %v", got, want)
		}
	})
}
