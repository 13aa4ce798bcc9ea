package bench

import (
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
)

// photoServer serves the reference photo on loopback at any path, as a
// shop's image host would.
type photoServer struct {
	base string
	srv  *http.Server
	// seq numbers the URLs next hands out; hits counts the fetches.
	seq, hits atomic.Int64
}

func startPhotoServer(photo []byte) (*photoServer, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &photoServer{base: "http://" + lis.Addr().String()}
	s.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.hits.Add(1)
		w.Header().Set("Content-Type", "image/jpeg")
		_, _ = w.Write(photo)
	})}
	go func() { _ = s.srv.Serve(lis) }()
	return s, nil
}

// next returns a URL of the photo that no render has used yet. The render
// service caches images by URL; a new one makes every render fetch the
// photo, as a new order's would.
func (s *photoServer) next() string {
	return fmt.Sprintf("%s/photo.jpg?n=%d", s.base, s.seq.Add(1))
}

func (s *photoServer) close() { _ = s.srv.Close() }
