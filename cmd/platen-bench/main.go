// Command platen-bench benchmarks platen serve over HTTP: `make bench` runs
// it. See internal/bench for what it measures and -h for its flags.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/platen-print/platen/internal/bench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := bench.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
