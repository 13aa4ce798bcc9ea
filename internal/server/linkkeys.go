package server

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/platen-print/platen/internal/downloads/token"
	"github.com/platen-print/platen/internal/storage"
)

// How a process learns of a rotated link-signing key (`platen admin keys
// rotate-links`, run anywhere): it reads the keys every keyRefresh, so
// that it signs with the new key within that time, and at once (at most
// every keyMissInterval) when a link arrives that none of its keys signed,
// so that a link another process signed with the new key never fails
// here.
const (
	keyRefresh      = 30 * time.Second
	keyMissInterval = time.Second
)

// linkKeys keeps a signer's keys those of the database.
type linkKeys struct {
	db     *storage.DB
	name   string
	signer *token.Signer

	mu       sync.Mutex
	current  []byte    // the signing key last read
	previous int       // how many previous keys were read with it
	lastMiss time.Time // when a miss last read the keys
}

func newLinkKeys(ctx context.Context, db *storage.DB, name string) (*linkKeys, error) {
	current, previous, err := db.ServiceKeys(ctx, name)
	if err != nil {
		return nil, err
	}
	signer, err := token.NewSigner(current, previous...)
	if err != nil {
		return nil, err
	}
	return &linkKeys{db: db, name: name, signer: signer, current: current, previous: len(previous)}, nil
}

// load reads the keys and gives them to the signer; it reports whether
// they changed.
func (k *linkKeys) load(ctx context.Context) (bool, error) {
	current, previous, err := k.db.ServiceKeys(ctx, k.name)
	if err != nil {
		return false, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if bytes.Equal(current, k.current) && len(previous) == k.previous {
		return false, nil
	}
	if err := k.signer.SetKeys(current, previous...); err != nil {
		return false, err
	}
	k.current, k.previous = current, len(previous)
	return true, nil
}

// reloadOnMiss reads the keys for a link none of them signed, at most
// once every keyMissInterval: forged links cannot make every request read
// the database.
func (k *linkKeys) reloadOnMiss(ctx context.Context) bool {
	k.mu.Lock()
	if time.Since(k.lastMiss) < keyMissInterval {
		k.mu.Unlock()
		return false
	}
	k.lastMiss = time.Now()
	k.mu.Unlock()
	changed, err := k.load(ctx)
	if err != nil {
		slog.Warn("read the link-signing keys", "error", err)
	}
	return changed
}

// refreshLinkKeys reads the keys every keyRefresh until shutdown.
func (s *Server) refreshLinkKeys(k *linkKeys) {
	s.goUntilShutdown(func(ctx context.Context) {
		ticker := time.NewTicker(keyRefresh)
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
			}
			if changed, err := k.load(ctx); err != nil && ctx.Err() == nil {
				slog.Warn("read the link-signing keys", "error", err)
			} else if changed {
				slog.Info("link-signing keys rotated: signing with the new key")
			}
		}
	})
}
