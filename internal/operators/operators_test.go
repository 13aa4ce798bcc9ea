package operators

import (
	"errors"
	"strings"
	"testing"
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
