package apiexamples_test

import (
	"fmt"
	"testing"

	"github.com/platen-print/platen/internal/apiexamples"
	"github.com/platen-print/platen/internal/platentest"
)

// TestExamplesAgainstTheServer replays every example of
// docs/api-examples.md, in order, against a real server on each backend,
// with the variables the document's introduction names. That document
// shows a webhook URL on loopback refused, so its server keeps the
// default that refuses private addresses.
func TestExamplesAgainstTheServer(t *testing.T) {
	examples := readExamples(t, "api-examples.md")
	if len(examples) < 25 {
		t.Fatalf("only %d examples: the documentation lost them", len(examples))
	}
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "Acme Prints", "acme-shop")
		other := srv.Bootstrap(t, "Other Prints", "other-shop")
		staff := srv.Staff(t, "grace@example.com")
		vars := apiexamples.Vars{
			"token": acme.Token, "other_token": other.Token, "optoken": staff.Token,
			"team_id": fmt.Sprint(acme.TeamID),
		}
		r := &replayer{t: t, srv: srv, file: "api-examples.md", vars: vars}
		r.run(examples)
	})
}
