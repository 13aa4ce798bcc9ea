package storage

import (
	"context"
	"fmt"
	"time"

	"entgo.io/ent/dialect"
)

// The readiness table holds one row per process: when it last proved that
// the database takes writes. Nothing in the domain reads it, so it lives
// outside the Ent schema, like River's tables.
const (
	createReadiness = `CREATE TABLE IF NOT EXISTS platen_readiness (
		process VARCHAR(255) PRIMARY KEY,
		checked_at BIGINT NOT NULL
	)`
	upsertReadiness = `INSERT INTO platen_readiness (process, checked_at) VALUES (?, ?)
		ON CONFLICT (process) DO UPDATE SET checked_at = excluded.checked_at`
	upsertReadinessPostgres = `INSERT INTO platen_readiness (process, checked_at) VALUES ($1, $2)
		ON CONFLICT (process) DO UPDATE SET checked_at = excluded.checked_at`
)

func (db *DB) migrateReadiness(ctx context.Context) (int, error) {
	query := `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'platen_readiness'`
	if db.dialect == dialect.Postgres {
		query = `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'platen_readiness'`
	}
	var n int
	if err := db.writePool.QueryRowContext(ctx, query).Scan(&n); err != nil {
		return 0, fmt.Errorf("apply schema: look for the readiness table: %w", err)
	}
	if n > 0 {
		return 0, nil
	}
	if _, err := db.writePool.ExecContext(ctx, createReadiness); err != nil {
		return 0, fmt.Errorf("apply schema: readiness table: %w", err)
	}
	return 1, nil
}

// CheckWrites proves that the database takes a write now: it stores the
// time in process's row and commits, by the path every write takes (on
// SQLite the group commit). A change that is rolled back would not do:
// a full or failing disk, or a file gone read-only, shows only when
// SQLite writes at commit; on PostgreSQL it catches a read-only session or
// a server turned standby. ctx bounds the wait for the transaction (see
// DB.inTx), not the transaction.
func (db *DB) CheckWrites(ctx context.Context, process string) error {
	query := upsertReadiness
	if db.dialect == dialect.Postgres {
		query = upsertReadinessPostgres
	}
	now := time.Now().UnixMilli()
	return db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		_, err := tx.SQL.ExecContext(ctx, query, process, now)
		return err
	})
}
