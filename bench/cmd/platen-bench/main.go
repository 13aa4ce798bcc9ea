// Command platen-bench benchmarks platen serve over HTTP: `make bench` runs
// it. See package bench, at the root of this module, for what it measures
// and -h for its flags.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/platen-print/platen/bench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := bench.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
