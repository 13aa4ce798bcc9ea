package storage

import (
	"context"
	"database/sql"
	"time"
)

// SharedCommits reports how many SQLite commits carried more than one write
// transaction (group commit); 0 on PostgreSQL, which has no group commit.
func SharedCommits(db *DB) int64 {
	if db.group == nil {
		return 0
	}
	return db.group.sharedCommits.Load()
}

// ReadPool is the pool of SQLite's read-only connections.
func ReadPool(db *DB) *sql.DB { return db.readPool }

// JobPool is the pool writes take (PostgreSQL's only pool).
func JobPool(db *DB) *sql.DB { return db.writePool }

// InsertVersionAt registers a design version created at at, so that a test
// can give rows the same creation time.
func InsertVersionAt(ctx context.Context, db *DB, teamID int, id string, at time.Time) error {
	return db.write.DesignVersion.Create().SetTeamID(teamID).SetVersionID(id).SetTemplateConfig("{}").
		SetConfigHash(id).SetThumbnails([]string{}).SetCreatedAt(at).Exec(ctx)
}
