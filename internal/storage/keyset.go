package storage

import (
	"entgo.io/ent/dialect/sql"

	"github.com/platen-print/platen/internal/pagination"
)

// Every list is newest first by (created_at, a unique key column): the key
// orders rows created in the same microsecond, so that a page continues
// exactly after its cursor's row, never skipping or repeating one while
// rows are inserted (see pagination).

// createdAt is the creation time column every listed table has.
const createdAt = "created_at"

// after is the predicate of the rows that come after cursor c in a list
// newest first by created_at and then key: all rows when c is nil (the
// first page). P is the entity's predicate type, e.g. predicate.Order.
func after[P ~func(*sql.Selector)](c *pagination.Cursor, key string) P {
	if c == nil {
		return func(*sql.Selector) {}
	}
	return func(s *sql.Selector) {
		s.Where(sql.Or(
			sql.LT(s.C(createdAt), c.CreatedAt),
			sql.And(sql.EQ(s.C(createdAt), c.CreatedAt), sql.LT(s.C(key), c.UID)),
		))
	}
}
