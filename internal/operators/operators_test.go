package operators

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/auth"
)

func TestPasswordHashes(t *testing.T) {
	password := NewPassword()
	if len(password) != 20 {
		t.Errorf("a generated password of %d characters", len(password))
	}
	hash, err := HashPassword(t.Context(), password)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=65536,t=3,p=4$") || strings.Contains(hash, password) {
		t.Errorf("hash %q", hash)
	}
	if err := CheckPassword(t.Context(), hash, password); err != nil {
		t.Errorf("the right password: %v", err)
	}
	if err := CheckPassword(t.Context(), hash, password+"x"); !errors.Is(err, ErrWrongPassword) {
		t.Errorf("a wrong password: %v", err)
	}
	again, _ := HashPassword(t.Context(), password)
	if again == hash {
		t.Error("two hashes of one password are the same: no salt")
	}
	if err := CheckPassword(t.Context(), "$2a$10$bcrypt", password); err == nil || errors.Is(err, ErrWrongPassword) {
		t.Errorf("a hash of another kind: %v", err)
	}
}

func TestNormalizeEmail(t *testing.T) {
	for in, want := range map[string]string{"Ada@Example.com": "ada@example.com", " grace@example.com ": "grace@example.com"} {
		if got, err := NormalizeEmail(in); err != nil || got != want {
			t.Errorf("NormalizeEmail(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "ada", "Ada <ada@example.com>", "ada@", strings.Repeat("a", 250) + "@example.com"} {
		if got, err := NormalizeEmail(bad); err == nil {
			t.Errorf("NormalizeEmail(%q) = %q; want refused", bad, got)
		}
	}
}

// TestAccountsAtEachCost: Create stores a password at storedCost, and
// CreateAtCost at the cost given, and each checks at its own: a test's
// account (TestCost) signs in without Argon2id's 64 MiB.
func TestAccountsAtEachCost(t *testing.T) {
	for _, c := range []struct {
		create func(Store) (*Created, error)
		prefix string
	}{
		{func(s Store) (*Created, error) { return Create(t.Context(), s, "ada@example.com", "", true, nil) }, "$argon2id$v=19$m=65536,t=3,p=4$"},
		{func(s Store) (*Created, error) {
			return CreateAtCost(t.Context(), s, TestCost, "ada@example.com", "", true, nil)
		}, "$argon2id$v=19$m=32,t=1,p=4$"},
	} {
		store := &hashKeeper{}
		created, err := c.create(store)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(store.hash, c.prefix) {
			t.Errorf("stored %q, want it to start %q", store.hash, c.prefix)
		}
		if err := CheckPassword(t.Context(), store.hash, created.Password); err != nil {
			t.Errorf("%s: the right password: %v", c.prefix, err)
		}
		if err := CheckPassword(t.Context(), store.hash, created.Password+"x"); !errors.Is(err, ErrWrongPassword) {
			t.Errorf("%s: a wrong password: %v", c.prefix, err)
		}
	}
}

// hashKeeper is a Store that keeps the hash of the account it creates.
type hashKeeper struct {
	Store
	hash string
}

func (k *hashKeeper) CreateOperator(_ context.Context, _ *Account, hash string, _ auth.IssuedToken) (int, error) {
	k.hash = hash
	return 1, nil
}
