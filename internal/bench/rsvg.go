package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/platen-print/platen/internal/bench/reference"
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
	args := []string{"-f", format, "-o", filepath.Join(r.dir, "out."+format)}
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
