package rendersup

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
	"github.com/platen-print/platen/internal/rendersvc"
)

// process is one child render process, rendering one request at a time.
type process struct {
	cmd      *exec.Cmd
	requests io.WriteCloser
	answers  io.ReadCloser
	exited   chan struct{} // closed when the process has exited and its stderr is read
	tail     *tailBuffer   // the end of its stderr, for the reason it died
	waitErr  error         // set before exited closes
}

// startProcess starts a child with env (childEnv set), copying its stderr
// to logs.
func startProcess(env []string, logs io.Writer) (*process, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this program to start render processes: %w", err)
	}
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
	p := &process{requests: reqW, answers: ansR, exited: make(chan struct{}), tail: &tailBuffer{max: 16 << 10}}
	p.cmd = &exec.Cmd{
		Path:        exe,
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
	return p, nil
}

// wait copies stderr until the child closes it, then reaps the child.
func (p *process) wait(stderr io.Reader, logs io.Writer) {
	sc := bufio.NewScanner(stderr)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		p.tail.write(line)
		if logs != nil {
			_, _ = logs.Write(append(line, '\n'))
		}
	}
	_, _ = io.Copy(io.Discard, stderr)
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

// render sends req and waits for the answer, within lim. It kills the
// child when a limit is hit or ctx ends first.
func (p *process) render(ctx context.Context, req *renderv1.RenderRequest, lim Limits) outcome {
	answered := make(chan outcome, 1)
	go func() { answered <- p.read() }()
	if err := writeRequest(p.requests, req, lim.Time); err != nil {
		return p.died(lim)
	}
	startCPU, _ := procstat.CPUTime(p.cmd.Process.Pid)
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
// neither response nor error, and unhealthy.
func (p *process) read() outcome {
	resp, failure, err := readAnswer(p.answers)
	if err != nil {
		return outcome{}
	}
	return outcome{resp: resp, err: failure, healthy: !rendersvc.Crashed(failure)}
}

// timeLimited turns the child's own deadline into the limit's failure: a
// render that ran out of time will run out again, so it is not retried.
func timeLimited(o outcome, lim Limits) outcome {
	if status.Code(o.err) == codes.DeadlineExceeded {
		o.err = exceeded(fmt.Sprintf("render exceeded %s (%s)", words(lim.Time), rendersvc.Reason(o.err)))
	}
	return o
}

// died is the outcome of a child that stopped answering: why it exited.
func (p *process) died(lim Limits) outcome {
	p.kill()
	<-p.exited
	return outcome{err: p.deathReason(lim)}
}

// deathReason reads the child's end from its exit and last words.
func (p *process) deathReason(lim Limits) error {
	tail := p.tail.String()
	if overMemory(tail) {
		return memoryExceeded(lim)
	}
	if msg := panicMessage(tail); msg != "" {
		return rendersvc.CrashedError("render crashed: " + msg)
	}
	var exit *exec.ExitError
	if errors.As(p.waitErr, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return rendersvc.CrashedError("render crashed: the render process was killed by " + ws.Signal().String())
		}
		return rendersvc.CrashedError(fmt.Sprintf("render crashed: the render process exited with code %d", exit.ExitCode()))
	}
	return rendersvc.CrashedError("render crashed: the render process stopped answering")
}

// overMemory reports whether a child's last words are those of a Go
// program refused memory: its heap, or a thread's stack, which the data
// limit counts too.
func overMemory(tail string) bool {
	for _, words := range []string{"out of memory", "cannot allocate memory", "pthread_create failed"} {
		if strings.Contains(tail, words) {
			return true
		}
	}
	return false
}

// panicMessage is the message of the panic or fatal error a Go program
// printed before dying, without the goroutine dump.
func panicMessage(tail string) string {
	for _, prefix := range []string{"panic: ", "fatal error: "} {
		if i := strings.LastIndex(tail, "\n"+prefix); i >= 0 || strings.HasPrefix(tail, prefix) {
			line := tail[i+1+len(prefix):]
			if j := strings.IndexByte(line, '\n'); j >= 0 {
				line = line[:j]
			}
			return strings.TrimSuffix(strings.TrimSpace(line), " [recovered]")
		}
	}
	return ""
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

// tailBuffer keeps the last max bytes written to it, by whole lines.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) write(line []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(append(t.buf, line...), '\n')
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
