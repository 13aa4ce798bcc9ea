//go:build !linux

package rendersup

// Elsewhere no data limit holds: the supervisor's limits alone do.
func setDataLimit(int64) error { return nil }
