package rendersup

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func setDataLimit(limit int64) error {
	if raceEnabled {
		return nil
	}
	l := uint64(limit) //nolint:gosec // positive
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: l, Max: l})
}

// clockTick is the unit of /proc's CPU times: USER_HZ, 100 on every Linux
// architecture Go runs on.
const clockTick = 10 * time.Millisecond

// cpuTime is the CPU time process pid has used, user and system, read
// from /proc; ok is false where it cannot be read (the process is gone).
func cpuTime(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from after its closing one. utime and stime are fields 14 and 15.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * clockTick, true
}

// residentBytes is the memory process pid holds in RAM, from /proc.
func residentBytes(pid int) (int64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0, false
	}
	fields := strings.Fields(string(b))
	if len(fields) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}

// peakResident is the most memory process pid has held (VmHWM).
func peakResident(pid int) (int64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, false
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}
