package cli

import (
	"fmt"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/renderproc"
	"github.com/platen-print/platen/internal/server"
)

// defaultRenderAddr is `platen render`'s gRPC address: beside serve's
// 9090, so that both run on one machine with no flags.
const defaultRenderAddr = "127.0.0.1:9091"

func newRender(cfg *config.Config) *cobra.Command {
	addr := defaultRenderAddr
	workers := runtime.NumCPU()
	cmd := &cobra.Command{
		Use:   "render",
		Short: "Serve the render service alone over gRPC, for scaling rendering out",
		Long: "Serve the render service alone over gRPC, for scaling rendering out: start any number, " +
			"and give their addresses to `platen serve --render-addr`. It keeps no state. Each of its --workers " +
			"renders runs in a child process of its own, under --render-timeout and --render-memory-mb.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := renderproc.LoadFonts(cfg.FontDir, cfg.FallbackFonts); err != nil {
				return fmt.Errorf("--font-dir: %w", err)
			}
			server.WarnMissingFallbacks(cfg.FallbackFonts)
			if workers < 1 {
				return fmt.Errorf("--workers must be at least 1, got %d", workers)
			}
			if err := cfg.Render.Validate(); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			sup, err := renderproc.Start(server.RenderProcesses(cfg.Render, cfg.LogLevel, workers))
			if err != nil {
				return err
			}
			defer sup.Close()
			return renderproc.Serve(ctx, addr, sup.Server())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&addr, "grpc-addr", addr, "address of the render service's gRPC API (reflection and health on)")
	fs.IntVar(&workers, "workers", workers, "renders at once; further calls wait their turn (default: the number of CPUs)")
	// Only the commands that open the database register --log-level, with
	// StorageFlags; render opens none.
	fs.StringVar(&cfg.LogLevel, "log-level", cfg.LogLevel, "debug, info, warn or error")
	cfg.Render.Flags(fs)
	return cmd
}
