package operators

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/apierr"
)

// accounts is a SessionStore of one account.
type accounts struct {
	email, hash string
}

func (a accounts) Credentials(_ context.Context, email string) (*Account, string, error) {
	if email != a.email {
		return nil, "", apierr.NotFound("no operator %s", email)
	}
	return &Account{ID: 1, Email: email, Staff: true}, a.hash, nil
}

func (accounts) CreateSession(context.Context, int, []byte, time.Time) error { return nil }
func (accounts) SessionAccount(context.Context, []byte, time.Time) (*Account, error) {
	return nil, apierr.ErrNotFound
}
func (accounts) DeleteSession(context.Context, []byte) error { return nil }

// TestUnknownEmailCostsACheck: a sign-in with an unknown e-mail runs one
// password check in the pool, as a known e-mail's does, so that neither
// its time nor the pool's refusals tell which e-mails have accounts.
func TestUnknownEmailCostsACheck(t *testing.T) {
	hash, err := HashPassword(t.Context(), "right")
	if err != nil {
		t.Fatal(err)
	}
	store := accounts{email: "ada@example.com", hash: hash}
	for _, email := range []string{"ada@example.com", "nobody@example.com", " ADA@example.com"} {
		before := Passwords().Hashes
		if _, _, err := SignIn(t.Context(), store, email, "wrong"); !errors.Is(err, ErrSignIn) {
			t.Errorf("%q: %v, want ErrSignIn", email, err)
		}
		if n := Passwords().Hashes - before; n != 1 {
			t.Errorf("%q: %d password checks, want 1", email, n)
		}
	}
	if _, token, err := SignIn(t.Context(), store, "Ada@Example.com ", "right"); err != nil || token == "" {
		t.Errorf("the right password in another spelling: %v", err)
	}
}

// TestPasswordChecksAreBounded: checks started at once run two at a time;
// those that find no turn in time are refused with ErrPasswordsBusy, a
// 429.
func TestPasswordChecksAreBounded(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 12)
	for range 12 {
		wg.Go(func() { errs <- CheckPassword(t.Context(), decoyHash, "guess") })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, ErrWrongPassword) && !errors.Is(err, ErrPasswordsBusy) {
			t.Errorf("a check: %v", err)
		}
		if errors.Is(err, ErrPasswordsBusy) && apierr.ToStatus(t.Context(), err).Code().String() != "ResourceExhausted" {
			t.Errorf("a refusal maps to %v", apierr.ToStatus(t.Context(), err).Code())
		}
	}
	if s := Passwords(); s.Peak > passwordSlots || s.InFlight != 0 {
		t.Errorf("%+v: more than %d at once, or some left running", s, passwordSlots)
	}
}
