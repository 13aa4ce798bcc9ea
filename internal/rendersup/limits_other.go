//go:build !linux

package rendersup

import "time"

// Elsewhere only the supervisor's wall-clock limit applies.
func setDataLimit(int64) error { return nil }

func cpuTime(int) (time.Duration, bool) { return 0, false }

func residentBytes(int) (int64, bool) { return 0, false }

func peakResident(int) (int64, bool) { return 0, false }
