// Package operators owns operator accounts: the people of the print shop
// who work in the operator panel and the operator API. Staff see every
// team; a team's operator sees that team only. An account has a password
// (for the panel; only an Argon2id hash is stored) and any number of
// operator API tokens (only their SHA-256 is stored), each shown once.
package operators

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/mail"
	"strings"
	"time"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
)

// Account is an operator account.
type Account struct {
	ID    int
	Email string
	Name  string
	Staff bool
	// TeamID is the team a team operator belongs to; nil for staff.
	TeamID    *int
	CreatedAt time.Time
}

// Store keeps accounts and their tokens.
type Store interface {
	// CreateOperator stores a (its ID set) with its password hash and a
	// first token, in one transaction; an email taken is apierr.ErrConflict,
	// a team that does not exist apierr.ErrNotFound.
	CreateOperator(ctx context.Context, a *Account, passwordHash string, token auth.IssuedToken) (tokenID int, err error)
	// IssueOperatorToken adds a token to the account of email
	// (apierr.ErrNotFound when there is none) and returns the account.
	IssueOperatorToken(ctx context.Context, email string, token auth.IssuedToken) (*Account, int, error)
	// RevokeOperatorToken revokes a token by id (apierr.ErrNotFound when
	// unknown); every process stops accepting it within
	// auth.RevocationDelay.
	RevokeOperatorToken(ctx context.Context, id int) error
}

// Created is a new account with its password and first token, shown once.
type Created struct {
	*Account
	Password string
	Token    string
	TokenID  int
}

// Create makes an account for email: staff, or an operator of teamID
// (exactly one of the two), with a generated password and a token.
func Create(ctx context.Context, store Store, email, name string, staff bool, teamID *int) (*Created, error) {
	return CreateAtCost(ctx, store, storedCost, email, name, staff, teamID)
}

// CreateAtCost is Create with the password hashed at cost: TestCost, for
// the accounts of tests (every other account is Create's).
func CreateAtCost(ctx context.Context, store Store, cost HashCost, email, name string, staff bool, teamID *int) (*Created, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return nil, err
	}
	if staff == (teamID != nil) {
		return nil, apierr.Invalid("team_id", "give exactly one of staff or a team")
	}
	password := NewPassword()
	hash, err := hashPassword(ctx, password, cost)
	if err != nil {
		return nil, err
	}
	token, issued := auth.NewOperatorToken()
	a := &Account{Email: email, Name: name, Staff: staff, TeamID: teamID}
	id, err := store.CreateOperator(ctx, a, hash, issued)
	if err != nil {
		return nil, err
	}
	return &Created{Account: a, Password: password, Token: token, TokenID: id}, nil
}

// NormalizeEmail checks an address and returns it in lower case.
func NormalizeEmail(email string) (string, error) {
	email = strings.TrimSpace(email)
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email || len(email) > 254 {
		return "", apierr.Invalid("email", "must be an e-mail address such as ada@example.com, got %q", email)
	}
	return strings.ToLower(email), nil
}

// NewPassword is a generated password: 20 characters of base64url, 120
// random bits, to be changed in the panel or kept in a password manager.
func NewPassword() string {
	var raw [15]byte
	_, _ = rand.Read(raw[:])
	return base64.RawURLEncoding.EncodeToString(raw[:])
}

// ErrWrongPassword is a password that does not match its hash.
var ErrWrongPassword = errors.New("wrong password")
