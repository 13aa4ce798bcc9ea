package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/procstat"
	"github.com/platen-print/platen/internal/renderproc"
)

// renderProc is a `platen render` process of its own on a free loopback
// port, and a gRPC client of it: what `platen serve --render-addr` talks to.
type renderProc struct {
	pid    int
	addr   string // host:port of its gRPC API
	client renderv1.RenderServiceClient
	conn   io.Closer
	cmd    *exec.Cmd
	log    bytes.Buffer // its stdout and stderr, for errors
	exited chan struct{}
}

// startRender starts `platen render`, allowed to fetch from loopback (the
// photo server), and returns once it accepts connections.
func startRender(ctx context.Context, platen string) (*renderProc, error) {
	return startRenderOn(ctx, platen, "")
}

// startRenderOn is startRender pinned to cpus (taskset -c) when not empty.
func startRenderOn(ctx context.Context, platen, cpus string) (_ *renderProc, err error) {
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))
	p := &renderProc{addr: addr, exited: make(chan struct{})}
	// Not CommandContext: stop ends it with SIGTERM, as an operator would.
	p.cmd = pinnedCommand(cpus, platen, "render", "--grpc-addr", addr, "--allow-private-network", "--log-level", "warn")
	p.cmd.Stdout, p.cmd.Stderr = &p.log, &p.log
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s render: %w", platen, err)
	}
	p.pid = p.cmd.Process.Pid
	go func() { _ = p.cmd.Wait(); close(p.exited) }()
	defer func() {
		if err != nil {
			p.stop()
		}
	}()
	if err := p.waitListening(ctx, addr); err != nil {
		return nil, err
	}
	if p.client, p.conn, err = renderproc.Dial([]string{addr}); err != nil {
		return nil, err
	}
	return p, nil
}

// waitListening polls addr until it accepts a TCP connection: the render
// process listens before it serves, and gRPC queues calls until then.
func (p *renderProc) waitListening(ctx context.Context, addr string) error {
	deadline := time.Now().Add(readyTimeout)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			return conn.Close()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("platen render not listening on %s after %s: %v", addr, readyTimeout, err)
		}
		select {
		case <-p.exited:
			return fmt.Errorf("platen render exited before listening: %s", tail(p.log.Bytes()))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// render renders the reference page in one format at 300 DPI and returns
// the file and the time the call took, as its caller sees it.
func (p *renderProc) render(ctx context.Context, doc []byte, format renderv1.Format) (*renderv1.RenderedFile, time.Duration, error) {
	start := time.Now()
	resp, err := p.client.Render(ctx, &renderv1.RenderRequest{
		Document: doc,
		Settings: &renderv1.PrintSettings{Dpi: 300},
		Formats:  []renderv1.Format{format},
	})
	took := time.Since(start)
	if err != nil {
		return nil, took, fmt.Errorf("render %s: %w", format, err)
	}
	if len(resp.Files) != 1 {
		return nil, took, fmt.Errorf("render %s: %d files, want 1", format, len(resp.Files))
	}
	return resp.Files[0], took, nil
}

// stop ends the process with SIGTERM, or SIGKILL when it does not exit in
// time. Its exit status is not checked: the figures are taken by then.
func (p *renderProc) stop() {
	if p.conn != nil {
		p.conn.Close()
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		_ = p.cmd.Process.Kill()
	}
	select {
	case <-p.exited:
	case <-time.After(stopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// treePeakRSS is the highest peak resident set among pid and the render
// processes it runs: where one render's memory shows.
func treePeakRSS(pid int) (int64, error) {
	peak, err := procstat.PeakRSS(pid)
	if err != nil {
		return 0, err
	}
	for _, child := range procstat.Children(pid) {
		if rss, err := procstat.PeakRSS(child); err == nil {
			peak = max(peak, rss)
		}
	}
	return peak, nil
}

// treeCPUTime is the CPU time of pid and of the render processes it runs
// (a child's time counts in its parent's only once it has exited).
func treeCPUTime(pid int) (time.Duration, error) {
	total, err := procstat.CPUTime(pid)
	if err != nil {
		return 0, err
	}
	for _, child := range procstat.Children(pid) {
		if t, err := procstat.CPUTime(child); err == nil {
			total += t
		}
	}
	return total, nil
}

// procsCPUTime is the CPU time of procs and of the processes they run.
func procsCPUTime(procs []*renderProc) (time.Duration, error) {
	var total time.Duration
	for _, p := range procs {
		t, err := treeCPUTime(p.pid)
		if err != nil {
			return 0, err
		}
		total += t
	}
	return total, nil
}
