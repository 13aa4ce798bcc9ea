// Package fakes3 runs an in-process S3-compatible server (gofakes3) for
// tests, so that the S3 blob store is tested against a real HTTP S3 API
// without a network or credentials.
package fakes3

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Start runs a server on 127.0.0.1 holding an empty bucket, stopped when
// the test ends, and returns the blob URL (--blob-url) that opens it. It
// sets the process's AWS environment to test credentials and no AWS files,
// so that the machine's own AWS settings stay out.
func Start(t *testing.T, bucket string) string {
	t.Helper()
	return StartObserved(t, bucket, nil)
}

// StartObserved is Start with observe (when not nil) called with each
// request's method, path and headers before the server answers it, for
// tests of what a client sends that gofakes3 does not keep (such as an
// upload's checksum headers).
func StartObserved(t *testing.T, bucket string, observe func(method, path string, header http.Header)) string {
	t.Helper()
	blobURL, _ := start(t, bucket, observe)
	return blobURL
}

// Outage takes the server away and brings it back.
type Outage interface {
	// Down makes the server drop every request's connection unanswered,
	// as an S3 server that stopped does.
	Down()
	// Pause makes the server hold every request unanswered, its
	// connection open, as a paused or partitioned server does, until Up.
	Pause()
	// Up serves again, the requests held included.
	Up()
}

type outage struct {
	down atomic.Bool
	mu   sync.Mutex
	held chan struct{} // closed by Up; nil unless paused
}

func (o *outage) Down() { o.down.Store(true) }

func (o *outage) Pause() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.held == nil {
		o.held = make(chan struct{})
	}
}

func (o *outage) Up() {
	o.down.Store(false)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.held != nil {
		close(o.held)
		o.held = nil
	}
}

// hold waits while the server is paused, or until the request ends.
func (o *outage) hold(r *http.Request) {
	o.mu.Lock()
	held := o.held
	o.mu.Unlock()
	if held != nil {
		select {
		case <-held:
		case <-r.Context().Done():
		}
	}
}

// StartWithOutage is Start with a switch that takes the server down.
func StartWithOutage(t *testing.T, bucket string) (string, Outage) {
	t.Helper()
	return start(t, bucket, nil)
}

func start(t *testing.T, bucket string, observe func(method, path string, header http.Header)) (string, *outage) {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	var handler http.Handler = gofakes3.New(backend).Server()
	if observe != nil {
		inner := handler
		handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			observe(r.Method, r.URL.Path, r.Header.Clone())
			inner.ServeHTTP(w, r)
		})
	}
	o := &outage{}
	served := handler
	handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.hold(r)
		if o.down.Load() {
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		served.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	useTestCredentials()
	return "s3://" + bucket + "?endpoint=" + url.QueryEscape(srv.URL) + "&use_path_style=true&disable_https=true&region=us-east-1", o
}

var credentialsOnce sync.Once

// useTestCredentials gives the process the credentials every fake S3
// server takes (gofakes3 takes any), and no AWS configuration files, once:
// the values never change, so they are set for good rather than per test,
// which leaves the tests that start a fake S3 free to run in parallel
// (t.Setenv forbids it).
func useTestCredentials() {
	credentialsOnce.Do(func() {
		none := filepath.Join(os.TempDir(), "platen-fakes3-no-aws-files", "none")
		for k, v := range map[string]string{
			"AWS_ACCESS_KEY_ID": "platen-test", "AWS_SECRET_ACCESS_KEY": "platen-test-secret",
			"AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
			"AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none,
			"AWS_EC2_METADATA_DISABLED": "true",
		} {
			if err := os.Setenv(k, v); err != nil {
				panic(err) // only an invalid name fails
			}
		}
	})
}
