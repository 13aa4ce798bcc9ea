// Package accounts is the staff's side of tenancy in the operator API:
// teams (the clients), the store ids assigned to them, and their API
// tokens, which are shown once and stored as hashes. Only staff operators
// reach it, but for a team's operator listing their own team's stores.
package accounts

import (
	"context"
	"time"
)

// Team is a client account.
type Team struct {
	ID        int       `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
}

// Store is a shop connection of a team.
type Store struct {
	ID         string    `json:"id"`
	TeamID     int       `json:"team_id"`
	WebhookURL *string   `json:"webhook_url"`
	CreatedAt  time.Time `json:"created_at"`
	// How its webhook endpoint has answered: attempts failed in a row, and
	// the end of the pause those failures started (nil when none).
	WebhookFailures    int        `json:"-"`
	WebhookPausedUntil *time.Time `json:"-"`
}

// Words of a store's webhook health.
const (
	WebhookNone    = "none"
	WebhookHealthy = "healthy"
	WebhookFailing = "failing"
	WebhookPaused  = "paused"
)

// WebhookHealth is how the store's endpoint answers, as of now.
func (st *Store) WebhookHealth(now time.Time) string {
	switch {
	case st.WebhookURL == nil:
		return WebhookNone
	case st.WebhookPausedUntil != nil && now.Before(*st.WebhookPausedUntil):
		return WebhookPaused
	case st.WebhookFailures > 0:
		return WebhookFailing
	}
	return WebhookHealthy
}

// Token is an API token as listings show it: never the token itself.
type Token struct {
	ID        int        `json:"id"`
	TeamID    int        `json:"team_id"`
	StoreID   *string    `json:"store_id"`
	Name      string     `json:"name"`
	Prefix    string     `json:"prefix"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at"`
}

// Registry keeps teams, stores and tokens (storage.DB; the admin commands
// use it too).
type Registry interface {
	CreateTeam(ctx context.Context, name string) (*Team, error)
	// ListTeams lists every team by id.
	ListTeams(ctx context.Context) ([]*Team, error)
	CreateStore(ctx context.Context, teamID int, storeID string) (*Store, error)
	// ListStores lists a team's stores, or every team's for teamID 0.
	ListStores(ctx context.Context, teamID int) ([]*Store, error)
	// IssueToken returns a new token's value, once, and its record.
	IssueToken(ctx context.Context, teamID int, storeID *string, name string) (string, *Token, error)
	// ListTokens lists a team's tokens by id, or every team's for 0.
	ListTokens(ctx context.Context, teamID int) ([]*Token, error)
	RevokeToken(ctx context.Context, id int) error
}
