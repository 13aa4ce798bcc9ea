package rendersup

import "syscall"

func setDataLimit(limit int64) error {
	if raceEnabled {
		return nil
	}
	l := uint64(limit) //nolint:gosec // positive
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: l, Max: l})
}
