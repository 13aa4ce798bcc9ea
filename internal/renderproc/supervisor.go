// The Supervisor runs renders in supervised child processes, so that no
// document can cost anyone but its own print: each child renders one
// request at a time under a wall-clock, CPU and memory limit that holds
// even when the drawing library never looks at its context, and a child
// that hits one, panics or dies is killed and replaced while the render
// fails at once with the reason ("render exceeded 2 min", "render crashed:
// path has NaN or Inf"). The children are this same executable, started
// with an environment variable that makes this package's init serve
// renders over two pipes instead of running the program.

package renderproc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/procstat"
)

// Limits bound one render.
type Limits struct {
	// Time is the wall-clock limit, from the request reaching the child.
	Time time.Duration
	// CPU is the CPU time the child may use on one render.
	CPU time.Duration
	// MemoryBytes caps a child's heap; the render that needs more fails.
	MemoryBytes int64
}

// Config says how many children render with what.
type Config struct {
	// Processes is how many children render at once, one render each.
	Processes int
	Limits    Limits
	// FontDir, AllowPrivateNetwork and LogLevel are the children's
	// settings, as `platen render` takes them.
	FontDir             string
	FallbackFonts       []string
	AllowPrivateNetwork bool
	LogLevel            string
	// Logs receives the children's stderr (their JSON logs); nil drops it.
	Logs   io.Writer
	Logger *slog.Logger
	// OnDemand starts each child at its slot's first render rather than
	// in Start: a supervisor that may never render (a test's server, most
	// of which do not) then costs no process.
	OnDemand bool
}

const (
	// killGrace is how long a child has to answer after its own time
	// limit, or to exit when told to, before it is killed.
	killGrace = 2 * time.Second
	// cpuPoll is how often a render's CPU time is read.
	cpuPoll = 250 * time.Millisecond
)

// Supervisor renders through its children; it is a RenderServiceClient
// (for `platen serve`) and, through Server, a RenderServiceServer (for
// `platen render`).
type Supervisor struct {
	cfg    Config
	env    []string
	idle   chan *process // a child per slot; nil is a slot whose child must start
	mu     sync.Mutex
	closed bool
	peak   atomic.Int64 // the highest peak resident memory of a child after a render
}

// PeakResidentBytes is the most memory a render process has held, as
// read after each render (its VmHWM): what the largest render took.
func (s *Supervisor) PeakResidentBytes() int64 { return s.peak.Load() }

// Start starts cfg.Processes children, or none when cfg.OnDemand.
func Start(cfg Config) (*Supervisor, error) {
	if cfg.Processes < 1 {
		return nil, fmt.Errorf("render processes: at least 1, got %d", cfg.Processes)
	}
	if os.Getenv(childEnv) != "" {
		return nil, errors.New("a render child cannot start render processes of its own")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	spec, err := json.Marshal(childConfig{
		FontDir: cfg.FontDir, FallbackFonts: cfg.FallbackFonts, AllowPrivateNetwork: cfg.AllowPrivateNetwork,
		MemoryBytes: cfg.Limits.MemoryBytes, LogLevel: cfg.LogLevel,
	})
	if err != nil {
		return nil, err
	}
	s := &Supervisor{cfg: cfg, idle: make(chan *process, cfg.Processes)}
	s.env = append(environWithout(childEnv), childEnv+"="+string(spec))
	if cfg.OnDemand {
		for range cfg.Processes {
			s.idle <- nil
		}
		return s, nil
	}
	for i := range cfg.Processes {
		p, err := startProcess(s.env, cfg.Logs)
		if err != nil {
			for range cfg.Processes - i {
				s.idle <- nil
			}
			s.Close()
			return nil, err
		}
		s.idle <- p
	}
	return s, nil
}

func environWithout(name string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, name+"=") {
			env = append(env, kv)
		}
	}
	return env
}

// Render renders req in the next free child, waiting for one until ctx
// ends. Call options are ignored.
func (s *Supervisor) Render(ctx context.Context, req *renderv1.RenderRequest, _ ...grpc.CallOption) (*renderv1.RenderResponse, error) {
	frame, err := encodeRequest(req, s.cfg.Limits.Time)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, "render request: "+err.Error())
	}
	if s.isClosed() {
		return nil, status.Error(codes.Unavailable, "the render processes are stopping")
	}
	var p *process
	select {
	case p = <-s.idle:
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	}
	if p == nil {
		var err error
		if p, err = s.replace(nil); err != nil {
			s.idle <- nil
			return nil, status.Error(codes.Unavailable, err.Error())
		}
	}
	o := p.render(ctx, frame, s.cfg.Limits)
	if peak, err := procstat.PeakRSS(p.cmd.Process.Pid); err == nil {
		for seen := s.peak.Load(); peak > seen && !s.peak.CompareAndSwap(seen, peak); seen = s.peak.Load() {
		}
	}
	if !o.healthy {
		p, _ = s.replace(p) // nil on failure: the next render tries again
	}
	s.idle <- p
	return o.resp, o.err
}

// replace stops old (when not nil) and starts a child in its place.
func (s *Supervisor) replace(old *process) (*process, error) {
	if old != nil {
		old.kill()
		old.stop()
	}
	if s.isClosed() {
		return nil, errors.New("the render processes are stopping")
	}
	p, err := startProcess(s.env, s.cfg.Logs)
	if err != nil {
		s.cfg.Logger.Error("render process could not start", "error", err)
	}
	return p, err
}

func (s *Supervisor) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Close stops every child, waiting for renders in flight to end (their
// callers' contexts bound them); the children stop side by side.
func (s *Supervisor) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	var wg sync.WaitGroup
	for range cap(s.idle) {
		if p := <-s.idle; p != nil {
			wg.Go(p.stop)
		}
	}
	wg.Wait()
	return nil
}

// Server is the supervisor as a render service, for `platen render`.
func (s *Supervisor) Server() renderv1.RenderServiceServer { return server{s: s} }

type server struct {
	renderv1.UnimplementedRenderServiceServer
	s *Supervisor
}

func (srv server) Render(ctx context.Context, req *renderv1.RenderRequest) (*renderv1.RenderResponse, error) {
	return srv.s.Render(ctx, req)
}

// exceeded is a render that hit a limit: RESOURCE_EXHAUSTED, which the
// queue does not retry.
func exceeded(msg string) error { return status.Error(codes.ResourceExhausted, msg) }

// words writes a limit as people say it: "2 min", "90 s", "1.5 s".
func words(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		return fmt.Sprintf("%d min", d/time.Minute)
	}
	return fmt.Sprintf("%g s", d.Seconds())
}
