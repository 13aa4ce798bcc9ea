package cluster

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/platentest/poll"
)

// proc is a child process started in a process group of its own, so that
// a kill reaches anything it starts too, and so that the test can stop it
// with a signal without touching any other process on the machine.
type proc struct {
	name string
	path string
	args []string
	env  []string
	log  *os.File // stdout and stderr of every run, appended

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when the current run has exited
	err  error         // how the last run ended, set before done closes
}

// newProc describes a process; start runs it. Its output goes to
// DIR/name.log, printed by the test when it fails.
func newProc(t *testing.T, dir, name, path string, env []string, args ...string) *proc {
	t.Helper()
	log, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{name: name, path: path, args: args, env: env, log: log}
	t.Cleanup(func() {
		p.signal(syscall.SIGKILL)
		p.wait(10 * time.Second)
		if t.Failed() {
			p.dumpLog(t)
		}
		log.Close()
	})
	return p
}

// start runs the process (again, after a kill).
func (p *proc) start(t *testing.T) {
	t.Helper()
	cmd := exec.Command(p.path, p.args...)
	cmd.Env = p.env
	cmd.Stdout, cmd.Stderr = p.log, p.log
	// Pdeathsig: should the test binary die without its cleanups (go
	// test's -timeout panics), the kernel kills the child with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	fmt.Fprintf(p.log, "=== start %s %s\n", p.path, strings.Join(p.args, " "))
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", p.name, err)
	}
	done := make(chan struct{})
	p.mu.Lock()
	p.cmd, p.done = cmd, done
	p.mu.Unlock()
	go func() {
		err := cmd.Wait()
		fmt.Fprintf(p.log, "=== %s exited: %v\n", p.name, err)
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(done)
	}()
}

// signal sends sig to the process's group, if it runs.
func (p *proc) signal(sig syscall.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
}

// wait waits up to d for the current run to exit and reports whether it did.
func (p *proc) wait(d time.Duration) bool {
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	if done == nil {
		return true
	}
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// exitErr is how the last run ended (nil for exit status 0).
func (p *proc) exitErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// exited reports whether the current run has ended.
func (p *proc) exited() bool { return p.wait(0) }

// kill9 kills the process group at once, as a crash would, and waits for it.
func (p *proc) kill9(t *testing.T) {
	t.Helper()
	p.signal(syscall.SIGKILL)
	if !p.wait(10 * time.Second) {
		t.Fatalf("%s did not die of SIGKILL", p.name)
	}
}

// logText is everything the process wrote so far.
func (p *proc) logText() string {
	b, _ := os.ReadFile(p.log.Name())
	return string(b)
}

// dumpLog prints the end of the process's output into the test log.
func (p *proc) dumpLog(t *testing.T) {
	text := p.logText()
	const tail = 16 << 10
	if len(text) > tail {
		text = "…" + text[len(text)-tail:]
	}
	t.Logf("--- %s (%s):\n%s", p.name, p.log.Name(), text)
}

// waitTCP polls addr until it accepts a connection, the process exits, or
// the deadline passes: an external process gives no event to await.
func (p *proc) waitTCP(t *testing.T, addr string, within time.Duration) {
	t.Helper()
	var err error
	if !poll.Within(within, nil, func() bool {
		var conn net.Conn
		if conn, err = net.DialTimeout("tcp", addr, time.Second); err == nil {
			conn.Close()
			return true
		}
		if p.exited() {
			t.Fatalf("%s exited before it listened on %s", p.name, addr)
		}
		return false
	}) {
		t.Fatalf("%s not listening on %s after %s: %v", p.name, addr, within, err)
	}
}

// freePorts returns n distinct loopback ports that were free a moment
// ago, all held open together so that none repeats. limit bounds them
// (SeaweedFS listens on port+10000 for gRPC too, so its ports must leave
// room).
func freePorts(t *testing.T, n, limit int) []int {
	t.Helper()
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	var ports []int
	for len(ports) < n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		port := ln.Addr().(*net.TCPAddr).Port
		if limit > 0 && port > limit {
			continue
		}
		ports = append(ports, port)
	}
	return ports
}

// freeAddr is one free loopback address.
func freeAddr(t *testing.T) string {
	t.Helper()
	return fmt.Sprintf("127.0.0.1:%d", freePorts(t, 1, 0)[0])
}

// childEnv is the test's environment without PLATEN_* or AWS_* variables,
// so that the developer's own settings do not reach the children, plus
// extra.
func childEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PLATEN_") && !strings.HasPrefix(kv, "AWS_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// runOut runs a command to its end and returns its stdout, failing the
// test with its output when it fails.
func runOut(t *testing.T, env []string, path string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", path, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.Bytes()
}
