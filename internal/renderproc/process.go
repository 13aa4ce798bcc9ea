package renderproc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/procstat"
)

// startTimeout bounds a child's start, until it says it is ready.
const startTimeout = 15 * time.Second

// process is one child render process, rendering one request at a time.
type process struct {
	cmd      *exec.Cmd
	requests io.WriteCloser
	answers  io.ReadCloser
	exited   chan struct{} // closed when the process has exited and its stderr is read
	waitErr  error         // set before exited closes
	words    lastWords     // what it printed since its current request began
}

// startProcess starts a child with env (childEnv set), copying its stderr
// to logs, and waits until it is ready to render.
func startProcess(env []string, logs io.Writer) (*process, error) {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	ansR, ansW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, err
	}
	p := &process{requests: reqW, answers: ansR, exited: make(chan struct{})}
	p.cmd = &exec.Cmd{
		Path:        selfExe(),
		Args:        []string{"platen-render-child"},
		Env:         env,
		ExtraFiles:  []*os.File{reqR, ansW}, // fds 3 and 4
		SysProcAttr: childAttr(),
	}
	stderr, err := p.cmd.StderrPipe()
	if err == nil {
		err = p.cmd.Start()
	}
	reqR.Close() // the child's ends
	ansW.Close()
	if err != nil {
		reqW.Close()
		ansR.Close()
		return nil, fmt.Errorf("start a render process: %w", err)
	}
	go p.wait(stderr, logs)
	if err := p.ready(); err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

// ready waits for the child's ready frame: its start-up (loading fonts)
// is neither charged to a render's time nor mistaken for a render's fault.
func (p *process) ready() error {
	done := make(chan error, 1)
	go func() { done <- readReady(p.answers) }()
	select {
	case err := <-done:
		if err == nil {
			return nil
		}
	case <-time.After(startTimeout):
	}
	p.kill()
	<-p.exited
	return fmt.Errorf("a render process did not start: %s", p.words.summary(p.waitErr))
}

// wait copies stderr until the child closes it, then reaps the child.
func (p *process) wait(stderr io.Reader, logs io.Writer) {
	r := bufio.NewReaderSize(stderr, 64<<10)
	for {
		line, long, err := r.ReadLine()
		if len(line) > 0 || long {
			p.words.note(string(line))
			if logs != nil {
				_, _ = logs.Write(append(line, '\n'))
			}
		}
		for long && err == nil { // the rest of a line longer than the buffer
			_, long, err = r.ReadLine()
		}
		if err != nil {
			break
		}
	}
	p.waitErr = p.cmd.Wait()
	close(p.exited)
}

// outcome is one render's result; healthy is false when the process must
// be replaced (it died, was killed, or recovered from a panic).
type outcome struct {
	resp    *renderv1.RenderResponse
	err     error
	healthy bool
}

// render sends frame (an encoded request) and waits for the answer,
// within lim. It kills the child when a limit is hit or ctx ends first.
func (p *process) render(ctx context.Context, frame []byte, lim Limits) outcome {
	p.words.reset()
	startCPU, _ := procstat.CPUTime(p.cmd.Process.Pid)
	answered := make(chan outcome, 1)
	go func() { answered <- p.read(lim) }()
	if _, err := p.requests.Write(frame); err != nil {
		return p.died(lim)
	}
	// The child stops itself at lim.Time; the grace lets it say so
	// before it is killed for not doing so.
	deadline := time.NewTimer(lim.Time + killGrace)
	defer deadline.Stop()
	tick := time.NewTicker(cpuPoll)
	defer tick.Stop()
	for {
		select {
		case o := <-answered:
			if o.err == nil && o.resp == nil && !o.healthy {
				return p.died(lim)
			}
			return timeLimited(o, lim)
		case <-ctx.Done():
			p.kill()
			return outcome{err: status.FromContextError(ctx.Err()).Err()}
		case <-deadline.C:
			p.kill()
			return outcome{err: exceeded(fmt.Sprintf("render exceeded %s", words(lim.Time)))}
		case <-tick.C:
			if err := p.overLimits(lim, startCPU); err != nil {
				p.kill()
				return outcome{err: err}
			}
		}
	}
}

// overLimits is the failure of a render over its CPU time (counted from
// startCPU) or whose process holds more memory than it may: the data limit
// stops the heap, this the rest (and the heap where no data limit holds).
func (p *process) overLimits(lim Limits, startCPU time.Duration) error {
	pid := p.cmd.Process.Pid
	if used, err := procstat.CPUTime(pid); err == nil && used-startCPU > lim.CPU {
		return exceeded(fmt.Sprintf("render exceeded its CPU limit of %s", words(lim.CPU)))
	}
	if rss, err := procstat.RSS(pid); err == nil && rss > residentLimit(lim.MemoryBytes) {
		return memoryExceeded(lim)
	}
	return nil
}

// residentLimit is the resident memory a child may hold: its heap limit,
// plus the program's own code and stacks; the race detector's shadow
// memory triples what a program holds.
func residentLimit(heap int64) int64 {
	if raceEnabled {
		return 3*heap + 128<<20
	}
	return heap + 64<<20
}

func memoryExceeded(lim Limits) error {
	return exceeded(fmt.Sprintf("render exceeded its memory limit of %d MB", lim.MemoryBytes>>20))
}

// read waits for the child's answer; a broken pipe is an outcome with
// neither response nor error, and unhealthy. An answer is at most what
// the child may hold.
func (p *process) read(lim Limits) outcome {
	resp, failure, err := readAnswer(p.answers, max(lim.MemoryBytes, 1<<20))
	var tooLarge *frameTooLarge
	if errors.As(err, &tooLarge) {
		return outcome{err: exceeded(fmt.Sprintf("the rendered files are %d MB, over the %d MB a render may return", tooLarge.size>>20, tooLarge.limit>>20))}
	}
	if err != nil {
		return outcome{}
	}
	return outcome{resp: resp, err: failure, healthy: !Crashed(failure)}
}

// timeLimited turns the child's own deadline into the limit's failure: a
// render that ran out of time will run out again, so it is not retried.
func timeLimited(o outcome, lim Limits) outcome {
	if status.Code(o.err) == codes.DeadlineExceeded {
		o.err = exceeded(fmt.Sprintf("render exceeded %s (%s)", words(lim.Time), Reason(o.err)))
	}
	return o
}

// died is the outcome of a child that stopped answering: why it exited.
func (p *process) died(lim Limits) outcome {
	p.kill()
	<-p.exited
	return outcome{err: p.deathReason(lim)}
}

// deathReason reads the child's end from what the Go runtime printed
// during the request: refused memory is the render's limit, a panic or a
// fatal error the render's crash (neither is retried). A death without
// either (a signal from outside, such as the machine's OOM killer) is no
// fault of the document: UNAVAILABLE, retried like any render the process
// of which went away.
//
// A fault in the runtime's own code is refused memory too where the
// kernel holds the child to its limit: the runtime leaves some of its
// allocations unchecked (Go 1.26's garbage collector writes through the
// nil a refused mmap gives its span queue) and dies of a SIGSEGV at
// address 0, saying nothing of memory. Little else faults the runtime (a
// bug of its own, or C code where cgo is in), and a retry would meet
// that again too.
func (p *process) deathReason(lim Limits) error {
	said := p.words.last()
	switch {
	case said.memory, said.fault != "" && dataLimitHolds() && lim.MemoryBytes > 0:
		return memoryExceeded(lim)
	case said.fatal != "":
		return CrashedError("render crashed: " + said.fatal)
	case said.fault != "":
		return CrashedError("render crashed: " + said.fault)
	}
	return status.Error(codes.Unavailable, "the render process stopped: "+p.words.summary(p.waitErr))
}

// kill ends the child at once; it is safe to call more than once.
func (p *process) kill() {
	_ = p.cmd.Process.Kill()
}

// stop lets the child finish: closing its requests pipe ends its loop.
// A child that does not exit within the grace is killed.
func (p *process) stop() {
	p.requests.Close()
	select {
	case <-p.exited:
	case <-time.After(killGrace):
		p.kill()
		<-p.exited
	}
	p.answers.Close()
}

// lastWords keeps what a child printed since its current request began:
// what the Go runtime said as it died, and the last line.
type lastWords struct {
	mu       sync.Mutex
	said     dyingWords
	lastLine string
}

// dyingWords is what the Go runtime says as a program dies.
type dyingWords struct {
	fatal  string // the first "panic: …" or "fatal error: …" line's message
	fault  string // a fault in the runtime's own code, which no panic reports
	memory bool   // the runtime was refused memory (heap or thread stack)
}

// The Go runtime's own words, at the start of a line, as it dies. When
// the kernel refuses it memory it says so in many ways: "fatal error: out
// of memory allocating heap arena metadata", "fatal error: runtime:
// cannot allocate memory", or a failed thread start (with cgo, glibc maps
// each thread's stack as data). A fault its own code hits, where it
// cannot panic, it reports with the signal's name alone (fatalsignal).
var (
	fatalPrefixes  = []string{"panic: ", "fatal error: "}
	memoryPrefixes = []string{"runtime: out of memory", "runtime/cgo: pthread_create failed", "runtime: failed to create new OS thread"}
	memoryFatals   = []string{"out of memory", "cannot allocate memory"}
	faultPrefixes  = []string{"SIGSEGV: ", "SIGBUS: ", "fatal error: unexpected signal during runtime execution", "fatal error: fault"}
)

func (w *lastWords) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.said, w.lastLine = dyingWords{}, ""
}

func (w *lastWords) note(line string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lastLine = line
	if refusedMemory(line) {
		w.said.memory = true
	}
	for _, prefix := range faultPrefixes {
		if strings.HasPrefix(line, prefix) && w.said.fault == "" {
			w.said.fault = strings.TrimPrefix(line, "fatal error: ")
		}
	}
	for _, prefix := range fatalPrefixes {
		if msg, ok := strings.CutPrefix(line, prefix); ok && w.said.fatal == "" {
			w.said.fatal = strings.TrimSuffix(strings.TrimSpace(msg), " [recovered]")
		}
	}
}

// refusedMemory reports whether line is the runtime saying the kernel
// refused it memory.
func refusedMemory(line string) bool {
	for _, prefix := range memoryPrefixes {
		if strings.HasPrefix(line, prefix) {
			return true
		}
	}
	if msg, ok := strings.CutPrefix(line, "fatal error: "); ok {
		for _, words := range memoryFatals {
			if strings.Contains(msg, words) {
				return true
			}
		}
	}
	return false
}

// last is what the runtime said as the child died.
func (w *lastWords) last() dyingWords {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.said
}

// summary says how a child ended: its exit, and its last line.
func (w *lastWords) summary(waitErr error) string {
	w.mu.Lock()
	last := w.lastLine
	w.mu.Unlock()
	how := "it exited"
	var exit *exec.ExitError
	if errors.As(waitErr, &exit) {
		how = fmt.Sprintf("it exited with code %d", exit.ExitCode())
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			how = fmt.Sprintf("it was killed by signal %d (%s)", int(ws.Signal()), ws.Signal())
		}
	}
	if last != "" {
		how += " (" + last + ")"
	}
	return how
}
