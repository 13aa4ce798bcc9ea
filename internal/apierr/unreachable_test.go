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
	}
	for _, tc := range cases {
		if got := ToStatus(context.Background(), tc.err).Code(); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.err, got, tc.want)
		}
	}
}
