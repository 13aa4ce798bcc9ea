package cluster

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// slowImages serves a small JPEG after holdFor: designs that place it keep
// their renders in flight long enough for a serve to be stopped under
// them.
type slowImages struct{ srv *httptest.Server }

const holdFor = 4 * time.Second

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
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(holdFor):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "image/jpeg")
		_, _ = w.Write(buf.Bytes())
	}))
	t.Cleanup(srv.Close)
	return &slowImages{srv: srv}
}

// url is an image of its own for label, so that no cache answers it
// sooner.
func (s *slowImages) url(label string) string { return s.srv.URL + "/" + label + ".jpg" }
