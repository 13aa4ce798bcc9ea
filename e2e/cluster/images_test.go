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

// slowImages serves a small JPEG once its gate opens, or after the hold
// its URL names at most: designs that place it keep their renders in
// flight until a fault has been applied under them, however far apart the
// queue starts them on a loaded machine.
type slowImages struct {
	srv *httptest.Server

	mu      sync.Mutex
	gate    chan struct{} // closed when held requests may be answered
	asked   []string      // the paths asked for, in order
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
	s := &slowImages{changed: make(chan struct{}), gate: closedGate()}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.asked = append(s.asked, r.URL.Path)
		gate := s.gate
		s.mu.Unlock()
		s.add(1)
		defer s.add(-1)
		hold, _ := time.ParseDuration(r.URL.Query().Get("hold"))
		select {
		case <-gate:
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

// waitHolding waits until at least n image requests are held at once
// (that many renders are under way in the render processes), and reports
// whether they were within the time given.
func (s *slowImages) waitHolding(n int, within time.Duration) bool {
	timeout := time.After(within)
	for {
		s.mu.Lock()
		holding, changed := s.holding, s.changed
		s.mu.Unlock()
		if holding >= n {
			return true
		}
		select {
		case <-changed:
		case <-timeout:
			return false
		}
	}
}

// held is how many image requests are held now, and the last paths
// asked for.
func (s *slowImages) held() (int, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.holding, s.asked[max(0, len(s.asked)-8):]
}

// url is an image of its own for label, so that no cache answers it
// sooner, answered after hold.
func (s *slowImages) url(label string, hold time.Duration) string {
	return s.srv.URL + "/" + label + ".jpg?hold=" + hold.String()
}

func closedGate() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// shut holds every image asked for from now until open.
func (s *slowImages) shut() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gate = make(chan struct{})
}

// open answers the images held, and those asked for later at once.
func (s *slowImages) open() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.gate:
	default:
		close(s.gate)
	}
}
