package files

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const pdfKey = "prints/7/0b7e5f7e-8a51-4a4e-9d8f-1c2b3a4d5e6f/1.pdf"

var testSecret = bytes.Repeat([]byte("s"), MinSecretSize)

// printFile is a stand-in PDF whose bytes differ along its length, so a
// wrong range shows.
func printFile() []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	for i := 0; b.Len() < 4000; i++ {
		fmt.Fprintf(&b, "%% line %05d\n", i)
	}
	return b.Bytes()
}

// local is a fileblob store in a temporary directory, served by its Handler
// on 127.0.0.1 at the public URL it signs for.
type local struct {
	*Store
	srv  *httptest.Server
	dir  string
	skew atomic.Int64 // added to the handler's clock
}

func newLocal(t *testing.T) *local {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	publicURL := "http://" + srv.Listener.Addr().String()
	dir := filepath.Join(t.TempDir(), "files")
	store, err := Open(context.Background(), "file://"+dir, publicURL, testSecret)
	if err != nil {
		t.Fatal(err)
	}
	l := &local{Store: store, srv: srv, dir: dir}
	store.now = func() time.Time { return time.Now().Add(time.Duration(l.skew.Load())) }
	mux := http.NewServeMux()
	mux.Handle(PathPrefix, store.Handler())
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		_ = store.Close()
	})
	return l
}

// put stores data and checks the digest Put answers: its size and SHA-256.
func put(t *testing.T, s *Store, key string, data []byte, contentType string) Digest {
	t.Helper()
	d, err := s.Put(context.Background(), key, bytes.NewReader(data), contentType)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if want := (Digest{Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}); d != want {
		t.Fatalf("Put answered %+v, want %+v", d, want)
	}
	return d
}

func signedURL(t *testing.T, s *Store, key, filename string, ttl time.Duration) string {
	t.Helper()
	u, err := s.SignedURL(context.Background(), key, filename, ttl)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// fetch sends method to u with the given headers and returns the response
// with its body read.
func fetch(t *testing.T, method, u string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func quotedMD5(b []byte) string {
	sum := md5.Sum(b)
	return `"` + hex.EncodeToString(sum[:]) + `"`
}

func TestLocalDownload(t *testing.T) {
	l := newLocal(t)
	data := printFile()
	put(t, l.Store, pdfKey, data, "application/pdf")
	u := signedURL(t, l.Store, pdfKey, "order-1001 card.pdf", time.Hour)
	if want := l.srv.URL + "/files/" + pdfKey + "?"; !strings.HasPrefix(u, want) {
		t.Fatalf("signed URL %s does not start with %s", u, want)
	}

	t.Run("GET", func(t *testing.T) {
		resp, body := fetch(t, http.MethodGet, u)
		if resp.StatusCode != http.StatusOK || !bytes.Equal(body, data) {
			t.Fatalf("status %d, %d bytes", resp.StatusCode, len(body))
		}
		for name, want := range map[string]string{
			"Content-Type":        "application/pdf",
			"Content-Disposition": `attachment; filename="order-1001 card.pdf"`,
			"ETag":                quotedMD5(data),
			"Accept-Ranges":       "bytes",
			"Content-Length":      fmt.Sprint(len(data)),
		} {
			if got := resp.Header.Get(name); got != want {
				t.Errorf("%s: %q, want %q", name, got, want)
			}
		}
		if _, err := http.ParseTime(resp.Header.Get("Last-Modified")); err != nil {
			t.Errorf("Last-Modified: %v", err)
		}
	})
	t.Run("Range", func(t *testing.T) {
		resp, body := fetch(t, http.MethodGet, u, "Range", "bytes=100-149")
		if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, data[100:150]) {
			t.Fatalf("status %d, body %q", resp.StatusCode, body)
		}
		if got, want := resp.Header.Get("Content-Range"), fmt.Sprintf("bytes 100-149/%d", len(data)); got != want {
			t.Errorf("Content-Range %q, want %q", got, want)
		}
		resp, body = fetch(t, http.MethodGet, u, "Range", "bytes=-10")
		if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, data[len(data)-10:]) {
			t.Errorf("suffix range: status %d, body %q", resp.StatusCode, body)
		}
	})
	t.Run("If-None-Match", func(t *testing.T) {
		resp, body := fetch(t, http.MethodGet, u, "If-None-Match", quotedMD5(data))
		if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
			t.Fatalf("status %d, %d bytes", resp.StatusCode, len(body))
		}
		resp, _ = fetch(t, http.MethodGet, u, "If-None-Match", `"something-else"`)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("another ETag: status %d", resp.StatusCode)
		}
	})
	t.Run("HEAD", func(t *testing.T) {
		resp, body := fetch(t, http.MethodHead, u)
		if resp.StatusCode != http.StatusOK || len(body) != 0 || resp.ContentLength != int64(len(data)) {
			t.Fatalf("status %d, length %d, %d bytes", resp.StatusCode, resp.ContentLength, len(body))
		}
		if resp.Header.Get("ETag") != quotedMD5(data) || resp.Header.Get("Content-Type") != "application/pdf" {
			t.Errorf("headers %v", resp.Header)
		}
	})
}

// apiError reads the API's JSON error body.
func apiError(t *testing.T, resp *http.Response, body []byte) (code int, message string) {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	var e struct {
		Code    *int            `json:"code"`
		Message string          `json:"message"`
		Details json.RawMessage `json:"details"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Code == nil || e.Message == "" || string(e.Details) != "[]" {
		t.Fatalf("error body %s (%v)", body, err)
	}
	return *e.Code, e.Message
}

func TestLocalRefusals(t *testing.T) {
	l := newLocal(t)
	put(t, l.Store, pdfKey, printFile(), "application/pdf")
	const otherKey = "prints/8/ffffffff-8a51-4a4e-9d8f-1c2b3a4d5e6f/1.pdf"
	put(t, l.Store, otherKey, []byte("another team's file"), "application/pdf")
	good := signedURL(t, l.Store, pdfKey, "card.pdf", time.Hour)
	edit := func(f func(u *url.URL, q url.Values)) string {
		u, _ := url.Parse(good)
		q := u.Query()
		f(u, q)
		u.RawQuery = q.Encode()
		return u.String()
	}
	flip := func(s string) string {
		if s[0] == 'A' {
			return "B" + s[1:]
		}
		return "A" + s[1:]
	}

	forbidden := []struct {
		name, url, says string
	}{
		{"signature altered", edit(func(_ *url.URL, q url.Values) { q.Set("signature", flip(q.Get("signature"))) }), "signature"},
		{"filename altered", edit(func(_ *url.URL, q url.Values) { q.Set("filename", "card.exe") }), "signature"},
		{"key altered", edit(func(u *url.URL, _ url.Values) { u.Path = "/files/" + otherKey }), "signature"},
		{"expiry extended", edit(func(_ *url.URL, q url.Values) { q.Set("expiry", fmt.Sprint(time.Now().Add(48*time.Hour).Unix())) }), "signature"},
		{"method changed", edit(func(_ *url.URL, q url.Values) { q.Set("method", http.MethodPut) }), "malformed"},
		{"signature missing", edit(func(_ *url.URL, q url.Values) { q.Del("signature") }), "malformed"},
		{"expiry missing", edit(func(_ *url.URL, q url.Values) { q.Del("expiry") }), "malformed"},
		{"no query", strings.Split(good, "?")[0], "malformed"},
		{"ttl of 1ns", signedURL(t, l.Store, pdfKey, "card.pdf", time.Nanosecond), "expired at"},
	}
	for _, tc := range forbidden {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := fetch(t, http.MethodGet, tc.url)
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			if code, message := apiError(t, resp, body); code != 7 || !strings.Contains(message, tc.says) {
				t.Errorf("code %d, message %q, want it to say %q", code, message, tc.says)
			}
		})
	}

	t.Run("expired by the clock", func(t *testing.T) {
		if resp, _ := fetch(t, http.MethodGet, good); resp.StatusCode != http.StatusOK {
			t.Fatalf("before expiry: status %d", resp.StatusCode)
		}
		l.skew.Store(int64(time.Hour + time.Second))
		defer l.skew.Store(0)
		resp, body := fetch(t, http.MethodGet, good)
		if code, message := apiError(t, resp, body); resp.StatusCode != http.StatusForbidden || code != 7 || !strings.Contains(message, "expired at") {
			t.Errorf("status %d, code %d, message %q", resp.StatusCode, code, message)
		}
	})

	notFound := map[string]string{
		"missing file":    signedURL(t, l.Store, "prints/7/none/1.pdf", "x.pdf", time.Hour),
		"outside /files/": l.srv.URL + "/files",
		"bad key":         l.srv.URL + "/files/prints%5C1.pdf?expiry=1&method=GET&signature=x",
	}
	for name, u := range notFound {
		t.Run(name, func(t *testing.T) {
			resp, body := fetch(t, http.MethodGet, u)
			if code, _ := apiError(t, resp, body); resp.StatusCode != http.StatusNotFound || code != 5 {
				t.Errorf("status %d, code %d", resp.StatusCode, code)
			}
		})
	}

	t.Run("POST", func(t *testing.T) {
		resp, body := fetch(t, http.MethodPost, good)
		if code, _ := apiError(t, resp, body); resp.StatusCode != http.StatusMethodNotAllowed || code != 12 || resp.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("status %d, code %d, Allow %q", resp.StatusCode, code, resp.Header.Get("Allow"))
		}
	})
}

func TestFilenames(t *testing.T) {
	l := newLocal(t)
	put(t, l.Store, pdfKey, []byte("%PDF-1.7"), "application/pdf")
	cases := []struct{ given, want string }{
		{"Geburtstag für Ada.pdf", "Geburtstag für Ada.pdf"},
		{"../../etc/passwd", ".._.._etc_passwd"},
		{`say "hi"\n.pdf`, "say _hi__n.pdf"},
		{"line\r\nbreak.pdf", "linebreak.pdf"},
		{"", "1.pdf"},
		{"..", "1.pdf"},
	}
	for _, tc := range cases {
		t.Run(tc.given, func(t *testing.T) {
			resp, _ := fetch(t, http.MethodGet, signedURL(t, l.Store, pdfKey, tc.given, time.Hour))
			cd := resp.Header.Get("Content-Disposition")
			disposition, params, err := mime.ParseMediaType(cd)
			if err != nil || disposition != "attachment" || params["filename"] != tc.want {
				t.Errorf("Content-Disposition %q parses to %q %v (%v), want filename %q", cd, disposition, params, err, tc.want)
			}
		})
	}
}

func TestKeys(t *testing.T) {
	l := newLocal(t)
	ctx := context.Background()
	bad := []string{"", "/prints/1.pdf", "prints/../1.pdf", "..", "prints/./1.pdf", "prints//1.pdf", "prints/",
		`prints\1.pdf`, "prints/1.pdf\x00", "prints/\n1.pdf", "prints/1.pdf.attrs", "\xff.pdf", strings.Repeat("a", maxKeyLen+1)}
	for _, key := range bad {
		if _, err := l.Put(ctx, key, strings.NewReader("x"), "text/plain"); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Put(%q): %v", key, err)
		}
		if _, err := l.SignedURL(ctx, key, "x", time.Hour); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("SignedURL(%q): %v", key, err)
		}
		if _, err := l.Exists(ctx, key); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Exists(%q): %v", key, err)
		}
		if err := l.Delete(ctx, key); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Delete(%q): %v", key, err)
		}
	}
	for _, key := range []string{pdfKey, "batches/3/sheet..2.pdf", "a", "prints/7/uid/front side #1 (ß).png"} {
		put(t, l.Store, key, []byte("ok"), "text/plain")
		resp, body := fetch(t, http.MethodGet, signedURL(t, l.Store, key, "", time.Hour))
		if resp.StatusCode != http.StatusOK || string(body) != "ok" {
			t.Errorf("key %q: status %d, body %q", key, resp.StatusCode, body)
		}
	}
}

func TestSignedURLLifetime(t *testing.T) {
	l := newLocal(t)
	for _, ttl := range []time.Duration{0, -time.Second, MaxTTL + time.Second} {
		if _, err := l.SignedURL(context.Background(), pdfKey, "x.pdf", ttl); err == nil {
			t.Errorf("ttl %v accepted", ttl)
		}
	}
}

func TestOpenRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cases := map[string]struct {
		blobURL, publicURL string
		secret             []byte
	}{
		"unknown scheme":      {"gs://prints", "http://127.0.0.1:8080", testSecret},
		"file url with host":  {"file://data/files", "http://127.0.0.1:8080", testSecret},
		"short secret":        {"file://" + dir, "http://127.0.0.1:8080", testSecret[:31]},
		"no public url":       {"file://" + dir, "", testSecret},
		"public url no http":  {"file://" + dir, "ftp://example.com", testSecret},
		"public url query":    {"file://" + dir, "http://example.com/?a=b", testSecret},
		"unknown file option": {"file://" + dir + "?colour=blue", "http://example.com", testSecret},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if s, err := Open(ctx, tc.blobURL, tc.publicURL, tc.secret); err == nil {
				_ = s.Close()
				t.Fatal("opened")
			}
		})
	}
}

func TestPublicURLWithPath(t *testing.T) {
	store, err := Open(context.Background(), "file://"+t.TempDir(), "https://example.com/platen/", testSecret)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = store.Close() }()
	u := signedURL(t, store, pdfKey, "", time.Hour)
	if want := "https://example.com/platen/files/" + pdfKey + "?"; !strings.HasPrefix(u, want) {
		t.Fatalf("%s does not start with %s", u, want)
	}
	put(t, store, pdfKey, []byte("ok"), "text/plain")
	// The handler accepts the path as sent and as a prefix-stripping proxy forwards it.
	for _, path := range []string{"/platen/files/", "/files/"} {
		req := httptest.NewRequest(http.MethodGet, strings.Replace(u, "https://example.com/platen/files/", path, 1), nil)
		rec := httptest.NewRecorder()
		store.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || rec.Body.String() != "ok" {
			t.Errorf("%s: status %d, body %q", path, rec.Code, rec.Body)
		}
	}
}

// digestOf is the RFC 9530 field value of b's SHA-256, computed here.
func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
}

// TestLocalDigest: a URL signed with the file's digest answers it as
// RFC 9530 fields. A 200 sends Content-Digest (the content is the whole
// file) and Repr-Digest, both the SHA-256 of the bytes received; a 206
// sends Repr-Digest of the whole file only (its content is the range); a
// HEAD has no content, so Repr-Digest only; a 304 or 416 neither. The
// digest is signed: altered or removed, the URL is refused. A URL without
// one (a file stored before digests were kept) answers without them.
func TestLocalDigest(t *testing.T) {
	l := newLocal(t)
	data := printFile()
	d := put(t, l.Store, pdfKey, data, "application/pdf")
	u, err := l.SignedDigestURL(context.Background(), pdfKey, "card.pdf", d.SHA256, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	whole := digestOf(data)

	t.Run("GET", func(t *testing.T) {
		resp, body := fetch(t, http.MethodGet, u)
		if resp.StatusCode != http.StatusOK || !bytes.Equal(body, data) {
			t.Fatalf("status %d, %d bytes", resp.StatusCode, len(body))
		}
		if got := resp.Header.Get("Content-Digest"); got != digestOf(body) || got != whole {
			t.Errorf("Content-Digest %q, want the body's %q", got, digestOf(body))
		}
		if got := resp.Header.Get("Repr-Digest"); got != whole {
			t.Errorf("Repr-Digest %q, want %q", got, whole)
		}
	})
	t.Run("Range", func(t *testing.T) {
		for _, r := range []string{"bytes=100-149", "bytes=-10", "bytes=0-9,20-29"} {
			resp, body := fetch(t, http.MethodGet, u, "Range", r)
			if resp.StatusCode != http.StatusPartialContent || len(body) == 0 {
				t.Fatalf("%s: status %d", r, resp.StatusCode)
			}
			if got := resp.Header.Get("Repr-Digest"); got != whole {
				t.Errorf("%s: Repr-Digest %q, want the whole file's %q", r, got, whole)
			}
			if got := resp.Header.Values("Content-Digest"); got != nil {
				t.Errorf("%s: Content-Digest %q on a 206", r, got)
			}
		}
	})
	t.Run("HEAD", func(t *testing.T) {
		resp, _ := fetch(t, http.MethodHead, u)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Repr-Digest") != whole || resp.Header.Values("Content-Digest") != nil {
			t.Errorf("status %d, Repr-Digest %q, Content-Digest %q", resp.StatusCode, resp.Header.Get("Repr-Digest"), resp.Header.Values("Content-Digest"))
		}
	})
	t.Run("no body, no digest", func(t *testing.T) {
		for _, h := range [][]string{{"If-None-Match", quotedMD5(data)}, {"Range", "bytes=99999-"}} {
			resp, _ := fetch(t, http.MethodGet, u, h...)
			if resp.StatusCode != http.StatusNotModified && resp.StatusCode != http.StatusRequestedRangeNotSatisfiable {
				t.Fatalf("%v: status %d", h, resp.StatusCode)
			}
			if resp.Header.Values("Repr-Digest") != nil || resp.Header.Values("Content-Digest") != nil {
				t.Errorf("%v: status %d with digests %v", h, resp.StatusCode, resp.Header)
			}
		}
	})
	t.Run("signed", func(t *testing.T) {
		other := strings.Repeat("0", 64)
		for name, tc := range map[string]struct{ url, says string }{
			"altered":   {strings.Replace(u, "sha256="+d.SHA256, "sha256="+other, 1), "signature"},
			"removed":   {strings.Replace(u, "&sha256="+d.SHA256, "", 1), "signature"},
			"malformed": {strings.Replace(u, "sha256="+d.SHA256, "sha256=xyz", 1), "malformed"},
		} {
			if tc.url == u {
				t.Fatalf("%s: the URL %s has no sha256 to change", name, u)
			}
			resp, body := fetch(t, http.MethodGet, tc.url)
			if code, message := apiError(t, resp, body); resp.StatusCode != http.StatusForbidden || code != 7 || !strings.Contains(message, tc.says) {
				t.Errorf("%s: status %d, %q", name, resp.StatusCode, message)
			}
		}
		if _, err := l.SignedDigestURL(context.Background(), pdfKey, "card.pdf", strings.ToUpper(d.SHA256), time.Hour); err == nil {
			t.Error("signed a digest that is not lowercase hex")
		}
	})
	t.Run("unknown digest", func(t *testing.T) {
		resp, body := fetch(t, http.MethodGet, signedURL(t, l.Store, pdfKey, "card.pdf", time.Hour))
		if resp.StatusCode != http.StatusOK || !bytes.Equal(body, data) {
			t.Fatalf("status %d", resp.StatusCode)
		}
		if resp.Header.Values("Repr-Digest") != nil || resp.Header.Values("Content-Digest") != nil {
			t.Errorf("digests without one signed: %v", resp.Header)
		}
	})
}

// TestDeletePrefix: a render job's files go, on both stores, and nothing
// else does: not another job's whose id begins with the same digits, not
// another print's.
func TestDeletePrefix(t *testing.T) {
	for name, store := range map[string]*Store{"local": newLocal(t).Store, "s3": newS3(t)} {
		t.Run(name, func(t *testing.T) {
			gone := []string{"shop/R1/p1-1-1.pdf", "shop/R1/p1-1-2.pdf"}
			kept := []string{"shop/R1/p1-12-1.pdf", "shop/R1/p10-1-1.pdf", "shop/R2/p1-1-1.pdf"}
			for _, key := range append(slices.Clone(gone), kept...) {
				put(t, store, key, []byte("%PDF-1.7 "+key), "application/pdf")
			}
			if err := store.DeletePrefix(t.Context(), "shop/R1/p1-1-"); err != nil {
				t.Fatal(err)
			}
			if err := store.DeletePrefix(t.Context(), "shop/R1/p1-1-"); err != nil {
				t.Fatalf("again, with nothing left: %v", err)
			}
			for _, key := range gone {
				if ok, err := store.Exists(t.Context(), key); err != nil || ok {
					t.Errorf("%s: exists %v (%v), want removed", key, ok, err)
				}
			}
			for _, key := range kept {
				if ok, err := store.Exists(t.Context(), key); err != nil || !ok {
					t.Errorf("%s: exists %v (%v), want kept", key, ok, err)
				}
			}
			for _, prefix := range []string{"", "shop", "/shop/", "../x/"} {
				if err := store.DeletePrefix(t.Context(), prefix); err == nil {
					t.Errorf("DeletePrefix(%q) took it", prefix)
				}
			}
		})
	}
}
