package renderproc

import "syscall"

func setDataLimit(limit int64) error {
	if raceEnabled {
		return nil
	}
	l := uint64(limit) //nolint:gosec // positive
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: l, Max: l})
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
