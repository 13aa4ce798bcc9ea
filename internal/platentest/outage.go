package platentest

import (
	"net"
	"net/url"
	"sync"
	"testing"

	"github.com/platen-print/platen/internal/config"
)

// Outage takes a server's database away and brings it back.
type Outage interface {
	// Down severs every connection to the database and resets new ones,
	// as a stopped or unreachable PostgreSQL does.
	Down()
	// Silence partitions the network without a word: nothing passes
	// either way and nothing is closed; open connections hang, new ones
	// are taken but never answered, as when a firewall drops the packets.
	Silence()
	// Up lets connections through again; after Silence what was held
	// goes on, as a healed network's retransmissions do.
	Up()
}

// StartWithPostgresOutage starts a server on a fresh schema of the
// PostgreSQL backend b, reached through a loopback proxy that the returned
// Outage cuts: the server sees the database go away as it would in
// production, its connections reset and new ones refused.
func StartWithPostgresOutage(t *testing.T, b Backend, edit func(*config.Config)) (*Server, Outage) {
	t.Helper()
	if b.postgres == "" {
		t.Fatalf("StartWithPostgresOutage on the %s backend", b.Name)
	}
	u, err := url.Parse(FreshPostgresSchema(t, b.postgres))
	if err != nil {
		t.Fatal(err)
	}
	proxy := newTCPProxy(t, u.Host)
	u.Host = proxy.addr()
	srv := StartWith(t, Backend{Name: b.Name, NewDatabaseURL: func(testing.TB) string { return u.String() }}, edit)
	return srv, proxy
}

// StartTCPProxy forwards a loopback port to target (host:port) until the
// test ends, and returns the port's address with the Outage that cuts it:
// a PostgreSQL server shared with other work can go "down" for one test's
// processes without being stopped.
func StartTCPProxy(t *testing.T, target string) (addr string, o Outage) {
	t.Helper()
	p := newTCPProxy(t, target)
	return p.addr(), p
}

// tcpProxy forwards loopback connections to a target while it is up.
type tcpProxy struct {
	target string
	mu     sync.Mutex
	ln     net.Listener
	down   bool
	conns  map[net.Conn]bool
	// silent holds every byte and every new connection while set;
	// healed is closed (and replaced) when it is cleared.
	silent bool
	healed chan struct{}
}

func newTCPProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{target: target, ln: ln, conns: map[net.Conn]bool{}, healed: make(chan struct{})}
	go p.accept(ln)
	t.Cleanup(func() { p.Down(); ln.Close() })
	return p
}

func (p *tcpProxy) addr() string { return p.ln.Addr().String() }

func (p *tcpProxy) accept(ln net.Listener) {
	for {
		client, err := ln.Accept()
		if err != nil {
			return // closed when the test ends
		}
		go p.forward(client)
	}
}

func (p *tcpProxy) forward(client net.Conn) {
	p.waitHeard()
	p.mu.Lock()
	down := p.down
	p.mu.Unlock()
	if down {
		reset(client) // as a server that went away: the connection is reset
		return
	}
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	if !p.track(client, server) {
		reset(client)
		server.Close()
		return
	}
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		p.copy(dst, src)
		done <- struct{}{}
	}
	go pipe(server, client)
	go pipe(client, server)
	<-done
	client.Close()
	server.Close()
	p.untrack(client, server)
}

func (p *tcpProxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return false
	}
	for _, c := range conns {
		p.conns[c] = true
	}
	return true
}

func (p *tcpProxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		delete(p.conns, c)
	}
}

// Down resets every open connection and each new one. The proxy keeps
// listening, so that Up needs no port that another test may have taken.
func (p *tcpProxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		reset(c)
	}
	p.heal() // what silence held goes nowhere now
}

// Silence holds every byte and every new connection until Up.
func (p *tcpProxy) Silence() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.silent = true
}

// Up lets connections through again, and what Silence held.
func (p *tcpProxy) Up() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
	p.heal()
}

// heal ends a silence; p.mu is held.
func (p *tcpProxy) heal() {
	if p.silent {
		p.silent = false
		close(p.healed)
		p.healed = make(chan struct{})
	}
}

// waitHeard returns at once, or once the silence ends.
func (p *tcpProxy) waitHeard() {
	p.mu.Lock()
	silent, healed := p.silent, p.healed
	p.mu.Unlock()
	if silent {
		<-healed
	}
}

// copy forwards src to dst until either ends, holding each chunk while
// the proxy is silent.
func (p *tcpProxy) copy(dst, src net.Conn) {
	buf := make([]byte, 32*1024)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.waitHeard()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// reset closes c with a TCP reset rather than an orderly close.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	c.Close()
}
