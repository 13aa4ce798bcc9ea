package storage_test

import (
	"context"
	"testing"

	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/press"
	"github.com/platen-print/platen/internal/storage"
)

// TestAllowMissingGlyphsMigrates: a database made before the
// allow_missing_glyphs press setting (its tables without the column) gains
// it, as null, when a newer process migrates it at start; the settings
// stored before read as they were, and the new one is stored and read.
func TestAllowMissingGlyphsMigrates(t *testing.T) {
	tables := []string{"teams", "product_variants", "print_templates"}
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		ctx := context.Background()
		databaseURL, dir := b.NewDatabaseURL(t), t.TempDir()
		open := func() *storage.DB {
			t.Helper()
			db, err := storage.Open(databaseURL, dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Migrate(ctx); err != nil {
				db.Close()
				t.Fatal(err)
			}
			return db
		}
		db := open()
		team, err := db.CreateTeam(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		spot := "Thru-cut"
		if _, err := db.Press().UpdateTeamSettings(ctx, team.ID, func(s *press.Settings) error { s.CutContourSpot = &spot; return nil }); err != nil {
			t.Fatal(err)
		}
		for _, table := range tables { // as the database of an older release
			if _, err := db.JobPool().ExecContext(ctx, "ALTER TABLE "+table+" DROP COLUMN allow_missing_glyphs"); err != nil {
				t.Fatalf("%s: %v", table, err)
			}
		}
		db.Close()

		db = open()
		defer db.Close()
		for _, table := range tables {
			var n int
			if err := db.JobPool().QueryRowContext(ctx, "SELECT count(*) FROM "+table+" WHERE allow_missing_glyphs IS NOT NULL").Scan(&n); err != nil || n != 0 {
				t.Errorf("%s after the migration: %d rows set, %v", table, n, err)
			}
		}
		got, err := db.Press().TeamSettings(ctx, team.ID)
		if err != nil || got.CutContourSpot == nil || *got.CutContourSpot != spot || got.AllowMissingGlyphs != nil {
			t.Fatalf("the team's default after the migration: %+v, %v; want its spot and allow_missing_glyphs unset", got, err)
		}
		allow := true
		if _, err := db.Press().UpdateTeamSettings(ctx, team.ID, func(s *press.Settings) error { s.AllowMissingGlyphs = &allow; return nil }); err != nil {
			t.Fatal(err)
		}
		if got, err := db.Press().TeamSettings(ctx, team.ID); err != nil || got.AllowMissingGlyphs == nil || !*got.AllowMissingGlyphs || *got.CutContourSpot != spot {
			t.Errorf("the team's default set after the migration: %+v, %v", got, err)
		}
	})
}
