// Package ent holds Platen's Ent schema (ent/schema, hand-written) and the
// code Ent generates from it (everything else here, committed, never edited).
package ent

//go:generate go tool -modfile=../tools/go.mod ent generate --feature sql/upsert,sql/execquery ./schema
