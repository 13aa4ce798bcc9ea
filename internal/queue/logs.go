package queue

import (
	"context"
	"log/slog"
)

// pollOnlyMessage is what River says at every start on a database that
// cannot notify (SQLite, and PostgreSQL through database/sql): expected,
// so not worth an INFO line each time.
const pollOnlyMessage = "Driver does not support listener; entering poll only mode"

// riverLogger is logger with River's expected start-up notice lowered to
// DEBUG; nil stays nil (River's default).
func riverLogger(logger *slog.Logger) *slog.Logger {
	if logger == nil {
		return nil
	}
	return slog.New(quietHandler{logger.Handler()})
}

type quietHandler struct{ slog.Handler }

func (h quietHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == pollOnlyMessage {
		if !h.Handler.Enabled(ctx, slog.LevelDebug) {
			return nil
		}
		r.Level = slog.LevelDebug
	}
	return h.Handler.Handle(ctx, r)
}

func (h quietHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietHandler{h.Handler.WithAttrs(attrs)}
}

func (h quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{h.Handler.WithGroup(name)}
}
