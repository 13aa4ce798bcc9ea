package apiexamples_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/apiexamples"
	"github.com/platen-print/platen/internal/platentest"
	"github.com/platen-print/platen/internal/platentest/poll"
)

// pollWithin bounds how long a polling example waits for its value, and a
// webhook example for its delivery: renders take well under a second
// here, but two CPUs shared by the race detector and PostgreSQL make it
// seconds.
const pollWithin = 60 * time.Second

// showEnv, when set, makes the replay log every real answer: what a writer
// of the documents copies into a new example before replacing what changes
// from run to run with placeholders.
const showEnv = "PLATEN_EXAMPLES_SHOW"

// readExamples parses a document of docs/, failing the test when it has
// no examples or a fence no example explains.
func readExamples(t *testing.T, name string) []apiexamples.Exchange {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	examples, err := apiexamples.Parse(string(raw))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(examples) == 0 {
		t.Fatalf("%s has no examples", name)
	}
	return examples
}

// replayer sends a document's examples, in order, to one server, and
// checks the answers and the webhook deliveries they cause.
type replayer struct {
	t    *testing.T
	srv  *platentest.Server
	file string
	vars apiexamples.Vars
	// hooks is the webhook receiver (nil when the document has no
	// deliveries to check).
	hooks *platentest.Receiver
	// secrets are the store's signing secrets the answers showed, oldest
	// first: a delivery is signed with the newest, and with the one before
	// it during a rotation.
	secrets []string
}

// run replays every example, stopping at the first that fails: the
// examples after it build on it.
func (r *replayer) run(examples []apiexamples.Exchange) {
	for _, ex := range examples {
		where := fmt.Sprintf("%s line %d, %s %s", r.file, ex.Line, ex.Method, ex.Path)
		var err error
		if ex.Kind == apiexamples.Delivery {
			err = r.delivery(ex)
		} else {
			err = r.request(ex)
		}
		if err != nil {
			r.t.Errorf("%s: %v", where, err)
			return
		}
	}
}

// request sends one example's request (again and again while it polls)
// and checks its answer.
func (r *replayer) request(ex apiexamples.Exchange) error {
	path, body, headers, err := r.expand(ex)
	if err != nil {
		return err
	}
	var awaited string
	if ex.Poll != nil {
		// The value awaited may be one an earlier answer gave.
		if awaited, err = r.vars.Expand(ex.Poll.Value); err != nil {
			return err
		}
	}
	// An example that polls is sent again until the answer has the value
	// awaited, or is one the example does not poll for (checked below).
	var resp *platentest.Response
	if !poll.Within(pollWithin, r.srv.JobEnded(), func() bool {
		if resp, err = r.send(ex, path, body, headers); err != nil {
			return true
		}
		if os.Getenv(showEnv) != "" {
			r.t.Logf("%s line %d: %d %v\n%s", r.file, ex.Line, resp.Status, resp.Header, shown(resp))
		}
		return ex.Poll == nil || resp.Status != ex.Status || fmt.Sprint(apiexamples.At(resp.JSON, ex.Poll.Path)) == awaited
	}) {
		return fmt.Errorf("%s is still %v after %s", ex.Poll.Path, apiexamples.At(resp.JSON, ex.Poll.Path), pollWithin)
	}
	if err != nil {
		return err
	}
	if err := r.check(ex, resp); err != nil {
		return fmt.Errorf("%w\nthe answer: %d %s", err, resp.Status, resp.Raw)
	}
	r.noteSecret(resp.JSON)
	return nil
}

func (r *replayer) expand(ex apiexamples.Exchange) (path, body string, headers []string, err error) {
	if path, err = r.vars.Expand(ex.Path); err != nil {
		return
	}
	if body, err = r.vars.Expand(ex.Body); err != nil {
		return
	}
	headers = make([]string, len(ex.Headers))
	for i, h := range ex.Headers {
		if headers[i], err = r.vars.Expand(h); err != nil {
			return
		}
	}
	// A link an answer gave is the server's own URL.
	path = strings.TrimPrefix(path, r.srv.BaseURL)
	return
}

// send makes the request. An example that expects a redirect is sent by a
// client that does not follow it; every other goes through the test
// client, which also holds the exchange to the OpenAPI document.
func (r *replayer) send(ex apiexamples.Exchange, path, body string, headers []string) (*platentest.Response, error) {
	if ex.Status < 300 || ex.Status > 399 {
		var reqBody any
		if body != "" {
			reqBody = body
		}
		// The Authorization header comes from the example itself.
		return r.srv.Do(r.t, ex.Method, path, "", reqBody, headers...), nil
	}
	req, err := http.NewRequest(ex.Method, r.srv.BaseURL+path, nil)
	if err != nil {
		return nil, err
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return &platentest.Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}, err
}

// check compares an answer with the example's status, headers and body.
func (r *replayer) check(ex apiexamples.Exchange, resp *platentest.Response) error {
	if resp.Status != ex.Status {
		return fmt.Errorf("status %d, the example says %d", resp.Status, ex.Status)
	}
	if err := r.vars.MatchHeaders(ex.WantHeaders, resp.Header); err != nil {
		return err
	}
	isJSON := strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && len(resp.Raw) > 0
	switch {
	case !ex.HasAnswer && isJSON:
		return fmt.Errorf("the server answered JSON, which the example does not show")
	case !ex.HasAnswer:
		return nil
	case resp.JSON == nil:
		return fmt.Errorf("the example shows JSON; the server answered %q", resp.Header.Get("Content-Type"))
	}
	return r.vars.Match(ex.Answer, resp.JSON)
}

// noteSecret keeps a webhook endpoint's signing secret from an answer.
func (r *replayer) noteSecret(answer any) {
	obj, _ := answer.(map[string]any)
	secret, _ := obj["secret"].(string)
	if strings.HasPrefix(secret, "whsec_") && (len(r.secrets) == 0 || r.secrets[len(r.secrets)-1] != secret) {
		r.secrets = append(r.secrets, secret)
	}
}

// delivery waits for the receiver's next request and checks it against a
// webhook example, signatures included.
func (r *replayer) delivery(ex apiexamples.Exchange) error {
	if r.hooks == nil {
		return fmt.Errorf("a webhook example, but this document's replay has no receiver")
	}
	got, err := r.hooks.Next(pollWithin)
	if err != nil {
		return err
	}
	path, err := r.vars.Expand(ex.Path)
	if err != nil {
		return err
	}
	if got.Method != ex.Method || got.Path != path {
		return fmt.Errorf("the receiver got %s %s", got.Method, got.Path)
	}
	if err := r.vars.MatchHeaders(ex.WantHeaders, got.Header); err != nil {
		return fmt.Errorf("%w\nthe delivery: %v %s", err, got.Header, got.Body)
	}
	if err := r.vars.Match(ex.Answer, got.JSON()); err != nil {
		return fmt.Errorf("%w\nthe delivery: %s", err, got.Body)
	}
	return verifySignatures(r.secrets, got.Header, got.Body)
}

// verifySignatures checks a delivery's signatures as the documents tell a
// receiver to: Platen-Signature is "sha256=" and the hex HMAC-SHA256 of
// the body keyed with the whole newest secret; Platen-Signature-Previous
// the same with the previous secret during a rotation; webhook-signature
// is "v1," and the base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}"
// keyed with the base64-decoded secret after "whsec_", for each secret,
// newest first, space-separated. They are computed here, not by the
// server's code, so that a change to either is caught.
func verifySignatures(secrets []string, h http.Header, body []byte) error {
	if len(secrets) == 0 {
		return fmt.Errorf("a delivery before any answer showed the signing secret")
	}
	inUse := []string{secrets[len(secrets)-1]}
	if h.Get("Platen-Signature-Previous") != "" {
		if len(secrets) < 2 {
			return fmt.Errorf("Platen-Signature-Previous without a previous secret")
		}
		inUse = append(inUse, secrets[len(secrets)-2])
	}
	var standard []string
	for i, secret := range inUse {
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(body)
		name := []string{"Platen-Signature", "Platen-Signature-Previous"}[i]
		if got, want := h.Get(name), "sha256="+hex.EncodeToString(mac.Sum(nil)); got != want {
			return fmt.Errorf("%s %q, want %q", name, got, want)
		}
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
		if err != nil {
			return fmt.Errorf("the secret %q: %w", secret, err)
		}
		std := hmac.New(sha256.New, key)
		std.Write([]byte(h.Get("webhook-id") + "." + h.Get("webhook-timestamp") + "."))
		std.Write(body)
		standard = append(standard, "v1,"+base64.StdEncoding.EncodeToString(std.Sum(nil)))
	}
	if got, want := h.Get("webhook-signature"), strings.Join(standard, " "); got != want {
		return fmt.Errorf("webhook-signature %q, want %q", got, want)
	}
	return nil
}

// shown is an answer's body as the show mode logs it: JSON as it came,
// anything else by its size.
func shown(resp *platentest.Response) string {
	if resp.JSON == nil && len(resp.Raw) > 0 {
		return fmt.Sprintf("(%d bytes of %s)", len(resp.Raw), resp.Header.Get("Content-Type"))
	}
	return string(resp.Raw)
}
