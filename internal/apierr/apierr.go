// Package apierr is Platen's one error vocabulary: domain code returns these
// errors, and ToStatus is the single place that turns them into gRPC status
// codes (and so HTTP statuses) with field violations. Internal causes are
// logged by the caller, never sent to clients.
package apierr

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors for the common cases; wrap them with fmt.Errorf("%w") or use
// the constructors below to add a readable message.
var (
	ErrNotFound         = errors.New("not found")
	ErrConflict         = errors.New("conflict")
	ErrPermissionDenied = errors.New("permission denied")
	ErrUnauthenticated  = errors.New("unauthenticated")
	ErrRateLimited      = errors.New("rate limited")
	ErrPrecondition     = errors.New("failed precondition")
)

// Violation names one bad field by its JSON path (items[0].quantity) and says
// what is wrong with it.
type Violation struct {
	Field       string
	Description string
}

// ValidationError is a request that cannot be accepted as sent: 400.
type ValidationError struct {
	Violations []Violation
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = v.String()
	}
	return strings.Join(parts, "; ")
}

func (v Violation) String() string {
	if v.Field == "" {
		return v.Description
	}
	return v.Field + ": " + v.Description
}

// Violations collects field violations while a request is checked.
type Violations struct {
	list []Violation
}

// Add records that field is wrong, with a printf-style description.
func (vs *Violations) Add(field, format string, args ...any) {
	vs.list = append(vs.list, Violation{Field: field, Description: fmt.Sprintf(format, args...)})
}

// Empty reports whether nothing was recorded yet, for checks that only
// make sense on what passed the ones before.
func (vs *Violations) Empty() bool { return len(vs.list) == 0 }

// Err returns a *ValidationError when anything was recorded, else nil.
func (vs *Violations) Err() error {
	if len(vs.list) == 0 {
		return nil
	}
	return &ValidationError{Violations: vs.list}
}

// Invalid is a one-field validation error.
func Invalid(field, format string, args ...any) error {
	var vs Violations
	vs.Add(field, format, args...)
	return vs.Err()
}

// Error is a sentinel with a readable message for the client, and optionally
// the field it concerns.
type Error struct {
	Kind    error
	Message string
	Field   string
}

func (e *Error) Error() string { return e.Message }

// Unwrap lets errors.Is match the sentinel.
func (e *Error) Unwrap() error { return e.Kind }

// NotFound says what was not found: 404.
func NotFound(format string, args ...any) error {
	return &Error{Kind: ErrNotFound, Message: fmt.Sprintf(format, args...)}
}

// Conflict says what conflicts: 409. field may be empty.
func Conflict(field, format string, args ...any) error {
	return &Error{Kind: ErrConflict, Field: field, Message: fmt.Sprintf(format, args...)}
}

// PermissionDenied says which right is missing: 403. field may be empty.
func PermissionDenied(field, format string, args ...any) error {
	return &Error{Kind: ErrPermissionDenied, Field: field, Message: fmt.Sprintf(format, args...)}
}

// Precondition says why the resource's state does not allow the action:
// FAILED_PRECONDITION, 400.
func Precondition(format string, args ...any) error {
	return &Error{Kind: ErrPrecondition, Message: fmt.Sprintf(format, args...)}
}

// RateLimited says which limit the caller passed: 429, with Retry-After.
func RateLimited(format string, args ...any) error {
	return &Error{Kind: ErrRateLimited, Message: fmt.Sprintf(format, args...)}
}

// Unauthenticated says why the caller is not known: 401.
func Unauthenticated(format string, args ...any) error {
	return &Error{Kind: ErrUnauthenticated, Message: fmt.Sprintf(format, args...)}
}
