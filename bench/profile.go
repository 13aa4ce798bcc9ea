package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// profiler takes a CPU profile of platen serve over a measured window,
// through the pprof server of its --debug-addr, so that a profile matches
// the figures it explains. A nil profiler takes none.
type profiler struct {
	dir  string // where profiles go, as NAME.pprof
	addr string // --debug-addr
}

// newProfiler returns a profiler writing into dir, or nil when dir is
// empty.
func newProfiler(dir string) (*profiler, error) {
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	return &profiler{dir: dir, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))}, nil
}

// args are the serve flags the profile needs.
func (p *profiler) args() []string {
	if p == nil {
		return nil
	}
	return []string{"--debug-addr", p.addr}
}

// during profiles the whole seconds of window from from on into
// name.pprof, in the background; the channel closes once the profile is
// written (or failed, which is only logged: a profile is an extra, not a
// result).
func (p *profiler) during(ctx context.Context, name string, from time.Time, window time.Duration, logw io.Writer) <-chan struct{} {
	done := make(chan struct{})
	if p == nil {
		close(done)
		return done
	}
	path := filepath.Join(p.dir, name+".pprof")
	go func() {
		defer close(done)
		if err := p.take(ctx, path, from, window); err != nil {
			fmt.Fprintf(logw, "platen-bench: CPU profile %s: %v\n", path, err)
			return
		}
		fmt.Fprintf(logw, "platen-bench: CPU profile of the window in %s\n", path)
	}()
	return done
}

func (p *profiler) take(ctx context.Context, path string, from time.Time, window time.Duration) error {
	if err := sleepUntil(ctx, from); err != nil {
		return err
	}
	seconds := max(int(window/time.Second), 1)
	url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", p.addr, seconds)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
