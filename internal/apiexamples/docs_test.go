package apiexamples_test

// The API references in docs/ (api-family-a.md, api-family-b.md,
// operator-api.md) show exchanges with the server. TestReferenceExamples
// replays each document's examples, in order, against a fresh real server
// on every backend, and fails at the first whose real answer differs. The
// fences of those documents:
//
// A request is a ```http fence: "METHOD /path?query" (or "METHOD {{var}}"
// for a link an answer gave), header lines "Name: value", a blank line and
// a JSON body. Its info string may say "```http poll: PATH=VALUE": the
// request is sent again until the answer's value at PATH (dot-separated,
// list indexes as numbers: data.lines.0.prints.0.status) is VALUE, for at
// most pollWithin (VALUE may hold variables); prints and batches render
// in the background.
//
// Its answer follows, in one of two forms:
//
//	```json 201          the status in the info string, then the body
//	{"uid": "…"}
//	```
//
// or a response fence with the status line and the headers the answer must
// carry (other headers are not checked), then the body in a plain ```json
// fence:
//
//	```http
//	HTTP/1.1 200 OK
//	Idempotent-Replayed: true
//	```
//	```json
//	{"uid": "…"}
//	```
//
// The ```json fence may be left out only when the answer is not JSON (a
// redirect, a file). A header value "<absent>" says the header must not
// be sent.
//
// A webhook delivery is a ```http webhook fence: "POST /path", the
// headers and the JSON body the document's webhook receiver must get
// next. The test checks its signatures too, with the secrets the answers
// showed (verifySignatures).
//
// Any other fence fails the test, as does a document without examples, so
// that nothing shown goes unchecked. Answers are compared as parsed JSON:
// member order and spacing do not count, every member must be shown (or
// the object holds "…": "…", which stands for the members left out), and
// lists must have the same length. What changes from run to run is a
// placeholder: "<uid>", "<time>" (RFC 3339, UTC), "<url>", "<sha256>",
// "<token>" (plt_ or plo_), "<secret>" (whsec_), "<reference>" (a
// reference_number), "<hex>", "<base64>", "<digits>", "<string>" and, as
// whole values, "<number>" and "<any>"; in a string or a header they may
// stand for a part ("sha256=<hex>"). "{{name}}" is a variable: the first
// answer or delivery that shows it takes the value there (a whole value
// may be a number), later ones must show the same, and requests get it
// substituted. The variables every document starts with are those of
// startReference.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/font/gofont/gomono"

	"github.com/platen-print/platen/gen/openapi"
	"github.com/platen-print/platen/internal/apiexamples"
	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/iccprofile"
	"github.com/platen-print/platen/internal/platentest"
)

// referenceDocs are the API references whose examples are replayed, each
// on a server of its own so that each reads on its own.
var referenceDocs = []string{"api-family-a.md", "api-family-b.md", "operator-api.md"}

// TestReferenceExamples replays every example of the API references
// against a real server on each backend, and logs how long each took.
func TestReferenceExamples(t *testing.T) {
	docs := map[string][]apiexamples.Exchange{}
	for _, name := range referenceDocs {
		docs[name] = readExamples(t, name)
	}
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		for _, name := range referenceDocs {
			t.Run(strings.TrimSuffix(name, ".md"), func(t *testing.T) {
				start := time.Now()
				startReference(t, b, name).run(docs[name])
				t.Logf("%s: %d exchanges in %s", name, len(docs[name]), time.Since(start).Round(time.Millisecond))
			})
		}
	})
}

// startReference starts the server a document's examples run on, with
// what its introduction says the reader has: {{token}}, a client token
// bound to the store acme-shop of the team "Acme Prints" ({{team_id}});
// {{team_token}}, a team-wide token of that team; {{other_token}}, a
// token of another team's store other-shop ({{other_team_id}});
// {{optoken}}, a staff operator's token (grace@example.com);
// {{team_optoken}}, the token of an operator of Acme Prints only
// (ops@acme.example); {{receiver}}, the base URL of a webhook receiver;
// {{font_ttf}}, the base64 of a TTF file (Go Mono), and
// {{restricted_ttf}}, that of the same font marked restricted-licence
// (OS/2 fsType 0x0002); {{profile_icc}}, the base64 of a CMYK output
// profile (platentest.CMYKProfile), and {{srgb_icc}}, that of the sRGB
// display profile; and {{base_url}}, the server's own, which its
// links start with. The server may reach loopback addresses, as one started with
// --allow-private-network does, so that the receiver gets deliveries.
func startReference(t *testing.T, b platentest.Backend, name string) *replayer {
	srv := platentest.StartWith(t, b, func(c *config.Config) { c.AllowPrivateNetwork = true })
	acme := srv.Bootstrap(t, "Acme Prints", "acme-shop")
	other := srv.Bootstrap(t, "Other Prints", "other-shop")
	hooks := platentest.NewReceiver(t, platentest.Answering(http.StatusNoContent))
	vars := apiexamples.Vars{
		"token":          acme.Token,
		"team_token":     srv.TeamToken(t, acme.TeamID),
		"other_token":    other.Token,
		"optoken":        srv.Staff(t, "grace@example.com").Token,
		"team_optoken":   srv.TeamOperator(t, "ops@acme.example", acme.TeamID).Token,
		"team_id":        fmt.Sprint(acme.TeamID),
		"other_team_id":  fmt.Sprint(other.TeamID),
		"receiver":       hooks.URL,
		"base_url":       srv.BaseURL,
		"font_ttf":       base64.StdEncoding.EncodeToString(gomono.TTF),
		"restricted_ttf": base64.StdEncoding.EncodeToString(platentest.FontWithFsType(t, gomono.TTF, 0x0002)),
		"profile_icc":    base64.StdEncoding.EncodeToString(platentest.CMYKProfile(t)),
		"srgb_icc":       base64.StdEncoding.EncodeToString(iccprofile.SRGB),
	}
	return &replayer{t: t, srv: srv, file: name, vars: vars, hooks: hooks}
}

// unreferenced are the operations of the HTTP port that serve neither
// family nor operators, and that the references leave to docs/operations.md.
var unreferenced = []string{"/docs", "/docs/redoc.standalone.js", "/healthz", "/metrics", "/openapi.json", "/readyz"}

// TestReferencesCoverEveryOperation fails when an operation of the OpenAPI
// document has no example in the references, so that a new endpoint is
// documented with a real exchange.
func TestReferencesCoverEveryOperation(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	var sent []apiexamples.Exchange
	for _, name := range referenceDocs {
		sent = append(sent, readExamples(t, name)...)
	}
	for path, ops := range doc.Paths {
		if slices.Contains(unreferenced, path) {
			continue
		}
		pattern := templatePattern(path)
		for method := range ops {
			method = strings.ToUpper(method)
			if !slices.Contains([]string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch}, method) {
				continue
			}
			if !slices.ContainsFunc(sent, func(ex apiexamples.Exchange) bool { return exercises(ex, method, pattern) }) {
				t.Errorf("%s %s has no example in %s", method, path, strings.Join(referenceDocs, ", "))
			}
		}
	}
}

// templatePattern matches the paths of an OpenAPI path template; a
// parameter is one segment, or a variable of the examples.
func templatePattern(template string) *regexp.Regexp {
	expr := regexp.MustCompile(`\\\{[a-z_]+\\\}`).ReplaceAllString(regexp.QuoteMeta(template), `[^/?]+`)
	return regexp.MustCompile(`^` + expr + `(\?.*)?$`)
}

// exercises tells whether an example requests the operation.
func exercises(ex apiexamples.Exchange, method string, pattern *regexp.Regexp) bool {
	return ex.Kind == apiexamples.Request && ex.Method == method && pattern.MatchString(ex.Path)
}
