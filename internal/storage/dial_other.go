//go:build !linux

package storage

import "syscall"

// setUserTimeout does nothing where TCP_USER_TIMEOUT does not exist;
// keepalive and the calls' bound still apply.
func setUserTimeout(string, string, syscall.RawConn) error { return nil }
