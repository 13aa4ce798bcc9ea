package operators

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"time"

	"github.com/platen-print/platen/internal/apierr"
)

// SessionTTL is how long a panel session lasts from sign-in.
const SessionTTL = 12 * time.Hour

// ErrSignIn is a sign-in refused: an unknown e-mail and a wrong password
// are not told apart.
var ErrSignIn = errors.New("the e-mail or the password is wrong")

// SessionStore keeps panel sessions.
type SessionStore interface {
	// Credentials returns the account of email with its password hash
	// (apierr.ErrNotFound when there is none).
	Credentials(ctx context.Context, email string) (*Account, string, error)
	// CreateSession stores a session of the operator by its token's hash.
	CreateSession(ctx context.Context, operatorID int, tokenHash []byte, expires time.Time) error
	// SessionAccount returns the account of an unexpired session
	// (apierr.ErrNotFound when there is none).
	SessionAccount(ctx context.Context, tokenHash []byte, now time.Time) (*Account, error)
	// DeleteSession ends a session.
	DeleteSession(ctx context.Context, tokenHash []byte) error
}

// SignIn checks the password of email and opens a session; the token is
// the session cookie's value, shown only to the browser.
func SignIn(ctx context.Context, store SessionStore, email, password string) (*Account, string, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return nil, "", ErrSignIn
	}
	account, hash, err := store.Credentials(ctx, email)
	if errors.Is(err, apierr.ErrNotFound) {
		// Spend a password check all the same, in the same pool, so that
		// neither its time nor a refusal for a busy pool tells which
		// e-mails have accounts.
		if err := CheckPassword(ctx, decoyHash, password); errors.Is(err, ErrPasswordsBusy) {
			return nil, "", err
		}
		return nil, "", ErrSignIn
	}
	if err != nil {
		return nil, "", err
	}
	if err := CheckPassword(ctx, hash, password); err != nil {
		if errors.Is(err, ErrPasswordsBusy) || ctx.Err() != nil {
			return nil, "", err
		}
		return nil, "", ErrSignIn
	}
	var raw [32]byte
	_, _ = rand.Read(raw[:]) // crypto/rand.Read never fails
	token := base64.RawURLEncoding.EncodeToString(raw[:])
	if err := store.CreateSession(ctx, account.ID, SessionHash(token), time.Now().Add(SessionTTL)); err != nil {
		return nil, "", err
	}
	return account, token, nil
}

// SessionHash is the stored form of a session token.
func SessionHash(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// decoyHash is a hash at storedCost whose key is no
// password's: random bytes, so no password matches it short of a preimage
// of Argon2id. Checking against it costs what checking a real hash does.
var decoyHash = phc(
	[]byte("platen.decoy.salt"),
	[]byte{0x5b, 0x1e, 0x9a, 0x3f, 0xc2, 0x77, 0x08, 0xd4, 0x61, 0xae, 0x2c, 0xf0, 0x93, 0x4d, 0xb7, 0x16,
		0xe8, 0x25, 0x7c, 0x0a, 0xd9, 0x42, 0x6b, 0xf5, 0x38, 0x81, 0xcd, 0x1f, 0x64, 0xba, 0x07, 0x9e},
	storedCost,
)
