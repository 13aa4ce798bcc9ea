//go:build !linux && !windows

package rendersup

import "syscall"

// Elsewhere no data limit holds: the supervisor's limits alone do.
func setDataLimit(int64) error { return nil }

// childAttr puts a child in its own process group, so that a terminal's
// ^C reaches the supervisor, which stops its children in order.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
