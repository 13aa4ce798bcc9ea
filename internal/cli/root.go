// Package cli is the platen command line: serve, render, migrate and
// admin, each flag also read from its PLATEN_* environment variable.
package cli

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/platen-print/platen/internal/config"
	"github.com/platen-print/platen/internal/logging"
	"github.com/platen-print/platen/internal/version"
)

// newVersion is `platen version`: the build's version, revision and Go
// version, as `platen --version` prints them.
func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of this build",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), version.Read())
			return err
		},
	}
}

// NewRoot returns the platen command with its subcommands.
func NewRoot() *cobra.Command {
	cfg := config.Default()
	root := &cobra.Command{
		Use:           "platen",
		Short:         "Platen renders print-ready files for the orders of personalised-product shops",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.Read().String(),
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := config.ApplyEnv(cmd.Flags()); err != nil {
				return err
			}
			level, err := cfg.Level()
			if err != nil {
				return err
			}
			// Logs go to stderr: stdout belongs to the commands' own output.
			slog.SetDefault(logging.New(os.Stderr, level))
			return nil
		},
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(newServe(&cfg), newRender(&cfg), newMigrate(&cfg), newAdmin(&cfg), newVersion())
	return root
}
