package operators

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Argon2id parameters (RFC 9106's second recommendation, for memory-
// constrained machines): 3 passes over 64 MiB, 4 lanes, a 32-byte key.
// A sign-in costs about a tenth of a second, a guess as much.
const (
	argonTime    = 3
	argonMemory  = 64 << 10 // KiB
	argonThreads = 4
	argonKeyLen  = 32
)

// HashCost is what one Argon2id hash costs: passes over memory (KiB).
type HashCost struct{ Passes, Memory uint32 }

var (
	// storedCost is the cost of every password Platen stores.
	storedCost = HashCost{Passes: argonTime, Memory: argonMemory}
	// TestCost is a hash in well under a millisecond, for the accounts
	// tests make (CreateAtCost): a sign-in checks a password at the cost
	// it was stored with, and at storedCost the operator panel's tests
	// spent three quarters of their CPU hashing. Never for a real account.
	TestCost = HashCost{Passes: 1, Memory: 8 * argonThreads}
)

// HashPassword is the stored form of a password: Argon2id with a random
// salt, in the PHC string format ($argon2id$v=19$m=…,t=…,p=…$salt$key), so
// that the parameters can change without losing old hashes. It takes a
// turn of the process's hashes (ErrPasswordsBusy when none comes).
func HashPassword(ctx context.Context, password string) (string, error) {
	return hashPassword(ctx, password, storedCost)
}

func hashPassword(ctx context.Context, password string, cost HashCost) (string, error) {
	var salt [16]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return "", err
	}
	var key []byte
	err := passwords.run(ctx, func() {
		key = argon2.IDKey([]byte(password), salt[:], cost.Passes, cost.Memory, argonThreads, argonKeyLen)
	})
	if err != nil {
		return "", err
	}
	return phc(salt[:], key, cost), nil
}

// phc is the PHC string of a hash at cost.
func phc(salt, key []byte, cost HashCost) string {
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, cost.Memory, cost.Passes, argonThreads,
		enc.EncodeToString(salt), enc.EncodeToString(key))
}

// CheckPassword compares a password with a hash of HashPassword, in
// constant time; ErrWrongPassword when they differ. It takes a turn of the
// process's hashes (ErrPasswordsBusy when none comes), and the hash's
// parameters must not ask for more memory than HashPassword's.
func CheckPassword(ctx context.Context, hash, password string) error {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return fmt.Errorf("not an argon2id hash")
	}
	var version int
	var memory, passes uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return fmt.Errorf("argon2id version %q", parts[2])
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &passes, &threads); err != nil {
		return fmt.Errorf("argon2id parameters %q: %w", parts[3], err)
	}
	if memory > argonMemory || passes > 2*argonTime || threads == 0 {
		// The pool bounds hashes, not their size: a stored hash asking for
		// more would break the bound.
		return fmt.Errorf("argon2id parameters %q exceed this version's", parts[3])
	}
	enc := base64.RawStdEncoding
	salt, err1 := enc.DecodeString(parts[4])
	want, err2 := enc.DecodeString(parts[5])
	if err1 != nil || err2 != nil {
		return fmt.Errorf("argon2id salt or key is not base64")
	}
	if len(want) != argonKeyLen {
		return fmt.Errorf("argon2id key of %d bytes", len(want))
	}
	var got []byte
	err := passwords.run(ctx, func() {
		got = argon2.IDKey([]byte(password), salt, passes, memory, threads, argonKeyLen)
	})
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare(got, want) != 1 {
		return ErrWrongPassword
	}
	return nil
}
