package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/platen-print/platen/bench/baseline"
)

// startBaseline starts the plain net/http handler (this program again, with
// -serve-baseline) in a process of its own, as platen serve runs in one,
// and returns once it answers.
func startBaseline(ctx context.Context, logw io.Writer) (_ *env, err error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	e := &env{run: strconv.FormatInt(time.Now().UnixNano(), 36), storeID: storeID, token: "unused",
		cleanup: func() error { return nil }}
	e.seedItemID = e.run + "-seed-item"
	if e.dataDir, err = os.MkdirTemp("", "platen-bench-baseline-"); err != nil {
		return nil, err
	}
	e.logPath = filepath.Join(e.dataDir, "baseline.log")
	defer func() {
		if err != nil {
			err = fmt.Errorf("%w (%v)", err, e.stop())
		}
	}()
	ports, err := freePorts(1)
	if err != nil {
		return e, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))
	e.baseURL = "http://" + addr
	logFile, err := os.Create(e.logPath)
	if err != nil {
		return e, err
	}
	defer logFile.Close()
	e.cmd = exec.Command(self, "-serve-baseline", addr, "-baseline-dir", e.dataDir)
	e.cmd.Stdout, e.cmd.Stderr = logFile, logFile
	if err := e.cmd.Start(); err != nil {
		e.cmd = nil
		return e, err
	}
	e.exited = make(chan struct{})
	go func() {
		e.waitErr = e.cmd.Wait()
		close(e.exited)
	}()
	fmt.Fprintf(logw, "platen-bench: baseline: pid %d on %s\n", e.cmd.Process.Pid, e.baseURL)
	return e, e.waitReady(ctx)
}

// serveBaseline is the -serve-baseline mode: the baseline server itself.
func serveBaseline(ctx context.Context, addr, dir string, stderr io.Writer) int {
	lis, err := net.Listen("tcp", addr)
	if err == nil {
		err = baseline.Serve(ctx, lis, dir)
	}
	if err != nil {
		fmt.Fprintf(stderr, "platen-bench baseline: %v\n", err)
		return 1
	}
	return 0
}
