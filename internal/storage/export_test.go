package storage

import "database/sql"

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
