package storage

import (
	"context"
	"database/sql"
	"encoding/binary"
	"log/slog"
	"os"
	"sync/atomic"
	"time"
)

// SQLite's WAL grows with every commit until a checkpoint copies its pages
// into the database file. By default the connection whose commit takes the
// WAL past 1,000 pages checkpoints it there and then, inside that commit:
// here that is the group committer, so every few large orders one POST
// waited for 4 MB of writes and two fsyncs, and every write queued behind
// it (a fifth of serve's CPU posting 1.1 MB designs, in its commit path).
// The writer's automatic checkpoint is off; a connection of its own
// checkpoints instead, in the background, when the WAL holds
// checkpointFrames pages not yet copied, as SQLite's automatic checkpoint
// would, and PASSIVE as that one is (it never blocks the writer or a
// reader). It looks checkpointDelay after a commit asks, so that a burst of
// commits is looked at once.
const (
	checkpointFrames = 1000
	checkpointDelay  = 20 * time.Millisecond
)

// checkpointer runs SQLite's WAL checkpoints off the commit path.
type checkpointer struct {
	pool *sql.DB // its own connection
	// shm is the database's WAL index, where SQLite keeps how many pages
	// the WAL holds and how many a checkpoint has copied.
	shm  string
	kick chan struct{}
	stop chan struct{}
	done chan struct{}
	// runs counts the checkpoints made; tests read it.
	runs atomic.Int64
}

func newCheckpointer(pool *sql.DB, databaseFile string) *checkpointer {
	c := &checkpointer{pool: pool, shm: databaseFile + "-shm",
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c
}

// committed asks for a checkpoint if the WAL has grown enough. It never
// blocks.
func (c *checkpointer) committed() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *checkpointer) run() {
	defer close(c.done)
	for {
		select {
		case <-c.stop:
			return
		case <-c.kick:
		}
		select {
		case <-c.stop:
			return
		case <-time.After(checkpointDelay):
		}
		if c.uncopiedFrames() >= checkpointFrames {
			c.checkpoint()
		}
	}
}

// uncopiedFrames is how many pages the WAL holds that no checkpoint has
// copied yet, read from the WAL index's header (sqlite.org/walformat.html:
// mxFrame at byte 16, nBackfill at byte 96, in the machine's byte order;
// every platform Go and SQLite share here is little-endian). A header it
// cannot read counts as a full WAL: the checkpoint runs.
func (c *checkpointer) uncopiedFrames() int64 {
	f, err := os.Open(c.shm)
	if err != nil {
		return checkpointFrames
	}
	defer f.Close()
	var header [100]byte
	if _, err := f.ReadAt(header[:], 0); err != nil {
		return checkpointFrames
	}
	frames := int64(binary.LittleEndian.Uint32(header[16:]))
	copied := int64(binary.LittleEndian.Uint32(header[96:]))
	return frames - copied
}

// checkpoint copies what the WAL holds, as far as the readers allow, into
// the database file. A failure is left to the next one: the WAL keeps
// every page until a checkpoint has copied it.
func (c *checkpointer) checkpoint() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var busy, frames, copied int
	if err := c.pool.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied); err != nil {
		slog.Warn("storage: the WAL checkpoint failed; a later commit asks again", "error", err)
		return
	}
	c.runs.Add(1)
}

// close stops the checkpoints; the last connection to close checkpoints
// what is left.
func (c *checkpointer) close() {
	close(c.stop)
	<-c.done
}
