package panel_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/image/font/gofont/goregular"

	"github.com/platen-print/platen/internal/platentest"
)

// upload posts a multipart form with fields and one file, as a browser
// sends the fonts page's form.
func (b *browser) upload(path string, fields map[string]string, fileField, fileName string, data []byte) (*http.Response, string) {
	b.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile(fileField, fileName)
	_, _ = fw.Write(data)
	_ = mw.Close()
	req, err := http.NewRequest("POST", b.base+path, &body)
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	var page bytes.Buffer
	_, _ = page.ReadFrom(resp.Body)
	return resp, page.String()
}

// TestAMissingFontFixedInThePanel: a print fails for a font its team does
// not have; a team's operator uploads the font on the Fonts page (a file
// that is not a font is refused there, with why and what was typed), then
// retries the print from its page, and it renders. The font's delete asks
// first, in the page.
func TestAMissingFontFixedInThePanel(t *testing.T) {
	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		id := orderWith(t, srv, acme, "1001", `{"width":50,"height":20,"layers":[{"type":"text","text":"Hello","font":"Brand Sans","size":12,"x":5,"y":5,"width":40}]}`)
		waitStatus(t, srv, member.Token, id, "processingfailed")

		br := newBrowser(t, srv.BaseURL)
		br.signIn(member.Email, member.Password)
		_, page := br.do("GET", "/operator/fonts", nil)
		csrf := csrfField.FindStringSubmatch(page)[1]
		resp, page := br.upload("/operator/fonts", map[string]string{"csrf": csrf, "name": "Brand Sans"}, "file", "brand.ttf", []byte("not a font"))
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, `class="problem" role="alert"`) || !strings.Contains(page, `value="Brand Sans"`) {
			t.Fatalf("a file that is not a font: %d\n%s", resp.StatusCode, page)
		}
		resp, _ = br.upload("/operator/fonts", map[string]string{"csrf": csrf, "name": "Brand Sans"}, "file", "brand.ttf", goregular.TTF)
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("upload: %d", resp.StatusCode)
		}
		_, page = br.do("GET", resp.Header.Get("Location"), nil)
		if !strings.Contains(page, `data-font="Brand Sans"`) || !strings.Contains(page, "The font is added") || !strings.Contains(page, "Go Regular") {
			t.Fatalf("the fonts page after the upload:\n%s", page)
		}
		if resp, _ := br.do("POST", "/operator/prints/"+id+"/retry", map[string][]string{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("retry: %d", resp.StatusCode)
		}
		waitStatus(t, srv, member.Token, id, "ready")
		if !strings.Contains(page, `<summary>Delete…</summary>`) || !strings.Contains(page, "Designs that name <code>Brand Sans</code> fail until") {
			t.Errorf("the delete does not ask first:\n%s", page)
		}
		// The print's page follows a print only while it can change: a
		// ready one's state is answered 204 while unchanged, and a page
		// that saw it rendering is told to reload.
		if resp, _ := br.do("GET", "/operator/prints/"+id+"/state?was=ready", nil); resp.StatusCode != http.StatusNoContent {
			t.Errorf("the state of a print that did not change: %d", resp.StatusCode)
		}
		if resp, _ := br.do("GET", "/operator/prints/"+id+"/state?was=rendering", nil); resp.StatusCode != http.StatusOK || resp.Header.Get("HX-Refresh") != "true" {
			t.Errorf("the state of a print that changed: %d, HX-Refresh %q", resp.StatusCode, resp.Header.Get("HX-Refresh"))
		}
		// A retry sent from a page older than the print's change: the
		// print's page again, with why.
		if resp, page := br.do("POST", "/operator/prints/"+id+"/retry", map[string][]string{"csrf": {csrf}}); resp.StatusCode != http.StatusBadRequest ||
			!strings.Contains(page, `class="problem" role="alert"`) || !strings.Contains(page, "only a failed print can be retried") || !strings.Contains(page, `data-state="ready"`) {
			t.Errorf("a retry of a ready print: %d\n%s", resp.StatusCode, page)
		}
		// A file over the limit is refused before it is read.
		if resp, page := br.upload("/operator/fonts", map[string]string{"csrf": csrf, "name": "Huge"}, "file", "huge.ttf", make([]byte, 7<<20)); resp.StatusCode != http.StatusRequestEntityTooLarge ||
			!strings.Contains(page, "The file is too large") {
			t.Errorf("a 7 MB font: %d\n%s", resp.StatusCode, page)
		}
		uid := srv.Do(t, "GET", "/api/v1/operator/fonts", member.Token, nil).Object(t)["fonts"].([]any)[0].(map[string]any)["uid"].(string)
		if resp, _ := br.do("POST", "/operator/fonts/"+uid+"/delete", map[string][]string{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("delete: %d", resp.StatusCode)
		}
		if _, page := br.do("GET", "/operator/fonts?done=deleted", nil); strings.Contains(page, `data-font="Brand Sans"`) || !strings.Contains(page, "The font is deleted") {
			t.Errorf("the fonts page after the delete:\n%s", page)
		}
	})
}
