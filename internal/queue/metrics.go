package queue

import (
	"context"
	"database/sql"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// reportedStates are the job states the queue metrics report: those of
// work not done yet, and discarded (failed for good, kept until River's
// cleaner deletes them a week later).
var reportedStates = []string{"available", "pending", "scheduled", "running", "retryable", "discarded"}

// Collector reports the jobs of every queue in the database, read at each
// scrape (every process of a cluster reports the same, shared figures):
// platen_queue_jobs by queue and state, and
// platen_queue_oldest_available_seconds, how long the oldest job that could
// run has waited for a worker. Queues listed in names are reported even
// while empty.
func (q *Queue) Collector(names ...string) prometheus.Collector {
	return &collector{pool: q.pool, dialect: q.dialect, names: names,
		jobs:   prometheus.NewDesc("platen_queue_jobs", "Jobs by queue and state (available, pending, scheduled, running, retryable, discarded).", []string{"queue", "state"}, nil),
		oldest: prometheus.NewDesc("platen_queue_oldest_available_seconds", "Age of the oldest available job of each queue: how long it has waited for a worker; 0 when none waits.", []string{"queue"}, nil),
	}
}

type collector struct {
	pool         *sql.DB
	dialect      string
	names        []string
	jobs, oldest *prometheus.Desc
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) { ch <- c.jobs; ch <- c.oldest }

// collectTimeout bounds a scrape's query: a database that does not answer
// leaves the queue metrics out rather than hang the scrape.
const collectTimeout = 2 * time.Second

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), collectTimeout)
	defer cancel()
	counts, waits, err := c.read(ctx)
	if err != nil {
		slog.Warn("queue metrics: read the jobs", "error", err)
		return
	}
	for _, name := range c.names {
		if counts[name] == nil {
			counts[name] = map[string]float64{}
		}
	}
	for name, states := range counts {
		for _, state := range reportedStates {
			ch <- prometheus.MustNewConstMetric(c.jobs, prometheus.GaugeValue, states[state], name, state)
		}
		ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, max(waits[name], 0), name)
	}
}

// read counts the jobs by queue and state, with the oldest available job's
// wait in seconds.
func (c *collector) read(ctx context.Context) (map[string]map[string]float64, map[string]float64, error) {
	query := `SELECT queue, state, count(*),
		COALESCE(MAX(CASE WHEN state = 'available' THEN EXTRACT(EPOCH FROM now() - scheduled_at) END), 0)
		FROM river_job WHERE state IN ('available', 'pending', 'scheduled', 'running', 'retryable', 'discarded')
		GROUP BY queue, state`
	if c.dialect != "postgres" {
		query = `SELECT queue, state, count(*),
			COALESCE(MAX(CASE WHEN state = 'available' THEN (julianday('now') - julianday(scheduled_at)) * 86400 END), 0)
			FROM river_job WHERE state IN ('available', 'pending', 'scheduled', 'running', 'retryable', 'discarded')
			GROUP BY queue, state`
	}
	rows, err := c.pool.QueryContext(ctx, query)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	counts, waits := map[string]map[string]float64{}, map[string]float64{}
	for rows.Next() {
		var name, state string
		var n, wait float64
		if err := rows.Scan(&name, &state, &n, &wait); err != nil {
			return nil, nil, err
		}
		if counts[name] == nil {
			counts[name] = map[string]float64{}
		}
		counts[name][state] = n
		waits[name] = max(waits[name], wait)
	}
	return counts, waits, rows.Err()
}
