package storage

import (
	"context"
	"errors"

	"time"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/apitoken"
	"github.com/platen-print/platen/ent/store"
	"github.com/platen-print/platen/ent/team"
	"github.com/platen-print/platen/ent/webhookcircuit"
	"github.com/platen-print/platen/internal/accounts"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/auth"
	"github.com/platen-print/platen/internal/webhooks"
)

// Team, Store and Token are the accounts package's.
type (
	Team  = accounts.Team
	Store = accounts.Store
	Token = accounts.Token
)

// Bootstrapped is what `platen admin bootstrap` prints.
type Bootstrapped struct {
	TeamID        int    `json:"team_id"`
	StoreID       string `json:"store_id"`
	Token         string `json:"token"`
	WebhookSecret string `json:"webhook_secret"`
}

// LookupToken implements auth.TokenLookup.
func (db *DB) LookupToken(ctx context.Context, hash []byte) (auth.Principal, error) {
	p, err := db.lookupClientToken(ctx, hash)
	if errors.Is(err, apierr.ErrNotFound) {
		return db.lookupOperatorToken(ctx, hash)
	}
	return p, err
}

// lookupClientToken is LookupToken's reading of a client's API token.
func (db *DB) lookupClientToken(ctx context.Context, hash []byte) (auth.Principal, error) {
	row, err := db.read.APIToken.Query().
		Where(apitoken.Hash(hash), apitoken.RevokedAtIsNil()).
		Select(apitoken.FieldID, apitoken.FieldTeamID, apitoken.FieldStoreID).
		Only(ctx)
	if err != nil {
		return auth.Principal{}, notFound(err, "token not found")
	}
	p := auth.Principal{TokenID: row.ID, TeamID: row.TeamID}
	if row.StoreID != nil {
		p.StoreID = *row.StoreID
	}
	return p, nil
}

// Bootstrap creates the team and the store when absent, sets the store's
// webhook URL when one is given, and issues a token bound to the store.
func (db *DB) Bootstrap(ctx context.Context, teamName, storeID string, webhookURL *string) (*Bootstrapped, error) {
	out := &Bootstrapped{StoreID: storeID}
	err := db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		t, err := teamByNameOrCreate(ctx, tx, teamName)
		if err != nil {
			return err
		}
		out.TeamID = t.ID
		st, err := storeOrCreate(ctx, tx, t.ID, storeID)
		if err != nil {
			return err
		}
		if webhookURL != nil {
			if st, err = st.Update().SetWebhookURL(*webhookURL).Save(ctx); err != nil {
				return err
			}
		}
		out.WebhookSecret = st.WebhookSecret
		out.Token, err = issueToken(ctx, tx, t.ID, &storeID, "bootstrap")
		return err
	})
	return out, err
}

func teamByNameOrCreate(ctx context.Context, tx *Tx, name string) (*ent.Team, error) {
	t, err := tx.Team.Query().Where(team.Name(name)).Only(ctx)
	if ent.IsNotFound(err) {
		return tx.Team.Create().SetName(name).Save(ctx)
	}
	return t, err
}

func storeOrCreate(ctx context.Context, tx *Tx, teamID int, storeID string) (*ent.Store, error) {
	st, err := tx.Store.Get(ctx, storeID)
	switch {
	case ent.IsNotFound(err):
		return tx.Store.Create().SetID(storeID).SetTeamID(teamID).SetWebhookSecret(webhooks.NewSecret()).Save(ctx)
	case err != nil:
		return nil, err
	case st.TeamID != teamID:
		return nil, apierr.Conflict("store", "store %q belongs to team %d", storeID, st.TeamID)
	}
	return st, nil
}

func issueToken(ctx context.Context, tx *Tx, teamID int, storeID *string, name string) (string, error) {
	token, _, err := issueTokenRow(ctx, tx, teamID, storeID, name)
	return token, err
}

// issueTokenRow issues a token and returns its value and record.
func issueTokenRow(ctx context.Context, tx *Tx, teamID int, storeID *string, name string) (string, *Token, error) {
	token, hash, prefix := auth.NewToken()
	row, err := tx.APIToken.Create().
		SetTeamID(teamID).
		SetNillableStoreID(storeID).
		SetName(name).
		SetPrefix(prefix).
		SetHash(hash).
		Save(ctx)
	if err != nil {
		return "", nil, err
	}
	return token, tokenFromRow(row), nil
}

// CreateTeam creates a team.
func (db *DB) CreateTeam(ctx context.Context, name string) (*Team, error) {
	row, err := db.write.Team.Create().SetName(name).Save(ctx)
	if ent.IsConstraintError(err) {
		return nil, apierr.Conflict("name", "a team named %q already exists", name)
	}
	if err != nil {
		return nil, err
	}
	return teamFromRow(row), nil
}

// ListTeams lists every team.
func (db *DB) ListTeams(ctx context.Context) ([]*Team, error) {
	rows, err := db.read.Team.Query().Order(ent.Asc(team.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Team, len(rows))
	for i, r := range rows {
		out[i] = teamFromRow(r)
	}
	return out, nil
}

// TeamByName finds a team by its name.
func (db *DB) TeamByName(ctx context.Context, name string) (*Team, error) {
	row, err := db.read.Team.Query().Where(team.Name(name)).Only(ctx)
	if err != nil {
		return nil, notFound(err, "team %q not found", name)
	}
	return teamFromRow(row), nil
}

func teamFromRow(r *ent.Team) *Team {
	return &Team{ID: r.ID, Name: r.Name, CreatedAt: r.CreatedAt.UTC()}
}

// CreateStore creates a store of teamID with a fresh webhook signing secret.
func (db *DB) CreateStore(ctx context.Context, teamID int, storeID string) (*Store, error) {
	row, err := db.write.Store.Create().SetID(storeID).SetTeamID(teamID).SetWebhookSecret(webhooks.NewSecret()).Save(ctx)
	switch {
	case ent.IsConstraintError(err):
		return nil, apierr.Conflict("store_id", "store %q already exists, or team %d does not", storeID, teamID)
	case err != nil:
		return nil, err
	}
	return storeFromRow(row), nil
}

// ListStores lists the stores of a team, or of every team when teamID is 0.
func (db *DB) ListStores(ctx context.Context, teamID int) ([]*Store, error) {
	q := db.read.Store.Query().Order(ent.Asc(store.FieldCreatedAt))
	if teamID != 0 {
		q = q.Where(store.TeamID(teamID))
	}
	rows, err := q.All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Store, len(rows))
	ids := make([]string, len(rows))
	for i, r := range rows {
		out[i], ids[i] = storeFromRow(r), r.ID
	}
	// A circuit is kept for a store whose endpoint failed: few.
	circuits, err := db.read.WebhookCircuit.Query().Where(webhookcircuit.IDIn(ids...)).All(ctx)
	if err != nil {
		return nil, err
	}
	byStore := make(map[string]*ent.WebhookCircuit, len(circuits))
	for _, c := range circuits {
		byStore[c.ID] = c
	}
	for _, st := range out {
		if c := byStore[st.ID]; c != nil {
			st.WebhookFailures, st.WebhookPausedUntil = c.Failures, c.OpenUntil
		}
	}
	return out, nil
}

func storeFromRow(r *ent.Store) *Store {
	return &Store{ID: r.ID, TeamID: r.TeamID, WebhookURL: r.WebhookURL, CreatedAt: r.CreatedAt.UTC()}
}

// IssueToken issues a token of teamID, bound to storeID when it is not nil.
// The store must belong to the team. The token's value is returned once,
// with its record.
func (db *DB) IssueToken(ctx context.Context, teamID int, storeID *string, name string) (string, *Token, error) {
	var (
		token  string
		record *Token
	)
	err := db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		if _, err := tx.Team.Get(ctx, teamID); err != nil {
			return notFound(err, "team %d not found", teamID)
		}
		if storeID != nil {
			st, err := tx.Store.Get(ctx, *storeID)
			if err != nil || st.TeamID != teamID {
				return apierr.NotFound("store %q not found in team %d", *storeID, teamID)
			}
		}
		var err error
		token, record, err = issueTokenRow(ctx, tx, teamID, storeID, name)
		return err
	})
	return token, record, err
}

// ListTokens lists the tokens of a team (every team when teamID is 0).
func (db *DB) ListTokens(ctx context.Context, teamID int) ([]*Token, error) {
	q := db.read.APIToken.Query().Order(ent.Asc(apitoken.FieldID))
	if teamID != 0 {
		q = q.Where(apitoken.TeamID(teamID))
	}
	rows, err := q.All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Token, len(rows))
	for i, r := range rows {
		out[i] = tokenFromRow(r)
	}
	return out, nil
}

func tokenFromRow(r *ent.APIToken) *Token {
	return &Token{ID: r.ID, TeamID: r.TeamID, StoreID: r.StoreID, Name: r.Name, Prefix: r.Prefix,
		CreatedAt: r.CreatedAt.UTC(), RevokedAt: utc(r.RevokedAt)}
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// RevokeToken revokes a token; every process stops accepting it within
// auth.RevocationDelay.
func (db *DB) RevokeToken(ctx context.Context, id int) error {
	n, err := db.write.APIToken.Update().
		Where(apitoken.ID(id), apitoken.RevokedAtIsNil()).
		SetRevokedAt(now()).Save(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return apierr.NotFound("no live token with id %d", id)
	}
	return nil
}
