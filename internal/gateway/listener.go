package gateway

import (
	"bytes"
	"net"
	"net/http"
	"strconv"
	"strings"

	"google.golang.org/grpc/status"
)

// Listener wraps the HTTP port's listener so that the requests net/http
// refuses by itself, before any handler runs, are answered with the
// API's JSON error body too: a request line or header it cannot read
// (a control character in a header value, say), headers over its limit, a
// Transfer-Encoding it does not know, an Expect other than 100-continue.
// net/http writes those answers straight to the connection as plain text
// and has no hook to change them; the connection recognises them by their
// exact form, which no handler's answer can take (a handler's always
// carries a Date header), and writes the JSON answer in their place.
func Listener(l net.Listener) net.Listener { return listener{l} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{c}, nil
}

// conn rewrites net/http's own refusals on their way out.
type conn struct{ net.Conn }

func (c *conn) Write(b []byte) (int, error) {
	answer, ok := rewriteRefusal(b)
	if !ok {
		return c.Conn.Write(b)
	}
	if _, err := c.Conn.Write(answer); err != nil {
		return 0, err
	}
	return len(b), nil
}

// CloseWrite keeps net/http's graceful close (a FIN, then a short wait so
// that the client reads the answer before any reset) working through the
// wrapper.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// The two forms net/http refuses in: a plain-text answer written at once
// (src/net/http/server.go, conn.serve), and the empty 417 of an unknown
// Expect (response.sendExpectationFailed).
const (
	refusalHeaders   = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"
	expectationStart = "HTTP/1.1 417 Expectation Failed\r\n"
)

// rewriteRefusal returns the JSON answer that replaces b when b is one of
// net/http's own refusals.
func rewriteRefusal(b []byte) ([]byte, bool) {
	if bytes.HasPrefix(b, []byte(expectationStart)) && bytes.HasSuffix(b, []byte("\r\nContent-Length: 0\r\n\r\n")) {
		return jsonAnswer(http.StatusExpectationFailed, "the Expect header can only be 100-continue"), true
	}
	head, text, found := bytes.Cut(b, []byte(refusalHeaders))
	line, ok := bytes.CutPrefix(head, []byte("HTTP/1.1 "))
	if !found || !ok || len(line) < 4 || line[3] != ' ' {
		return nil, false
	}
	code, err := strconv.Atoi(string(line[:3]))
	if err != nil || code < 400 {
		return nil, false
	}
	return jsonAnswer(code, refusalMessage(code, string(text))), true
}

// refusalMessage says why net/http refused: its own text without the
// status it repeats ("400 Bad Request: invalid header value"), or a
// sentence of ours where it gives none.
func refusalMessage(code int, text string) string {
	text = strings.TrimPrefix(text, strconv.Itoa(code)+" "+http.StatusText(code))
	text = strings.TrimPrefix(text, ": ")
	switch {
	case code == http.StatusBadRequest && text == "":
		return "malformed request: the request line or a header cannot be read (control characters are not allowed in header values)"
	case code == http.StatusRequestHeaderFieldsTooLarge:
		return "request headers too large: the limit is 1 MiB"
	case text == "":
		return http.StatusText(code)
	}
	return strings.ToLower(text[:1]) + text[1:]
}

// jsonAnswer is a whole HTTP/1.1 answer with the API's error body,
// closing the connection as net/http's own refusal would.
func jsonAnswer(code int, message string) []byte {
	body, err := newCodec().Marshal(status.New(codeForHTTP(code), message).Proto())
	if err != nil {
		body = []byte(`{"code":3,"message":"bad request","details":[]}`)
	}
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 " + strconv.Itoa(code) + " " + http.StatusText(code) + "\r\n")
	b.WriteString("Content-Type: application/json\r\nConnection: close\r\n")
	b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
	b.Write(body)
	return b.Bytes()
}
