package server

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"time"
)

// startDebug serves pprof on --debug-addr, apart from the public API.
func (s *Server) startDebug() {
	if s.cfg.DebugAddr == "" {
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Addr: s.cfg.DebugAddr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	s.goroutines.Go(func() {
		if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
			slog.Warn("debug server stopped", "error", err)
		}
	})
	s.onShutdown(srv.Shutdown)
}
