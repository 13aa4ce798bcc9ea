package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
)

// Kinds of failure, for errors.Is; the error text says the particulars.
var (
	// ErrRefused: the address is one Platen does not connect to.
	ErrRefused = errors.New("address refused")
	// ErrTooLarge: over the byte or the pixel limit.
	ErrTooLarge = errors.New("image too large")
	// ErrNotImage: the bytes are not a PNG, JPEG, WebP or SVG image.
	ErrNotImage = errors.New("not a PNG, JPEG, WebP or SVG image")
	// ErrBadURL: not a URL or data: URI that can be fetched.
	ErrBadURL = errors.New("bad image source")
)

// failure is a reason in words a shop can read, and whether a retry may
// get past it. It is the only error type this package makes, so that the
// job queue's question has one answer.
type failure struct {
	reason    string
	kind      error // one of the Err values above, or nil
	temporary bool
	cause     error // for errors.Is and logs, never shown by Error
}

func (e *failure) Error() string { return e.reason }

func (e *failure) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.kind, e.cause} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// Temporary reports whether trying again later may succeed where err
// failed: true for timeouts, dropped connections, 5xx, 429 and 408; false
// for refused addresses, other 4xx, images too large or not images, and
// bad sources. Errors from elsewhere count as temporary only when they are
// timeouts, cancellations or dropped connections.
func Temporary(err error) bool {
	var f *failure
	if errors.As(err, &f) {
		return f.temporary
	}
	var netErr net.Error
	switch {
	case err == nil:
		return false
	case errors.As(err, &netErr) && netErr.Timeout():
		return true
	}
	return droppedOrInterrupted(err)
}

func droppedOrInterrupted(err error) bool {
	for _, target := range []error{
		context.DeadlineExceeded, context.Canceled, io.ErrUnexpectedEOF, io.EOF,
		syscall.ECONNRESET, syscall.ECONNREFUSED, syscall.ECONNABORTED, syscall.EPIPE,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

func temporary(reason string, cause error) *failure {
	return &failure{reason: reason, temporary: true, cause: cause}
}

// interrupted is the caller giving up (shutdown, a cancelled job): the
// image was not judged, so a retry may well succeed.
func interrupted(ctx context.Context) *failure {
	return temporary("was interrupted before it was fetched: "+ctx.Err().Error(), ctx.Err())
}

func unsupportedScheme(scheme string) *failure {
	reason := "is not a URL (only http, https and data: URIs are fetched)"
	if scheme != "" {
		reason = fmt.Sprintf("scheme %q is not supported (only http, https and data: URIs are fetched)", clip(scheme, 20))
	}
	return &failure{kind: ErrBadURL, reason: reason}
}

func statusFailure(code int) *failure {
	retry := code >= 500 || code == http.StatusTooManyRequests || code == http.StatusRequestTimeout
	return &failure{reason: fmt.Sprintf("answered %d %s", code, http.StatusText(code)), temporary: retry}
}

func tooManyBytes(size, limit int64) *failure {
	return &failure{kind: ErrTooLarge, reason: "is " + formatBytes(size) + ", over the " + formatBytes(limit) + " limit"}
}

// explain turns what net/http returns into a failure, naming the network
// trouble without Go's addresses and op names.
func explain(err error) *failure {
	var (
		f       *failure
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
	)
	switch {
	case errors.As(err, &f):
		return f
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return &failure{reason: "host " + dnsErr.Name + " not found", cause: err}
	case errors.As(err, &dnsErr):
		return temporary("host "+dnsErr.Name+" could not be looked up", err)
	case errors.As(err, &certErr):
		return &failure{reason: "the server's TLS certificate is not valid: " + certErr.Err.Error(), cause: err}
	case errors.Is(err, syscall.ECONNREFUSED):
		return temporary("connection refused", err)
	case errors.Is(err, syscall.ECONNRESET):
		return temporary("connection reset", err)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return temporary("the server closed the connection before the image was complete", err)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return temporary("could not be downloaded: "+err.Error(), err)
}
