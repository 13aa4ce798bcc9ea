package cluster

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// slowImages serves a small JPEG after the hold its URL names: designs
// that place it keep their renders in flight long enough for a serve to be
// stopped under them.
type slowImages struct {
	srv *httptest.Server

	mu      sync.Mutex
	holding int           // requests being held now: renders in flight
	changed chan struct{} // closed, and replaced, when holding changes
}

func startSlowImages(t *testing.T) *slowImages {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for i := range img.Pix {
		img.Pix[i] = 180
	}
	img.Set(1, 1, color.Black)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	s := &slowImages{changed: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.add(1)
		defer s.add(-1)
		hold, _ := time.ParseDuration(r.URL.Query().Get("hold"))
		select {
		case <-time.After(hold):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "image/jpeg")
		_, _ = w.Write(buf.Bytes())
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *slowImages) add(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holding += n
	close(s.changed)
	s.changed = make(chan struct{})
}

// waitHolding waits until at least n image requests are held at once:
// that many renders are under way in the render processes.
func (s *slowImages) waitHolding(t *testing.T, n int, within time.Duration) {
	t.Helper()
	timeout := time.After(within)
	for {
		s.mu.Lock()
		holding, changed := s.holding, s.changed
		s.mu.Unlock()
		if holding >= n {
			return
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("%d renders held on the image server after %s, want %d", holding, within, n)
		}
	}
}

// url is an image of its own for label, so that no cache answers it
// sooner, answered after hold.
func (s *slowImages) url(label string, hold time.Duration) string {
	return s.srv.URL + "/" + label + ".jpg?hold=" + hold.String()
}
