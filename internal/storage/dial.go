package storage

import (
	"context"
	"net"
	"time"
)

// A PostgreSQL connection whose peer went silent is found dead by the
// kernel rather than after its default of many minutes: an idle one by
// keepalive probes (after keepAliveIdle, then keepAliveCount probes
// keepAliveInterval apart), a busy one when what it sent stays
// unacknowledged for userTimeout (Linux's TCP_USER_TIMEOUT). This guards
// the connections no statement bound covers, such as the job queue's
// listener waiting for notifications.
const (
	keepAliveIdle     = 10 * time.Second
	keepAliveInterval = 5 * time.Second
	keepAliveCount    = 3
	userTimeout       = 30 * time.Second
)

var postgresDialer = &net.Dialer{
	Timeout: 30 * time.Second, // connect_timeout and the call's bound come first
	KeepAliveConfig: net.KeepAliveConfig{
		Enable: true, Idle: keepAliveIdle, Interval: keepAliveInterval, Count: keepAliveCount,
	},
	Control: setUserTimeout,
}

// dialPostgres is pgx's dial function for PostgreSQL's connections.
func dialPostgres(ctx context.Context, network, addr string) (net.Conn, error) {
	return postgresDialer.DialContext(ctx, network, addr)
}
