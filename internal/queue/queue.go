// Package queue runs Platen's durable jobs (renders, webhook deliveries)
// on River, in the same database as the data: SQLite or PostgreSQL, both
// through database/sql. So a job is inserted in the same transaction as
// the change that causes it, and a crash or restart loses neither.
package queue

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
)

// Config tunes the queue.
type Config struct {
	// Workers is how many jobs of the default queue run at once in this
	// process; with no Queues either, the client only inserts.
	Workers int
	// Queues are the other named queues and how many of their jobs run at
	// once here (renders have a queue of their own, so that they never hold
	// up quick jobs such as clean-ups and webhooks).
	Queues map[string]int
	// ID names this process among those working the database; it should
	// be the same across its restarts, so that Rescue finds the jobs it
	// left running. Each run adds a suffix of its own for River (see New).
	// Empty: a random one.
	ID string
	// JobTimeout bounds a job's run unless its worker says otherwise;
	// RescueAfter is when another process may consider a running job lost
	// (it must exceed every job's timeout).
	JobTimeout, RescueAfter time.Duration
	// ReclaimAfter is how long a job this process stopped working may stay
	// running in the database, its outcome unrecorded, before the process
	// makes it available again (see reclaimer). Zero means
	// DefaultReclaimAfter; below zero, never (River's rescuer still does,
	// after RescueAfter).
	ReclaimAfter time.Duration
	// PollInterval is how often idle workers look for new jobs: it bounds
	// the delay between a commit and its job starting when no wake (see
	// WakeSoon) reaches them.
	PollInterval time.Duration
	Logger       *slog.Logger
}

// fetchCooldown is the shortest time between two fetches of a queue. River
// fetches again when a worker frees its slot, but no sooner than this: at
// its default of 100 ms a queue of N workers ran at most 10×N jobs a
// second however quick they were (20 renders/s on two CPUs, BENCHMARKS.md).
// Polls still come every PollInterval only, so an idle queue costs no more.
const fetchCooldown = 5 * time.Millisecond

// Queue is a River client over database/sql transactions.
type Queue struct {
	client  *river.Client[*sql.Tx]
	pool    *sql.DB
	dialect string
	id      string // Config.ID, cut to leave room for the run's suffix

	reclaim     *reclaimer // nil when this client works no jobs
	stopReclaim func()     // set by Start
	working     bool       // this client works jobs
	listens     bool       // River LISTENs (PostgreSQL): a wake is a NOTIFY
	wakes       wakes      // see WakeSoon
}

// runSuffixLen is the length of "/" and the 8 hex digits that tell runs
// of a process apart; River's IDs are at most 100 characters.
const runSuffixLen = 9

// runID is the River client ID of one run of the process named id: two
// processes that share a name by mistake (one host, one data directory)
// then never take each other's jobs for their own while both run.
func runID(id string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return id + "/" + hex.EncodeToString(b[:])
}

func driver(pool *sql.DB, dialect string) (riverdriver.Driver[*sql.Tx], error) {
	switch dialect {
	case "sqlite3", "sqlite":
		return riversqlite.New(pool), nil
	case "postgres":
		return listeningDriver{Driver: riverdatabasesql.New(pool), pool: pool}, nil
	}
	return nil, fmt.Errorf("queue: no River driver for %q", dialect)
}

// Migrate applies River's schema; it is safe on every start.
func Migrate(ctx context.Context, pool *sql.DB, dialect string) error {
	_, err := MigrateCounting(ctx, pool, dialect)
	return err
}

// MigrateCounting is Migrate, and returns how many changes it applied:
// River's migrations, and the team index when it was missing.
func MigrateCounting(ctx context.Context, pool *sql.DB, dialect string) (int, error) {
	drv, err := driver(pool, dialect)
	if err != nil {
		return 0, err
	}
	m, err := rivermigrate.New(drv, nil)
	if err != nil {
		return 0, fmt.Errorf("queue: %w", err)
	}
	res, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return 0, fmt.Errorf("queue: migrate: %w", err)
	}
	changes := len(res.Versions)
	indexed, err := hasTeamIndex(ctx, pool, dialect)
	if err != nil {
		return 0, fmt.Errorf("queue: look for the team index: %w", err)
	}
	if indexed {
		return changes, nil
	}
	index := teamIndex["sqlite"]
	if dialect == "postgres" {
		index = teamIndex["postgres"]
	}
	if _, err := pool.ExecContext(ctx, index); err != nil {
		return 0, fmt.Errorf("queue: index the jobs by team: %w", err)
	}
	return changes + 1, nil
}

// hasTeamIndex tells whether the team index exists (on PostgreSQL, in the
// schema the connection's search_path names first, where it is created).
func hasTeamIndex(ctx context.Context, pool *sql.DB, dialect string) (bool, error) {
	query := `SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'platen_river_job_team'`
	if dialect == "postgres" {
		query = `SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'platen_river_job_team'`
	}
	var n int
	err := pool.QueryRowContext(ctx, query).Scan(&n)
	return n > 0, err
}

// New returns a queue on pool running the workers' kinds.
func New(pool *sql.DB, dialect string, workers *river.Workers, cfg Config) (*Queue, error) {
	drv, err := driver(pool, dialect)
	if err != nil {
		return nil, err
	}
	q := &Queue{pool: pool, dialect: dialect, id: cfg.ID, listens: drv.SupportsListener()}
	if len(q.id) > 100-runSuffixLen {
		q.id = q.id[:100-runSuffixLen]
	}
	rc := &river.Config{
		Workers:              workers,
		Logger:               riverLogger(cfg.Logger),
		FetchPollInterval:    cfg.PollInterval,
		JobTimeout:           cfg.JobTimeout,
		RescueStuckJobsAfter: cfg.RescueAfter,
	}
	if q.id != "" {
		rc.ID = runID(q.id)
	}
	if cfg.PollInterval > 0 {
		rc.FetchCooldown = min(cfg.PollInterval, fetchCooldown)
	}
	working := cfg.Workers > 0 || len(cfg.Queues) > 0
	q.working = working
	if working {
		// A second queue on the same workers has the worker already.
		_ = river.AddWorkerSafely(workers, wakeWorker{})
	}
	if working && cfg.ReclaimAfter >= 0 {
		after := cmp.Or(cfg.ReclaimAfter, DefaultReclaimAfter)
		q.reclaim = &reclaimer{
			pool: pool, dialect: dialect, jobs: newInFlight(), logger: cfg.Logger,
			after: after, interval: sweepInterval(after),
			unseen: map[int64]sighting{},
		}
		rc.Middleware = []rivertype.Middleware{q.reclaim.jobs}
	}
	if working {
		rc.Middleware = append(rc.Middleware, &cancelShield{})
		rc.Queues = map[string]river.QueueConfig{}
		if cfg.Workers > 0 {
			rc.Queues[river.QueueDefault] = river.QueueConfig{MaxWorkers: cfg.Workers}
		}
		for name, n := range cfg.Queues {
			rc.Queues[name] = river.QueueConfig{MaxWorkers: n}
		}
	}
	client, err := river.NewClient(drv, rc)
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	q.client = client
	if q.reclaim != nil {
		q.reclaim.clientID = client.ID()
		if q.reclaim.logger == nil {
			q.reclaim.logger = slog.Default()
		}
	}
	return q, nil
}

// Rescue makes the jobs this process left running when it stopped
// without finishing them (a crash, a kill) available again at once, so
// that a restart leaves nothing stuck until River's own rescuer would find
// them. Call it before Start. On SQLite the one `platen serve` owns every
// job in the file; on PostgreSQL only jobs last attempted under this
// process's ID (by any run of it) are taken: other processes may still be
// running theirs. It returns how many jobs it made available.
func (q *Queue) Rescue(ctx context.Context) (int64, error) {
	var res sql.Result
	var err error
	switch q.dialect {
	case "postgres":
		if q.id == "" {
			return 0, nil
		}
		// Runs before the run suffix had none: both forms are this process's.
		res, err = q.pool.ExecContext(ctx, `UPDATE river_job SET state = 'available'
			WHERE state = 'running' AND (attempted_by[array_length(attempted_by, 1)] = $1
				OR left(attempted_by[array_length(attempted_by, 1)], length($1) + 1) = $1 || '/')`, q.id)
	default:
		res, err = q.pool.ExecContext(ctx, `UPDATE river_job SET state = 'available' WHERE state = 'running'`)
	}
	if err != nil {
		return 0, fmt.Errorf("queue: rescue running jobs: %w", err)
	}
	return res.RowsAffected()
}

// Start starts working jobs, and looking every few seconds for jobs of
// its own left running (see reclaimer); it returns at once.
func (q *Queue) Start(ctx context.Context) error {
	if err := q.client.Start(ctx); err != nil {
		return err
	}
	if q.reclaim != nil && q.stopReclaim == nil {
		rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		done := make(chan struct{})
		go func() {
			defer close(done)
			q.reclaim.run(rctx)
		}()
		q.stopReclaim = func() { cancel(); <-done }
	}
	return nil
}

// Stop lets running jobs finish for half the time ctx leaves, cancels
// those still running, waits for them to hand their jobs back, and stops.
func (q *Queue) Stop(ctx context.Context) error {
	if q.stopReclaim != nil {
		q.stopReclaim()
		q.stopReclaim = nil
	}
	// Half the time left lets running jobs finish; then the rest are
	// cancelled, so that a render of minutes does not outlast the
	// shutdown: it ends with its context's error, which River records and
	// retries after the restart, rather than left running as if the
	// process had died.
	soft := ctx
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		soft, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(deadline)/2))
		defer cancel()
	}
	defer q.wakes.stop()
	if err := q.client.Stop(soft); err == nil || ctx.Err() != nil {
		return err
	}
	return q.client.StopAndCancel(ctx)
}

// wakeArgs is a job that does nothing. Inserted outside a transaction, a
// job makes River fetch its queue at once in this process; without LISTEN
// (SQLite) that is the only way to start a job queued in a transaction
// sooner than the next poll.
type wakeArgs struct{}

// insertTopic is River's notification topic for inserted jobs
// (notifier.NotificationTopicInsert, internal to River).
const insertTopic = "river_insert"

func (wakeArgs) Kind() string { return "queue_wake" }

type wakeWorker struct{ river.WorkerDefaults[wakeArgs] }

func (wakeWorker) Work(context.Context, *river.Job[wakeArgs]) error { return nil }

// Wake makes the workers of queue name look for jobs now rather than at
// their next poll. Call it once the transaction that queued the jobs has
// committed. On PostgreSQL it is River's insert notification, heard by
// every process: River sends one in the transaction too, but at most one
// per queue every few milliseconds, so a job committed right after
// another's fetch could wait for the poll. On SQLite it wakes this
// process's workers, and a client that works no jobs does nothing.
func (q *Queue) Wake(ctx context.Context, name string) error {
	if q.listens {
		payload, err := json.Marshal(map[string]string{"queue": name})
		if err != nil {
			return err
		}
		// Sent as River sends its own, on the channel its listener hears.
		return q.client.Driver().GetExecutor().NotifyMany(ctx, &riverdriver.NotifyManyParams{
			Topic: insertTopic, Payload: []string{string(payload)},
		})
	}
	if !q.working {
		return nil
	}
	_, err := q.client.Insert(ctx, wakeArgs{}, &river.InsertOpts{Queue: name, MaxAttempts: 1})
	return err
}

// InsertTx adds a job inside tx: it exists only if tx commits.
func (q *Queue) InsertTx(ctx context.Context, tx *sql.Tx, args river.JobArgs, opts *river.InsertOpts) error {
	_, err := q.client.InsertTx(ctx, tx, args, opts)
	return err
}

// Client is the River client, for what the wrappers here do not cover.
func (q *Queue) Client() *river.Client[*sql.Tx] { return q.client }

// InsertEachTx inserts a job per uid, with the args args makes of it, in
// tx (so that the jobs exist exactly when tx commits), and returns the job
// ids in order.
func (q *Queue) InsertEachTx(ctx context.Context, tx *sql.Tx, uids []string, args func(uid string) river.JobArgs) ([]int64, error) {
	return q.InsertEachTxWith(ctx, tx, uids, args, func(int) *river.InsertOpts { return nil })
}

func (q *Queue) insertMany(ctx context.Context, tx *sql.Tx, params []river.InsertManyParams) ([]int64, error) {
	res, err := q.client.InsertManyTx(ctx, tx, params)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(res))
	for i, r := range res {
		ids[i] = r.Job.ID
	}
	return ids, nil
}

// unfinished is the states of a job that has not finished, in the words
// of both the team index and the queries it serves (the database uses a
// partial index only for a query that repeats its condition).
const unfinished = `state IN ('available', 'pending', 'retryable', 'running', 'scheduled')`

// teamIndex finds a queue's unfinished jobs of one team (TeamBacklog)
// without reading every job the queue keeps: River keeps finished jobs for
// a day, and a count that scanned them all, decoding each one's args, took
// an eighth of the server's time under a burst of orders.
var teamIndex = map[string]string{
	"postgres": `CREATE INDEX IF NOT EXISTS platen_river_job_team ON river_job (queue, (args->>'team_id')) WHERE ` + unfinished,
	"sqlite":   `CREATE INDEX IF NOT EXISTS platen_river_job_team ON river_job (queue, json_extract(CAST(args AS TEXT), '$.team_id')) WHERE ` + unfinished,
}

// Backlog is a team's unfinished jobs of one queue, as TeamBacklog sees
// them.
type Backlog struct {
	// Jobs counts them, up to the bound asked for.
	Jobs int
	// LastPriority is the highest River priority number (the last to run)
	// among them, 0 when there are none; exact only when Jobs is under the
	// bound.
	LastPriority int
}

// TeamBacklog reads, in tx, the jobs of queue name that have not finished
// (pending, waiting, running or to be retried) and whose args carry
// "team_id": team, up to upTo of them: callers only need to know whether a
// team has more than a few, and the read costs what it counts.
func (q *Queue) TeamBacklog(ctx context.Context, tx *sql.Tx, name string, team, upTo int) (Backlog, error) {
	query := `SELECT count(*), coalesce(max(priority), 0) FROM (SELECT priority FROM river_job WHERE queue = $1
		AND args->>'team_id' = $2 AND ` + unfinished + ` LIMIT $3) AS ahead`
	if q.dialect != "postgres" {
		// riversqlite keeps args as a blob of JSON text.
		query = `SELECT count(*), coalesce(max(priority), 0) FROM (SELECT priority FROM river_job WHERE queue = ?
			AND json_extract(CAST(args AS TEXT), '$.team_id') = ? AND ` + unfinished + ` LIMIT ?)`
	}
	var b Backlog
	team64 := int64(team)
	var arg any = strconv.FormatInt(team64, 10)
	if q.dialect != "postgres" {
		arg = team64
	}
	if err := tx.QueryRowContext(ctx, query, name, arg, upTo).Scan(&b.Jobs, &b.LastPriority); err != nil {
		return Backlog{}, fmt.Errorf("queue: read the team's backlog: %w", err)
	}
	return b, nil
}

// InsertEachTxWith is InsertEachTx with opts(i) as the i-th job's options
// (nil for the args' own).
func (q *Queue) InsertEachTxWith(ctx context.Context, tx *sql.Tx, uids []string, args func(uid string) river.JobArgs, opts func(i int) *river.InsertOpts) ([]int64, error) {
	params := make([]river.InsertManyParams, len(uids))
	for i, uid := range uids {
		params[i] = river.InsertManyParams{Args: args(uid), InsertOpts: opts(i)}
	}
	return q.insertMany(ctx, tx, params)
}

// InsertAllTx inserts a job of each of args, with their own options, in tx
// and returns the job ids in order.
func (q *Queue) InsertAllTx(ctx context.Context, tx *sql.Tx, args []river.JobArgs) ([]int64, error) {
	params := make([]river.InsertManyParams, len(args))
	for i, a := range args {
		params[i] = river.InsertManyParams{Args: a}
	}
	return q.insertMany(ctx, tx, params)
}
