package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/queue"
	"github.com/platen-print/platen/internal/server"
	"github.com/platen-print/platen/internal/storage"
)

func newServe(cfg *config.Config) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the REST and gRPC APIs (SQLite in --data-dir unless --database-url is set)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tuneGC()
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return server.Run(ctx, *cfg)
		},
	}
	cfg.ServeFlags(cmd.Flags())
	return cmd
}

// gcPercent is serve's default GOGC. Its API heap is small and
// short-lived (request messages), so the default 100 collected far more
// often than needed: at 400 the status read ran 35% faster (BENCHMARKS.md).
// But renders keep large buffers (about 150 MB for a 300 DPI PNG) and the
// image cache up to 256 MB, which GOGC=400 would let grow fivefold; the
// soft memory limit makes the collector work harder only near it. GOGC and
// GOMEMLIMIT in the environment still win.
const (
	gcPercent   = 400
	memoryLimit = 2 << 30
)

func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(memoryLimit)
	}
}

func newMigrate(cfg *config.Config) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply the schema to the database, print what was done and exit",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := storage.Open(cfg.DatabaseURL, cfg.DataDir)
			if err != nil {
				return err
			}
			defer db.Close()
			changes, err := db.MigrateCounting(cmd.Context())
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), migrated(storage.Describe(cfg.DatabaseURL, cfg.DataDir), changes))
			return err
		},
	}
	cfg.StorageFlags(cmd.Flags())
	return cmd
}

// migrated is the line `platen migrate` prints: which database, and
// whether it changed anything, so that a deployment's log shows it.
func migrated(database string, changes int) string {
	switch changes {
	case 0:
		return database + ": schema up to date, nothing to apply"
	case 1:
		return database + ": migrated, 1 schema change applied"
	}
	return fmt.Sprintf("%s: migrated, %d schema changes applied", database, changes)
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

// withStores is withDB for commands whose writes set work going (a render
// to cancel, files to remove, webhooks to send): their stores queue it on
// an insert-only queue, and the serve that works the queue does it.
func withStores(ctx context.Context, cfg *config.Config, fn func(context.Context, *storage.Stores) error) error {
	return withDB(ctx, cfg, func(ctx context.Context, db *storage.DB) error {
		q, err := queue.New(db.JobPool(), db.Dialect(), nil, queue.Config{})
		if err != nil {
			return err
		}
		stores, err := storage.NewStores(db, server.JobQueue(q))
		if err != nil {
			return err
		}
		return fn(ctx, stores)
	})
}
