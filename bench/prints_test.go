package bench

import (
	"testing"
	"time"

	"github.com/platen-print/platen/bench/printseed"
	"github.com/platen-print/platen/internal/platentest"
)

// TestPrintsSuiteAgreesWithTheSeed runs every query of the prints suite
// against a real server over a small seed, on every backend: each answer
// must be the page a brute-force filter of the seed gives, so that the
// benchmark's figures are of right answers and its check can fail.
func TestPrintsSuiteAgreesWithTheSeed(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		spec := printseed.Spec{Prints: 3000, Teams: 20, StoresPerTeam: 3, Days: 90, End: time.Now(), Seed: 7}
		seeded, err := printseed.Seed(t.Context(), srv.DB().JobPool(), srv.DB().Dialect(), "seed", spec)
		if err != nil {
			t.Fatalf("seed: %v", err)
		}
		// The seed writes rows straight into the tables: their search keys
		// are written when the database is next migrated, as at a start.
		if err := srv.DB().Migrate(t.Context()); err != nil {
			t.Fatalf("migrate: %v", err)
		}
		if len(seeded.Prints) != spec.Prints {
			t.Fatalf("seeded %d prints, want %d", len(seeded.Prints), spec.Prints)
		}
		team := seeded.Teams[teamOperatorRank-1]
		staff, member := srv.Staff(t, "staff@example.com"), srv.TeamOperator(t, "member@example.com", team.ID)
		l := newPrintLister(seeded, operatorLogin{staff.Email, staff.Password, staff.Token},
			operatorLogin{member.Email, member.Password, member.Token}, team.ID)
		l.baseURL = srv.BaseURL
		onPage := map[string]int{}
		err = l.each(t.Context(), 0, 3, func(r listResult) { onPage[r.as+": "+r.name] = r.onPage })
		if err != nil {
			t.Fatal(err)
		}
		// Even this small seed gives every query something to find, but
		// the ones that must find nothing and two narrow combinations.
		for name, n := range onPage {
			switch name {
			case "staff: search, nothing matches", "team operator: search another team's reference_number":
				if n != 0 {
					t.Errorf("%s: %d prints on the page, want none", name, n)
				}
			case "staff: smallest team, failed, family A", "staff: a store in a week":
			default:
				if n == 0 {
					t.Errorf("%s: no print on the page", name)
				}
			}
		}
	})
}
