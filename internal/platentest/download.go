package platentest

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/poppler"
)

// NoRedirect is a client that answers redirects instead of following them.
var NoRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// Get GETs u with the headers (name, value, …) and reads the whole answer.
func Get(t *testing.T, client *http.Client, u string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// Download follows a download link: 302 to the file, then the file.
func Download(t *testing.T, link string) (*http.Response, []byte) {
	t.Helper()
	resp, _ := Get(t, NoRedirect, link)
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("GET %s: %d, want 302", link, resp.StatusCode)
	}
	loc := resp.Header.Get("Location")
	if loc == "" {
		t.Fatal("302 without Location")
	}
	file, data := Get(t, http.DefaultClient, loc)
	if file.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", loc, file.StatusCode, data)
	}
	return file, data
}

// PDFInfo runs pdfinfo -box on a PDF and returns its output.
func PDFInfo(t *testing.T, data []byte) string {
	t.Helper()
	poppler.Need(t, "pdfinfo")
	path := filepath.Join(t.TempDir(), "f.pdf")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdfinfo", "-box", path).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfinfo: %v\n%s", err, out)
	}
	return string(out)
}

// PDFField returns the value of a "Name: value" line of pdfinfo's output.
func PDFField(info, name string) string {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return strings.Join(strings.Fields(v), " ")
		}
	}
	return ""
}

// CheckJSONError checks an error answer of a plain HTTP handler: its status,
// a JSON error body (see ErrorBody), and that the message says wantMessage.
func CheckJSONError(t *testing.T, resp *http.Response, body []byte, status int, wantMessage string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d: %s", resp.StatusCode, status, body)
	}
	r := &Response{Status: resp.StatusCode, Header: resp.Header, Raw: body}
	if err := json.Unmarshal(body, &r.JSON); err != nil {
		t.Fatalf("error body is not JSON: %s", body)
	}
	msg, _ := ErrorBody(t, r, status)
	if wantMessage != "" && !strings.Contains(msg, wantMessage) {
		t.Errorf("message %q, want it to say %q", msg, wantMessage)
	}
}
