package loadgen

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// rawConn is one worker's own keep-alive connection, used instead of an
// http.Transport when Config.Raw is set. The Transport's pool and its two
// goroutines per connection cost more CPU per request than the server's
// cheapest endpoints; on a 2-core machine that shared with the server
// lowered what was measured.
type rawConn struct {
	timeout time.Duration
	conn    net.Conn
	br      *bufio.Reader
	bw      *bufio.Writer
}

func (c *rawConn) do(req *http.Request) (int, string) {
	status, msg, err := c.roundTrip(req)
	if err != nil {
		c.close()
		return 0, fmt.Sprintf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	return status, msg
}

func (c *rawConn) roundTrip(req *http.Request) (int, string, error) {
	if c.conn == nil {
		conn, err := net.DialTimeout("tcp", req.URL.Host, 5*time.Second)
		if err != nil {
			return 0, "", err
		}
		c.conn, c.br, c.bw = conn, bufio.NewReaderSize(conn, 16<<10), bufio.NewWriterSize(conn, 16<<10)
	}
	if err := c.conn.SetDeadline(time.Now().Add(c.timeout)); err != nil {
		return 0, "", err
	}
	if err := req.Write(c.bw); err != nil {
		return 0, "", err
	}
	if err := c.bw.Flush(); err != nil {
		return 0, "", err
	}
	resp, err := http.ReadResponse(c.br, req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		_, err := io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, "", err
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyLimit))
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, fmt.Sprintf("%s %s: %s: %s", req.Method, req.URL.Path, resp.Status,
		strings.TrimSpace(string(head))), err
}

func (c *rawConn) close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}
