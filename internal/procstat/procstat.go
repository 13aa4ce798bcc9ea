// Package procstat reads what Linux's /proc says of a process: its
// resident memory now and at its peak, the memory it has mapped, its CPU
// time, and its children.
// The render supervisor holds its render processes to their limits with
// it, and the benchmarks and tests measure with it. Elsewhere than Linux
// every reading fails.
package procstat

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is Linux's USER_HZ, the unit of /proc/PID/stat's CPU times:
// 100 on every architecture Go supports (sysconf would need cgo).
const clockTick = 10 * time.Millisecond

// PeakRSS is the most memory the process has held in RAM (VmHWM): what
// the kernel had to give it at most, GC'd heap and runtime included.
func PeakRSS(pid int) (int64, error) { return statusKB(pid, "VmHWM:") }

// RSS is the memory the process holds in RAM now (VmRSS).
func RSS(pid int) (int64, error) { return statusKB(pid, "VmRSS:") }

// MappedData is the private writable memory the process has mapped
// (VmData), in RAM or not: what RLIMIT_DATA holds to. It counts address
// space a program reserved and never touched (a Go program's heap arena
// index, glibc's thread stacks), so it runs far above RSS.
func MappedData(pid int) (int64, error) { return statusKB(pid, "VmData:") }

func statusKB(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no %s", pid, field)
}

// CPUTime is the user and system CPU time the process has used (its
// children's only once they have exited and been waited for).
func CPUTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, may hold spaces: count from after it.
	// utime and stime are fields 14 and 15, so 12 and 13 after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected %q", pid, b)
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected %q", pid, b)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
}

// Children lists the running processes pid started.
func Children(pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var pids []int
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				pids = append(pids, n)
			}
		}
	}
	return pids
}
