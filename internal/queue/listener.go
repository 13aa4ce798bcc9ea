package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
)

// listeningDriver is River's database/sql driver for PostgreSQL with a
// listener: River's pgx driver would need the orders' transactions as pgx
// transactions, and Ent's are database/sql ones, so the jobs go through
// database/sql as before, and only LISTEN runs on pgx, on a connection of
// its own. With it River hears the NOTIFY its inserts already send in
// their transactions: every process's workers look for a job the moment
// the transaction that queued it commits (without it, a job waited for a
// wake, a write of its own, or the next poll), and leadership and
// cancellations travel the same way.
type listeningDriver struct {
	*riverdatabasesql.Driver
	pool *sql.DB
}

func (d listeningDriver) SupportsListener() bool { return true }

func (d listeningDriver) GetListener(params *riverdriver.GetListenenerParams) riverdriver.Listener {
	return &pgListener{pool: d.pool, schema: params.Schema}
}

// pgListener is riverdriver.Listener on a connection of its own, opened
// with the settings of pool's connections and closed by Close, as River's
// pgx listener is. It is not one of pool's: database/sql would discard a
// connection whose call was interrupted, and the listener's waits are
// interrupted every time River listens on a new topic.
type pgListener struct {
	pool *sql.DB

	mu     sync.Mutex
	conn   *pgx.Conn
	schema string
	prefix string // schema and a dot, when there is a schema
}

func (l *pgListener) Connect(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn != nil {
		return errors.New("queue: listener already connected")
	}
	config, err := poolConfig(ctx, l.pool)
	if err != nil {
		return err
	}
	conn, err := pgx.ConnectConfig(ctx, config)
	if err != nil {
		return err
	}
	if l.schema == "" {
		// current_schema is NULL when search_path is empty.
		if err := conn.QueryRow(ctx, "SELECT coalesce(current_schema(), '')").Scan(&l.schema); err != nil {
			_ = conn.Close(ctx)
			return err
		}
	}
	if l.schema != "" {
		l.prefix = l.schema + "."
	}
	l.conn = conn
	return nil
}

// poolConfig is a copy of the settings pool's connections were opened
// with: the database URL's, as `platen serve` completed it.
func poolConfig(ctx context.Context, pool *sql.DB) (*pgx.ConnConfig, error) {
	conn, err := pool.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var config *pgx.ConnConfig
	err = conn.Raw(func(dc any) error {
		// pgx's connection, or storage's bounded one around it.
		c, ok := dc.(interface{ Conn() *pgx.Conn })
		if !ok {
			return fmt.Errorf("queue: listener: a %T is not pgx's connection", dc)
		}
		config = c.Conn().Config().Copy()
		// That connection's: the new one must buffer its own, for
		// WaitForNotification.
		config.OnNotification = nil
		return nil
	})
	return config, err
}

func (l *pgListener) Close(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return nil
	}
	err := l.conn.Close(ctx)
	l.conn = nil
	return err
}

func (l *pgListener) Listen(ctx context.Context, topic string) error {
	return l.exec(ctx, "LISTEN "+l.channel(topic))
}

func (l *pgListener) Unlisten(ctx context.Context, topic string) error {
	return l.exec(ctx, "UNLISTEN "+l.channel(topic))
}

// channel is topic's channel name, quoted as an identifier.
func (l *pgListener) channel(topic string) string {
	return pgx.Identifier{l.prefix + topic}.Sanitize()
}

func (l *pgListener) exec(ctx context.Context, query string) error {
	return l.withConn(func(conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, query)
		return err
	})
}

func (l *pgListener) Ping(ctx context.Context) error {
	return l.withConn(func(conn *pgx.Conn) error { return conn.Ping(ctx) })
}

// withConn runs f on the connection, one call at a time.
func (l *pgListener) withConn(f func(*pgx.Conn) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return errors.New("queue: listener not connected")
	}
	return f(l.conn)
}

func (l *pgListener) Schema() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.schema
}

// SetAfterConnectExec is for River's own tests; Platen sets nothing.
func (l *pgListener) SetAfterConnectExec(string) {}

func (l *pgListener) WaitForNotification(ctx context.Context) (*riverdriver.Notification, error) {
	var got *riverdriver.Notification
	err := l.withConn(func(conn *pgx.Conn) error {
		n, err := conn.WaitForNotification(ctx)
		if err == nil {
			got = &riverdriver.Notification{Topic: strings.TrimPrefix(n.Channel, l.prefix), Payload: n.Payload}
		}
		return err
	})
	return got, err
}
