package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/platen-print/platen/internal/render/reference"
)

// rsvg times rsvg-convert, the yardstick, on the reference page as
// SVG: each run is the whole command, start-up and file writing included,
// as the figures were taken.
type rsvg struct {
	path string // of rsvg-convert
	dir  string // holds page.svg, the photo it links, and the outputs
}

// newRSVG returns nil when rsvg-convert is not installed.
func newRSVG(photo []byte) (*rsvg, error) {
	path, err := exec.LookPath("rsvg-convert")
	if err != nil {
		return nil, nil
	}
	dir, err := os.MkdirTemp("", "platen-bench-rsvg-")
	if err != nil {
		return nil, err
	}
	r := &rsvg{path: path, dir: dir}
	for name, data := range map[string][]byte{"page.svg": reference.SVG, "photo.jpg": photo} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			r.close()
			return nil, err
		}
	}
	return r, nil
}

// args are rsvg-convert's arguments for a format, "pdf" or "png" (300 DPI).
func (r *rsvg) args(format string) []string {
	return r.argsTo(format, "out."+format)
}

// argsTo is args writing to the file named out in the page's directory.
func (r *rsvg) argsTo(format, out string) []string {
	args := []string{"-f", format, "-o", filepath.Join(r.dir, out)}
	if format == "png" {
		args = append(args, "-d", "300", "-p", "300")
	}
	return append(args, filepath.Join(r.dir, "page.svg"))
}

// run converts the page once and returns the time it took, its peak
// resident set and the output's size.
func (r *rsvg) run(ctx context.Context, format string) (took time.Duration, peak, size int64, err error) {
	cmd := exec.CommandContext(ctx, r.path, r.args(format)...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took = time.Since(start)
	if err != nil {
		return took, 0, 0, fmt.Errorf("rsvg-convert %s: %w: %s", format, err, out)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		peak = ru.Maxrss << 10 // kB on Linux
	}
	fi, err := os.Stat(filepath.Join(r.dir, "out."+format))
	if err != nil {
		return took, peak, 0, err
	}
	return took, peak, fi.Size(), nil
}

func (r *rsvg) close() { _ = os.RemoveAll(r.dir) }

// many converts the page n times, atOnce processes at a time, each to a
// file of its own, and returns the time from the first start to the last
// end.
func (r *rsvg) many(ctx context.Context, format string, n, atOnce int) (time.Duration, error) {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(atOnce)
	start := time.Now()
	for i := range n {
		g.Go(func() error {
			cmd := exec.CommandContext(ctx, r.path, r.argsTo(format, fmt.Sprintf("out-%d.%s", i, format))...)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("rsvg-convert %s: %w: %s", format, err, out)
			}
			return nil
		})
	}
	err := g.Wait()
	return time.Since(start), err
}
