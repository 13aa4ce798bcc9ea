package storage

import (
	"context"
	"time"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/operator"
	"github.com/platen-print/platen/ent/operatorsession"
	"github.com/platen-print/platen/ent/operatortoken"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/operators"
)

// Operators keeps operator accounts and their tokens.
type Operators struct{ db *DB }

// Operators returns the operator accounts' store.
func (db *DB) Operators() *Operators { return &Operators{db: db} }

var _ operators.Store = (*Operators)(nil)

// CreateOperator stores a with its password hash and a first token.
func (s *Operators) CreateOperator(ctx context.Context, a *operators.Account, passwordHash string, token auth.IssuedToken) (int, error) {
	var tokenID int
	err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		if a.TeamID != nil {
			if _, err := tx.Team.Get(ctx, *a.TeamID); err != nil {
				return notFound(err, "team %d not found", *a.TeamID)
			}
		}
		row, err := tx.Operator.Create().SetEmail(a.Email).SetName(a.Name).SetStaff(a.Staff).
			SetNillableTeamID(a.TeamID).SetPasswordHash(passwordHash).Save(ctx)
		if ent.IsConstraintError(err) {
			return apierr.Conflict("email", "an operator with the e-mail %s exists", a.Email)
		}
		if err != nil {
			return err
		}
		a.ID, a.CreatedAt = row.ID, row.CreatedAt.UTC()
		tokenID, err = insertOperatorToken(ctx, tx, row.ID, token)
		return err
	})
	return tokenID, err
}

func insertOperatorToken(ctx context.Context, tx *Tx, operatorID int, token auth.IssuedToken) (int, error) {
	row, err := tx.OperatorToken.Create().SetOperatorID(operatorID).SetHash(token.Hash).SetPrefix(token.Display).Save(ctx)
	if err != nil {
		return 0, err
	}
	return row.ID, nil
}

// IssueOperatorToken adds a token to the account of email.
func (s *Operators) IssueOperatorToken(ctx context.Context, email string, token auth.IssuedToken) (*operators.Account, int, error) {
	var a *operators.Account
	var tokenID int
	err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		row, err := tx.Operator.Query().Where(operator.Email(email)).Only(ctx)
		if err != nil {
			return notFound(err, "no operator with the e-mail %s", email)
		}
		a = accountFromRow(row)
		tokenID, err = insertOperatorToken(ctx, tx, row.ID, token)
		return err
	})
	return a, tokenID, err
}

// RevokeOperatorToken revokes an operator token by id.
func (s *Operators) RevokeOperatorToken(ctx context.Context, id int) error {
	n, err := s.db.write.OperatorToken.Update().
		Where(operatortoken.ID(id), operatortoken.RevokedAtIsNil()).
		SetRevokedAt(time.Now().UTC()).Save(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return apierr.NotFound("no live operator token with id %d", id)
	}
	return nil
}

// lookupOperatorToken is LookupToken's reading of an operator token.
func (db *DB) lookupOperatorToken(ctx context.Context, hash []byte) (auth.Principal, error) {
	row, err := db.read.OperatorToken.Query().
		Where(operatortoken.Hash(hash), operatortoken.RevokedAtIsNil()).
		WithOperator(func(q *ent.OperatorQuery) { q.Select(operator.FieldStaff, operator.FieldTeamID) }).
		Only(ctx)
	if err != nil {
		return auth.Principal{}, notFound(err, "token not found")
	}
	op := row.Edges.Operator
	p := auth.Principal{TokenID: row.ID, OperatorID: row.OperatorID, Staff: op.Staff}
	if op.TeamID != nil {
		p.TeamID = *op.TeamID
	}
	return p, nil
}

func accountFromRow(r *ent.Operator) *operators.Account {
	return &operators.Account{ID: r.ID, Email: r.Email, Name: r.Name, Staff: r.Staff, TeamID: r.TeamID, CreatedAt: r.CreatedAt.UTC()}
}

var _ operators.SessionStore = (*Operators)(nil)

// Credentials returns the account of email with its password hash.
func (s *Operators) Credentials(ctx context.Context, email string) (*operators.Account, string, error) {
	row, err := s.db.read.Operator.Query().Where(operator.Email(email)).Only(ctx)
	if err != nil {
		return nil, "", notFound(err, "no operator %s", email)
	}
	return accountFromRow(row), row.PasswordHash, nil
}

// CreateSession stores a panel session.
func (s *Operators) CreateSession(ctx context.Context, operatorID int, tokenHash []byte, expires time.Time) error {
	return s.db.write.OperatorSession.Create().SetOperatorID(operatorID).SetTokenHash(tokenHash).SetExpiresAt(expires.UTC()).Exec(ctx)
}

// SessionAccount returns the account of an unexpired session.
func (s *Operators) SessionAccount(ctx context.Context, tokenHash []byte, now time.Time) (*operators.Account, error) {
	sess, err := s.db.read.OperatorSession.Query().
		Where(operatorsession.TokenHash(tokenHash), operatorsession.ExpiresAtGT(now.UTC())).Only(ctx)
	if err != nil {
		return nil, notFound(err, "no such session")
	}
	row, err := s.db.read.Operator.Get(ctx, sess.OperatorID)
	if err != nil {
		return nil, notFound(err, "no such session")
	}
	return accountFromRow(row), nil
}

// DeleteSession ends a session.
func (s *Operators) DeleteSession(ctx context.Context, tokenHash []byte) error {
	_, err := s.db.write.OperatorSession.Delete().Where(operatorsession.TokenHash(tokenHash)).Exec(ctx)
	return err
}

// PurgeSessions deletes the sessions expired by now.
func (s *Operators) PurgeSessions(ctx context.Context, now time.Time) (int, error) {
	return s.db.write.OperatorSession.Delete().Where(operatorsession.ExpiresAtLTE(now.UTC())).Exec(ctx)
}
