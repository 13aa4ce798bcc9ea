package operators

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"sync"
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
		// Spend a password check's time all the same, so that timing does
		// not tell which e-mails have accounts.
		_ = CheckPassword(decoyHash(), password)
		return nil, "", ErrSignIn
	}
	if err != nil {
		return nil, "", err
	}
	if CheckPassword(hash, password) != nil {
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

// decoyHash is a password hash no password matches in practice, made on
// first use (a hash costs 64 MiB and a tenth of a second).
var decoyHash = sync.OnceValue(func() string {
	h, _ := HashPassword("decoy password that is never anyone's")
	return h
})
