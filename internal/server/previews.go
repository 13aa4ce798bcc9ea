package server

import (
	"context"
	"time"

	"google.golang.org/grpc"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/prints"
	"github.com/platen-print/platen/internal/renderproc"
)

// previewWorkers is how many panel previews render at once: a quarter of
// the renders a team may run, at least one. Previews render in processes
// of their own, so that they never take a print's render process.
func previewWorkers(renderWorkers int) int {
	return max(1, renderWorkers/4)
}

// previewClient is the render processes of panel previews: processes of
// their own, whose time limit is a preview's budget; or, with
// --render-addr, the remote render processes (previews then take at most
// previewWorkers of them from this serve).
func (s *Server) previewClient(prints renderv1.RenderServiceClient, workers int) (renderv1.RenderServiceClient, error) {
	if len(s.cfg.RenderAddrs) > 0 {
		return prints, nil
	}
	cfg := RenderProcesses(s.cfg.Render, s.cfg.LogLevel, workers)
	cfg.Limits.Time, cfg.Limits.CPU = s.previewTimeout(), s.previewTimeout()
	sup, err := renderproc.Start(cfg)
	if err != nil {
		return nil, err
	}
	s.onShutdown(func(context.Context) error { return sup.Close() })
	return sup, nil
}

func (s *Server) previewTimeout() time.Duration {
	if s.cfg.PreviewTimeout > 0 {
		return s.cfg.PreviewTimeout
	}
	return prints.DefaultPreviewTimeout
}

// byKind sends preview renders (those with a preview DPI) to previews and
// every other render to prints, so that one measured client counts both.
type byKind struct {
	prints, previews renderv1.RenderServiceClient
}

func (b byKind) Render(ctx context.Context, req *renderv1.RenderRequest, opts ...grpc.CallOption) (*renderv1.RenderResponse, error) {
	if req.GetPreviewDpi() > 0 {
		return b.previews.Render(ctx, req, opts...)
	}
	return b.prints.Render(ctx, req, opts...)
}
