package cli

import (
	"context"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/server"
	"github.com/platen-print/platen/internal/storage"
)

func newServe(cfg *config.Config) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the REST and gRPC APIs (SQLite in --data-dir unless --database-url is set)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return server.Run(ctx, *cfg)
		},
	}
	cfg.ServeFlags(cmd.Flags())
	return cmd
}

func newMigrate(cfg *config.Config) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply the schema to the database and exit",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withDB(cmd.Context(), cfg, func(context.Context, *storage.DB) error { return nil })
		},
	}
	cfg.StorageFlags(cmd.Flags())
	return cmd
}

// withDB opens the database, applies the schema (so that admin commands work
// on a fresh data dir too), runs fn and closes the database.
func withDB(ctx context.Context, cfg *config.Config, fn func(context.Context, *storage.DB) error) error {
	db, err := storage.Open(cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	return fn(ctx, db)
}
