package apiexamples_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/apiexamples"
	"github.com/platen-print/platen/internal/platentest"
)

// examplesFile is the documentation whose examples the test replays.
var examplesFile = filepath.Join("..", "..", "docs", "api-examples.md")

// pollFor bounds how long a polling example waits for its value.
const pollFor = 30 * time.Second

// TestExamplesAgainstTheServer replays every example of
// docs/api-examples.md, in order, against a real server on each backend,
// with the variables the document's introduction names.
func TestExamplesAgainstTheServer(t *testing.T) {
	raw, err := os.ReadFile(examplesFile)
	if err != nil {
		t.Fatal(err)
	}
	examples, err := apiexamples.Parse(string(raw))
	if err != nil {
		t.Fatal(err)
	}
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
		for _, ex := range examples {
			if !replay(t, srv, ex, vars) {
				return // the examples after it build on it
			}
		}
	})
}

// replay sends one example and checks its answer; it reports whether the
// example held.
func replay(t *testing.T, srv *platentest.Server, ex apiexamples.Exchange, vars apiexamples.Vars) bool {
	t.Helper()
	where := fmt.Sprintf("%s line %d, %s %s", filepath.Base(examplesFile), ex.Line, ex.Method, ex.Path)
	path, err1 := vars.Expand(ex.Path)
	body, err2 := vars.Expand(ex.Body)
	headers := make([]string, len(ex.Headers))
	var err3 error
	for i, h := range ex.Headers {
		if headers[i], err3 = vars.Expand(h); err3 != nil {
			break
		}
	}
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			t.Errorf("%s: %v", where, err)
			return false
		}
	}
	var reqBody any
	if body != "" {
		reqBody = body
	}
	deadline := time.Now().Add(pollFor)
	for {
		// The Authorization header comes from the example itself.
		r := srv.Do(t, ex.Method, path, "", reqBody, headers...)
		if ex.Poll != nil && fmt.Sprint(apiexamples.At(r.JSON, ex.Poll.Path)) != ex.Poll.Value && r.Status == ex.Status {
			if time.Now().After(deadline) {
				t.Errorf("%s: %s is still %v after %s", where, ex.Poll.Path, apiexamples.At(r.JSON, ex.Poll.Path), pollFor)
				return false
			}
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if r.Status != ex.Status {
			t.Errorf("%s: status %d, the example says %d: %s", where, r.Status, ex.Status, r.Raw)
			return false
		}
		if ex.Answer == nil {
			if len(r.Raw) > 0 && r.Status != http.StatusNoContent {
				t.Errorf("%s: the example shows no body; the server answered %s", where, r.Raw)
				return false
			}
			return true
		}
		if err := vars.Match(ex.Answer, r.JSON); err != nil {
			t.Errorf("%s: %v\nthe answer: %s", where, err, r.Raw)
			return false
		}
		return true
	}
}
