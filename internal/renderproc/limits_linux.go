package renderproc

import (
	"os"
	"runtime"
	"syscall"

	"github.com/platen-print/platen/internal/procstat"
)

// dataLimitHolds reports whether the kernel holds a child to its memory
// limit (setDataLimit): on Linux, except under the race detector.
func dataLimitHolds() bool { return !raceEnabled }

// setDataLimit lets the child map limit more than it has mapped when
// ready, and room for the thread stacks it may yet start. RLIMIT_DATA
// counts every private writable mapping, most of which no render uses
// and never reaches RAM: a ready child (Go 1.26, amd64, with cgo) has
// mapped 110 MB and holds 20 MB, of which 32 MB is the FIPS entropy
// buffer Go's crypto keeps in the program's BSS, 32 MB the runtime's heap
// arena index, and 8 MB each glibc's thread stacks. Counted against the
// limit, they left a 128 MB child 18 MB to render in, and a fresh child
// failed an ordinary render; counted apart, the limit is the render's
// heap, as --render-memory-mb says.
func setDataLimit(limit int64) error {
	if !dataLimitHolds() {
		return nil
	}
	mapped, err := procstat.MappedData(os.Getpid())
	if err != nil {
		return err
	}
	l := uint64(mapped + limit + threadStackRoom()) //nolint:gosec // positive
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: l, Max: l})
}

// threadStackRoom is the data a child's threads may yet map. Built with
// cgo (net and os/user link it where a C compiler is found), the runtime
// starts each thread with pthread_create, and glibc maps each a stack of
// RLIMIT_STACK's size (where that is unlimited, an architecture's
// default: 2 MB on amd64; 8 MB here covers the others). A child started
// 2 threads more than it had when ready (5 to 7, rendering with
// GOMAXPROCS 2), and a thread the limit refuses kills it; the room is for
// GOMAXPROCS+8. Without cgo the runtime takes a thread's stack from its
// heap (16 KB). The room loosens the kernel's limit where cgo is in; the
// supervisor's watch on resident memory holds either way.
func threadStackRoom() int64 {
	if !cgoThreads {
		return 0
	}
	stack := int64(8 << 20)
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_STACK, &rl); err == nil && rl.Cur < 1<<32 { // not unlimited
		stack = int64(rl.Cur)
	}
	return int64(runtime.GOMAXPROCS(0)+8) * stack
}

// childAttr puts a child in its own process group, so that a terminal's
// ^C reaches the supervisor, which stops its children in order; and has
// the kernel kill it if the supervisor dies first (a kill -9), so that no
// render outlives the process that wants it.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// selfExe is this program, to start as a render child: the file the
// process runs, even if an upgrade has replaced or removed its path since.
func selfExe() string { return "/proc/self/exe" }
