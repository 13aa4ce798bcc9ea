// Command platen is Platen's one binary: serve, migrate and admin.
package main

import (
	"fmt"
	"os"

	"github.com/platen-print/platen/internal/cli"
)

func main() {
	if err := cli.NewRoot().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "platen:", err)
		os.Exit(1)
	}
}
