package files

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/fakes3"
)

func newS3(t *testing.T) *Store {
	t.Helper()
	store, err := Open(context.Background(), fakes3.Start(t, "prints"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	return store
}

func TestS3Download(t *testing.T) {
	store := newS3(t)
	data := printFile()
	put(t, store, pdfKey, data, "application/pdf")
	u := signedURL(t, store, pdfKey, "order-1001 card.pdf", time.Hour)
	if !strings.HasPrefix(u, "http://127.0.0.1:") || !strings.Contains(u, "/prints/"+pdfKey+"?") || !strings.Contains(u, "X-Amz-Signature=") {
		t.Fatalf("presigned URL %s", u)
	}

	t.Run("GET", func(t *testing.T) {
		resp, body := fetch(t, http.MethodGet, u)
		if resp.StatusCode != http.StatusOK || !bytes.Equal(body, data) {
			t.Fatalf("status %d, %d bytes: %.200s", resp.StatusCode, len(body), body)
		}
		for name, want := range map[string]string{
			"Content-Type":        "application/pdf",
			"Content-Disposition": `attachment; filename="order-1001 card.pdf"`,
			"ETag":                quotedMD5(data),
		} {
			if got := resp.Header.Get(name); got != want {
				t.Errorf("%s: %q, want %q", name, got, want)
			}
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
	})
	t.Run("If-None-Match", func(t *testing.T) {
		resp, body := fetch(t, http.MethodGet, u, "If-None-Match", quotedMD5(data))
		if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
			t.Fatalf("status %d, %d bytes", resp.StatusCode, len(body))
		}
	})
	t.Run("non-ASCII filename", func(t *testing.T) {
		resp, _ := fetch(t, http.MethodGet, signedURL(t, store, pdfKey, "Karte für Ada.pdf", time.Hour))
		want := `attachment; filename="Karte f_r Ada.pdf"; filename*=UTF-8''Karte%20f%C3%BCr%20Ada.pdf`
		if got := resp.Header.Get("Content-Disposition"); got != want {
			t.Errorf("Content-Disposition %q, want %q", got, want)
		}
	})
	t.Run("Handler", func(t *testing.T) {
		rec := httptest.NewRecorder()
		store.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/files/"+pdfKey, nil))
		if rec.Code != http.StatusNotFound {
			t.Errorf("an S3 store's handler answered %d", rec.Code)
		}
	})
}

func TestS3MissingBucket(t *testing.T) {
	blobURL := strings.Replace(fakes3.Start(t, "prints"), "s3://prints?", "s3://elsewhere?", 1)
	if s, err := Open(context.Background(), blobURL, "", nil); err == nil {
		_ = s.Close()
		t.Fatal("opened a bucket that does not exist")
	}
}

// TestS3UploadChecksum: an upload asks S3 to check and keep the file's
// SHA-256 (x-amz-checksum-sha256, the digest Put answers); with
// request_checksum_calculation=when_required, for services that refuse
// checksums, it sends none.
func TestS3UploadChecksum(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  bool
	}{{"", true}, {"&request_checksum_calculation=when_required", false}} {
		t.Run("checksum "+fmt.Sprint(tc.want), func(t *testing.T) {
			var mu sync.Mutex
			var puts []http.Header
			blobURL := fakes3.StartObserved(t, "prints", func(method, path string, h http.Header) {
				if method == http.MethodPut && strings.HasSuffix(path, "/"+pdfKey) {
					mu.Lock()
					puts = append(puts, h)
					mu.Unlock()
				}
			})
			store, err := Open(context.Background(), blobURL+tc.query, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = store.Close() })
			data := printFile()
			d := put(t, store, pdfKey, data, "application/pdf")
			if got := readAll(t, store, pdfKey); !bytes.Equal(got, data) {
				t.Fatalf("S3 holds %d bytes, want the %d sent", len(got), len(data))
			}
			mu.Lock()
			defer mu.Unlock()
			if len(puts) != 1 {
				t.Fatalf("%d uploads", len(puts))
			}
			raw, _ := hex.DecodeString(d.SHA256)
			sent := puts[0].Get("X-Amz-Checksum-Sha256")
			if tc.want && sent != base64.StdEncoding.EncodeToString(raw) {
				t.Errorf("x-amz-checksum-sha256 %q, want %q; headers %v", sent, base64.StdEncoding.EncodeToString(raw), puts[0])
			}
			if !tc.want && sent != "" {
				t.Errorf("x-amz-checksum-sha256 %q with when_required", sent)
			}
		})
	}
}

// TestS3PausedServerTimesOut: an S3 server that holds requests open
// without answering (paused, partitioned) fails each call at its deadline
// instead of holding it for ever; once it answers again, calls succeed.
func TestS3PausedServerTimesOut(t *testing.T) {
	defer func(put, call time.Duration) { putTimeout, callTimeout = put, call }(putTimeout, callTimeout)
	putTimeout, callTimeout = 2*time.Second, time.Second
	blobURL, outage := fakes3.StartWithOutage(t, "prints")
	store, err := Open(context.Background(), blobURL, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	if _, err := store.Put(ctx, "a.pdf", strings.NewReader("%PDF-1.6 before"), "application/pdf"); err != nil {
		t.Fatal(err)
	}
	outage.Pause()
	for name, call := range map[string]func() error{
		"Put": func() error {
			_, err := store.Put(ctx, "b.pdf", strings.NewReader("%PDF-1.6 during"), "application/pdf")
			return err
		},
		"Exists": func() error { _, err := store.Exists(ctx, "a.pdf"); return err },
		"Delete": func() error { return store.Delete(ctx, "a.pdf") },
	} {
		start := time.Now()
		err := call()
		if took := time.Since(start); err == nil || took > putTimeout+5*time.Second {
			t.Errorf("%s on a paused server: %v after %v, want an error at its deadline", name, err, took)
		}
	}
	outage.Up()
	if ok, err := store.Exists(ctx, "a.pdf"); err != nil || !ok {
		t.Errorf("after the pause, Exists: %v, %v", ok, err)
	}
	if _, err := store.Put(ctx, "c.pdf", strings.NewReader("%PDF-1.6 after"), "application/pdf"); err != nil {
		t.Errorf("after the pause, Put: %v", err)
	}
}
