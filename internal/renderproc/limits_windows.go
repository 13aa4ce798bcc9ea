package renderproc

import (
	"os"
	"syscall"
)

// Windows has neither a data limit nor inherited pipes beyond the three
// standard ones: render processes cannot start there (Start says so), and
// `platen render` on another machine does the rendering.
func setDataLimit(int64) error { return nil }

func dataLimitHolds() bool { return false }

func childAttr() *syscall.SysProcAttr { return nil }

// selfExe is this program, to start as a render child.
func selfExe() string {
	exe, err := os.Executable()
	if err != nil {
		return os.Args[0]
	}
	return exe
}
