//go:build !linux && !windows

package renderproc

import (
	"os"
	"syscall"
)

// Elsewhere no data limit holds: the supervisor's limits alone do.
func setDataLimit(int64) error { return nil }

func dataLimitHolds() bool { return false }

// childAttr puts a child in its own process group, so that a terminal's
// ^C reaches the supervisor, which stops its children in order.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// selfExe is this program, to start as a render child.
func selfExe() string {
	exe, err := os.Executable()
	if err != nil {
		return os.Args[0]
	}
	return exe
}
