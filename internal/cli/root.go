// Package cli is the platen command line: serve, render, migrate, admin
// and version, each flag also read from its PLATEN_* environment variable.
package cli

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

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
		Long:          rootLong,
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
	nameEnvInUsage(root, map[*pflag.Flag]bool{})
	return root
}

// rootLong is `platen --help`'s introduction: what ApplyEnv does, which
// no flag's own help would otherwise tell.
const rootLong = `Platen renders print-ready files for the orders of personalised-product shops.

Every flag can also be set by an environment variable: ` + config.EnvPrefix + ` and the flag's
name in upper case, dashes as underscores (--data-dir is ` + config.EnvPrefix + `DATA_DIR,
--database-url ` + config.EnvPrefix + `DATABASE_URL). A flag given on the command line wins over
its variable. Each command's --help names every flag's variable.`

// nameEnvInUsage appends to the help of every flag of cmd and its
// subcommands the environment variable that stands in for it (ApplyEnv),
// once per flag: a persistent flag is shared by the subcommands.
func nameEnvInUsage(cmd *cobra.Command, done map[*pflag.Flag]bool) {
	note := func(f *pflag.Flag) {
		if !done[f] {
			done[f] = true
			f.Usage += " (env " + config.EnvName(f.Name) + ")"
		}
	}
	cmd.PersistentFlags().VisitAll(note)
	cmd.Flags().VisitAll(note)
	for _, sub := range cmd.Commands() {
		nameEnvInUsage(sub, done)
	}
}
