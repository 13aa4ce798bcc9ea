package apierr

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"google.golang.org/grpc/codes"
)

type pgError struct{ code string }

// connLockError is what pgx answers on a pooled connection the network
// already closed: "conn closed", safe to retry as nothing was sent.
type connLockError struct{}

func (connLockError) Error() string     { return "conn closed" }
func (connLockError) SafeToRetry() bool { return true }

// sentError failed after the statement went out: retrying could do it twice.
type sentError struct{}

func (sentError) Error() string     { return "bad statement" }
func (sentError) SafeToRetry() bool { return false }

func (e pgError) Error() string    { return "server said " + e.code }
func (e pgError) SQLState() string { return e.code }

// The database's absence is 503 UNAVAILABLE, the client's to retry; the
// database's refusals and Platen's own faults are not.
func TestUnreachable(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	cases := []struct {
		err  error
		want codes.Code
	}{
		{fmt.Errorf("query: %w", dial), codes.Unavailable},
		{fmt.Errorf("query: %w", driver.ErrBadConn), codes.Unavailable},
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), codes.Unavailable},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), codes.Unavailable},
		{fmt.Errorf("tx: %w", pgError{"57P01"}), codes.Unavailable}, // admin_shutdown: a restart
		{fmt.Errorf("tx: %w", pgError{"08006"}), codes.Unavailable}, // connection_failure
		{fmt.Errorf("tx: %w", pgError{"25006"}), codes.Internal},    // read-only transaction: a fault, not an absence
		{fmt.Errorf("tx: %w", pgError{"23505"}), codes.Internal},
		{errors.New("nil pointer"), codes.Internal},
		{context.DeadlineExceeded, codes.DeadlineExceeded},
		{fmt.Errorf("begin: %w", connLockError{}), codes.Unavailable},
		{fmt.Errorf("read: %w", io.EOF), codes.Unavailable},
		{fmt.Errorf("query: %w", sentError{}), codes.Internal},
		{fmt.Errorf("read: %w", syscall.ETIMEDOUT), codes.Unavailable}, // TCP_USER_TIMEOUT or keepalive gave up
		// A statement past --db-timeout: the database's silence, not the caller's deadline.
		{fmt.Errorf("query: %w: %w", ErrDatabaseTimeout, context.DeadlineExceeded), codes.Unavailable},
		{fmt.Errorf("query: %w", context.DeadlineExceeded), codes.DeadlineExceeded},
		{fmt.Errorf("query: %w", context.Canceled), codes.Canceled},
	}
	for _, tc := range cases {
		if got := ToStatus(context.Background(), tc.err).Code(); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.err, got, tc.want)
		}
	}
}
