package fetch

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/platentest/poll"
)

func TestFetchFormats(t *testing.T) {
	pngData, jpegData, webpData := pngBytes(t, 30, 20), jpegBytes(t, 40, 25), webpBytes(t)
	s := newSite(t, map[string]http.HandlerFunc{
		"/a.png": serve(pngData), "/a.jpg": serve(jpegData), "/a.webp": serve(webpData),
	})
	for _, tc := range []struct {
		path, format string
		w, h         int
		data         []byte
	}{
		{"/a.png", "png", 30, 20, pngData},
		{"/a.jpg", "jpeg", 40, 25, jpegData},
		{"/a.webp", "webp", 75, 100, webpData},
	} {
		t.Run(tc.format, func(t *testing.T) {
			// Limits set to the image itself: a limit is reached, not passed.
			f := New(Config{AllowPrivateNetwork: true, MaxBytes: int64(len(tc.data)), MaxPixels: int64(tc.w * tc.h)})
			img, err := f.Fetch(t.Context(), s.URL+tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if img.Format != tc.format || img.Width != tc.w || img.Height != tc.h {
				t.Errorf("got %s %d×%d, want %s %d×%d", img.Format, img.Width, img.Height, tc.format, tc.w, tc.h)
			}
			if !bytes.Equal(img.Data, tc.data) {
				t.Error("the bytes differ from those served")
			}
		})
	}
}

func TestFetchDataURI(t *testing.T) {
	data := pngBytes(t, 3, 2)
	b64 := base64.StdEncoding.EncodeToString(data)
	var wrapped strings.Builder
	for i, r := range strings.TrimRight(b64, "=") {
		if i > 0 && i%16 == 0 {
			wrapped.WriteString("\r\n")
		}
		wrapped.WriteRune(r)
	}
	f := New(Config{}) // no network needed, so none allowed
	for name, src := range map[string]string{
		"base64":                  "data:image/png;base64," + b64,
		"base64, media type lies": "data:image/jpeg;base64," + b64,
		"base64 unpadded wrapped": "data:image/png;base64," + wrapped.String(),
		"base64 URL alphabet":     "data:image/png;base64," + base64.RawURLEncoding.EncodeToString(data),
		"base64 percent-encoded":  "data:image/png;base64," + url.QueryEscape(b64),
		"percent-encoded":         "data:image/png," + url.PathEscape(string(data)),
		"no media type":           "data:," + url.PathEscape(string(data)),
		"upper case":              "DATA:image/png;BASE64," + b64,
	} {
		t.Run(name, func(t *testing.T) {
			img, err := f.Fetch(t.Context(), src)
			if err != nil {
				t.Fatal(err)
			}
			if img.Format != "png" || img.Width != 3 || img.Height != 2 || !bytes.Equal(img.Data, data) {
				t.Errorf("got %s %d×%d (%d bytes), want the 3×2 PNG", img.Format, img.Width, img.Height, len(img.Data))
			}
		})
	}
}

const allowHint = " (start with --allow-private-network to allow it)"

// TestRefusedAddresses points at a live server wherever it can, so that
// only the address check stands between the fetch and success.
func TestRefusedAddresses(t *testing.T) {
	s := newSite(t, map[string]http.HandlerFunc{"/img": serve(pngBytes(t, 2, 2))})
	f := New(Config{Timeout: 2 * time.Second})
	for _, tc := range []struct{ name, host, want string }{ // want is a regexp
		{"loopback", "127.0.0.1", "127.0.0.1 is a loopback address"},
		{"loopback 127/8", "127.9.8.7", "127.9.8.7 is a loopback address"},
		{"IPv6 loopback", "[::1]", "::1 is a loopback address"},
		{"localhost by name", "localhost", "localhost resolves to (127.0.0.1|::1), a loopback address"},
		{"private 10/8", "10.0.0.5", "10.0.0.5 is a private address"},
		{"private 172.16/12", "172.16.3.4", "172.16.3.4 is a private address"},
		{"private 172.16/12 top", "172.31.255.254", "172.31.255.254 is a private address"},
		{"private 192.168/16", "192.168.1.1", "192.168.1.1 is a private address"},
		{"private fc00::/7", "[fd12:3456::1]", "fd12:3456::1 is a private address"},
		{"link-local", "169.254.1.1", "169.254.1.1 is a link-local address"},
		{"IPv6 link-local", "[fe80::1]", "fe80::1 is a link-local address"},
		{"metadata", "169.254.169.254", "169.254.169.254 is the cloud metadata address"},
		{"metadata IPv6", "[fd00:ec2::254]", "fd00:ec2::254 is the cloud metadata address"},
		{"metadata by name", "metadata.google.internal", "metadata.google.internal is the cloud metadata service"},
		{"metadata by name, upper case", "Metadata.Google.Internal.", "Metadata.Google.Internal. is the cloud metadata service"},
		{"CGNAT", "100.64.0.1", `100.64.0.1 is a shared \(carrier-grade NAT\) address`},
		{"unspecified", "0.0.0.0", "0.0.0.0 is an unspecified address"},
		{"IPv6 unspecified", "[::]", ":: is an unspecified address"},
		{"multicast", "224.0.0.1", "224.0.0.1 is a multicast address"},
		{"IPv4-mapped loopback", "[::ffff:127.0.0.1]", "::ffff:127.0.0.1 is a loopback address"},
		{"IPv4-mapped private", "[::ffff:10.0.0.5]", "::ffff:10.0.0.5 is a private address"},
		{"IPv4-mapped metadata", "[::ffff:169.254.169.254]", "::ffff:169.254.169.254 is the cloud metadata address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "http://" + tc.host + ":" + s.port() + "/img"
			_, err := f.Fetch(t.Context(), src)
			if !errors.Is(err, ErrRefused) || Temporary(err) {
				t.Fatalf("got %v (temporary %v), want a permanent refusal", err, Temporary(err))
			}
			want := "^" + regexp.QuoteMeta("image "+src+": refused: ") + tc.want + regexp.QuoteMeta(allowHint) + "$"
			if !regexp.MustCompile(want).MatchString(err.Error()) {
				t.Errorf("got %q, want /%s/", err, want)
			}
		})
	}
	if n := s.total(); n != 0 {
		t.Errorf("the server was reached %d times", n)
	}
	t.Run("allowed with AllowPrivateNetwork", func(t *testing.T) {
		f := New(Config{AllowPrivateNetwork: true})
		for _, host := range []string{"127.0.0.1", "localhost", "[::ffff:127.0.0.1]"} {
			if _, err := f.Fetch(t.Context(), "http://"+host+":"+s.port()+"/img"); err != nil {
				t.Error(err)
			}
		}
	})
}

// TestRefusedOnTheWay stands a loopback server in for a public one (the
// exemption is for its address and port only) and checks that redirects
// and names that lead to a private address are refused when dialled.
func TestRefusedOnTheWay(t *testing.T) {
	img := pngBytes(t, 4, 4)
	private := newSite(t, map[string]http.HandlerFunc{"/img": serve(img)})
	resolver := fakeDNS(t, map[string][]netip.Addr{
		"public.test": addrs("127.0.0.1"),
		"evil.test":   addrs("127.0.0.1"),
		"rebind.test": addrs("127.0.0.1", "10.0.0.5"),
	})
	public := newSite(t, map[string]http.HandlerFunc{
		"/img":          serve(img),
		"/to-img":       redirect("/img"),
		"/to-loopback":  redirect(private.URL + "/img"),
		"/to-ipv6":      redirect("http://[::1]:" + private.port() + "/img"),
		"/to-evil":      redirect("http://evil.test:" + private.port() + "/img"),
		"/to-metadata":  redirect("http://169.254.169.254/latest/meta-data/"),
		"/to-localhost": redirect("http://localhost:" + private.port() + "/img"),
	})
	f := New(Config{Resolver: resolver, Timeout: 2 * time.Second})
	f.exempt = map[netip.AddrPort]bool{public.addrPort(): true}
	base := "http://public.test:" + public.port()

	for _, path := range []string{"/img", "/to-img"} {
		if _, err := f.Fetch(t.Context(), base+path); err != nil {
			t.Errorf("the stand-in public server: %v", err)
		}
	}
	for _, tc := range []struct{ name, src, want string }{ // want is a regexp
		{"redirect to 127.0.0.1", base + "/to-loopback", "127.0.0.1 is a loopback address"},
		{"redirect to [::1]", base + "/to-ipv6", "::1 is a loopback address"},
		{"redirect to localhost", base + "/to-localhost", "localhost resolves to (127.0.0.1|::1), a loopback address"},
		{"redirect to a name for 127.0.0.1", base + "/to-evil", "evil.test resolves to 127.0.0.1, a loopback address"},
		{"redirect to metadata", base + "/to-metadata", "169.254.169.254 is the cloud metadata address"},
		{"a name with one private address among others", "http://rebind.test:" + public.port() + "/img",
			"rebind.test resolves to 10.0.0.5, a private address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.Fetch(t.Context(), tc.src)
			if !errors.Is(err, ErrRefused) || Temporary(err) {
				t.Fatalf("got %v, want a permanent refusal", err)
			}
			want := "^" + regexp.QuoteMeta("image "+tc.src+": refused: ") + tc.want + regexp.QuoteMeta(allowHint) + "$"
			if !regexp.MustCompile(want).MatchString(err.Error()) {
				t.Errorf("got %q, want /%s/", err, want)
			}
		})
	}
	if n := private.total(); n != 0 {
		t.Errorf("the private server was reached %d times", n)
	}
}

// TestNoProxy: a proxy from the environment would connect for the
// fetcher, past the address check.
func TestNoProxy(t *testing.T) {
	if New(Config{}).client.Transport.(*http.Transport).Proxy != nil {
		t.Error("the transport uses a proxy")
	}
}

func TestCheckURL(t *testing.T) {
	resolver := fakeDNS(t, map[string][]netip.Addr{
		"hooks.test": addrs("93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"),
		"evil.test":  addrs("10.1.2.3"),
		"mixed.test": addrs("93.184.215.14", "192.168.0.1"),
	})
	f := New(Config{Resolver: resolver})
	allow := New(Config{Resolver: resolver, AllowPrivateNetwork: true})
	for _, tc := range []struct {
		raw, want   string // want "" means allowed
		wantAllowed string // with AllowPrivateNetwork
	}{
		{"https://hooks.test/platen", "", ""},
		{"http://hooks.test:8443/platen", "", ""},
		{"http://93.184.215.14/", "", ""},
		{"https://evil.test/hook", "https://evil.test/hook: refused: evil.test resolves to 10.1.2.3, a private address" + allowHint, ""},
		{"https://mixed.test/hook", "https://mixed.test/hook: refused: mixed.test resolves to 192.168.0.1, a private address" + allowHint, ""},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080/: refused: 127.0.0.1 is a loopback address" + allowHint, ""},
		{"http://metadata.google.internal/", "http://metadata.google.internal/: refused: metadata.google.internal is the cloud metadata service" + allowHint, ""},
		{"https://ghost.test/hook", "https://ghost.test/hook: host ghost.test not found", ""},
		{"ftp://hooks.test/", `ftp://hooks.test/: scheme "ftp" is not supported (only http, https and data: URIs are fetched)`, "same"},
		{"http:///hook", "http:///hook: is not a valid URL: it names no host", "same"},
	} {
		t.Run(tc.raw, func(t *testing.T) {
			if got := errText(f.CheckURL(t.Context(), tc.raw)); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if tc.wantAllowed == "same" {
				tc.wantAllowed = tc.want
			}
			if got := errText(allow.CheckURL(t.Context(), tc.raw)); got != tc.wantAllowed {
				t.Errorf("AllowPrivateNetwork: got %q, want %q", got, tc.wantAllowed)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestDialContextForWebhooks uses DialContext as a webhook client would.
func TestDialContextForWebhooks(t *testing.T) {
	hook := func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }
	shop := newSite(t, map[string]http.HandlerFunc{"/hook": hook})
	internal := newSite(t, map[string]http.HandlerFunc{"/hook": hook})
	f := New(Config{Resolver: fakeDNS(t, map[string][]netip.Addr{"shop.test": addrs("127.0.0.1")})})
	f.exempt = map[netip.AddrPort]bool{shop.addrPort(): true}
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DialContext: f.DialContext}}

	resp, err := client.Post("http://shop.test:"+shop.port()+"/hook", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("status %d", resp.StatusCode)
	}
	_, err = client.Post(internal.URL+"/hook", "application/json", strings.NewReader("{}")) //nolint:bodyclose // no response
	if !errors.Is(err, ErrRefused) || Temporary(err) {
		t.Errorf("got %v, want a permanent refusal", err)
	}
	if internal.total() != 0 {
		t.Error("the internal server was reached")
	}
}

// TestFailures runs each way a fetch fails through Fetch, checking the
// reason shown to the shop, the kind, and whether a retry may help.
func TestFailures(t *testing.T) {
	s := newSite(t, map[string]http.HandlerFunc{
		"/big":         serve(bytes.Repeat([]byte("x"), 30_000)),
		"/endless":     endless,
		"/200x200.png": serve(flatPNG(t, 200, 200)),
		"/drip":        drip,
		"/redirect/":   redirectChain,
		"/to-ftp":      redirect("ftp://example.com/a.png"),
		"/to-bad-port": redirect("http://127.0.0.1:65536/a.png"),
		"/text":        serve([]byte("<html>not found, but 200</html>")),
		"/a.gif":       serve(gifBytes(t)),
		"/cut.png":     serve(pngBytes(t, 10, 10)[:20]),
		"/empty":       serve(nil),
		"/reset":       reset,
		"/status/":     status,
	})
	// The cases fail for their own reasons, each well within the default
	// Timeout however loaded the machine; the drip alone outlasts a short
	// one, on a fetcher of its own.
	cfg := Config{AllowPrivateNetwork: true, MaxBytes: 10 << 10, MaxPixels: 10_000, MaxRedirects: 2, Resolver: fakeDNS(t, nil)}
	f := New(cfg)
	cfg.Timeout = 300 * time.Millisecond
	short := New(cfg)
	fetchers := map[string]*Fetcher{"slow drip past Timeout": short}
	bigData := "data:;base64," + base64.StdEncoding.EncodeToString(make([]byte, 30_000))
	for _, tc := range []struct {
		name, src string
		want      string // a regexp for what follows "image <src>: "
		kind      error
		temporary bool
	}{
		{"over MaxBytes by Content-Length", s.URL + "/big", `is 29.3 KB, over the 10 KB limit$`, ErrTooLarge, false},
		{"over MaxBytes, endless body", s.URL + "/endless", `is over the 10 KB limit \(stopped reading there\)$`, ErrTooLarge, false},
		{"over MaxPixels", s.URL + "/200x200.png", `is 200×200 pixels, over the 10000-pixel limit$`, ErrTooLarge, false},
		{"slow drip past Timeout", s.URL + "/drip", `timed out after 300ms$`, nil, true},
		{"too many redirects", s.URL + "/redirect/3", `was redirected more than 2 times$`, nil, false},
		{"redirect to ftp", s.URL + "/to-ftp", `was redirected to ftp://example.com/a.png, which is not http or https$`, ErrBadURL, false},
		{"404", s.URL + "/status/404", `answered 404 Not Found$`, nil, false},
		{"403", s.URL + "/status/403", `answered 403 Forbidden$`, nil, false},
		{"410", s.URL + "/status/410", `answered 410 Gone$`, nil, false},
		{"408", s.URL + "/status/408", `answered 408 Request Timeout$`, nil, true},
		{"429", s.URL + "/status/429", `answered 429 Too Many Requests$`, nil, true},
		{"500", s.URL + "/status/500", `answered 500 Internal Server Error$`, nil, true},
		{"503", s.URL + "/status/503", `answered 503 Service Unavailable$`, nil, true},
		{"not an image", s.URL + "/text", `is not a PNG, JPEG, WebP or SVG image$`, ErrNotImage, false},
		{"GIF", s.URL + "/a.gif", `is not a PNG, JPEG, WebP or SVG image$`, ErrNotImage, false},
		{"empty body", s.URL + "/empty", `is not a PNG, JPEG, WebP or SVG image$`, ErrNotImage, false},
		{"truncated PNG", s.URL + "/cut.png", `is not a valid PNG image: unexpected EOF$`, ErrNotImage, false},
		{"connection reset", s.URL + "/reset", `connection reset|closed the connection`, nil, true},
		{"connection refused", "http://" + closedPort(t) + "/a.png", `connection refused$`, nil, true},
		{"host not found", "http://nowhere.test/a.png", `host nowhere.test not found$`, nil, false},
		{"data: URI over MaxBytes", bigData, `is 29.3 KB, over the 10 KB limit$`, ErrTooLarge, false},
		{"data: URI not an image", "data:text/plain,hello", `is not a PNG, JPEG, WebP or SVG image$`, ErrNotImage, false},
		{"data: URI without comma", "data:image/png;base64", `is not a valid data: URI: there is no comma before the data$`, ErrBadURL, false},
		{"data: URI bad base64", "data:image/png;base64,@@@@", `is not a valid data: URI: illegal base64 data at input byte 0$`, ErrBadURL, false},
		{"data: URI bad escape", "data:image/png,%zz", `is not a valid data: URI: invalid URL escape "%zz"$`, ErrBadURL, false},
		{"ftp", "ftp://example.com/a.png", `scheme "ftp" is not supported \(only http, https and data: URIs are fetched\)$`, ErrBadURL, false},
		{"no scheme", "/images/a.png", `is not a URL \(only http, https and data: URIs are fetched\)$`, ErrBadURL, false},
		{"no host", "http:///a.png", `is not a valid URL: it names no host$`, ErrBadURL, false},
		{"bad URL", "http://exa mple.com/a.png", `is not a valid URL: invalid character " " in host name$`, ErrBadURL, false},
		{"port 65536", "http://example.test:65536/a.png", `is not a valid URL: port 65536 is not between 1 and 65535$`, ErrBadURL, false},
		{"port 0", "http://example.test:0/a.png", `is not a valid URL: port 0 is not between 1 and 65535$`, ErrBadURL, false},
		{"port past uint64", "https://[2606:4700::1]:99999999999999999999999/a.png", `is not a valid URL: port 99999999999999999999… is not between 1 and 65535$`, ErrBadURL, false},
		{"port not a number", "http://example.test:http/a.png", `is not a valid URL: invalid port ":http" after host$`, ErrBadURL, false},
		{"redirect to port 65536", s.URL + "/to-bad-port", `is not a valid URL: port 65536 is not between 1 and 65535$`, ErrBadURL, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The deadline ends a fetch that ignores Timeout, failing the case.
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
			defer cancel()
			f := cmp.Or(fetchers[tc.name], f)
			start := time.Now()
			img, err := f.Fetch(ctx, tc.src)
			within(t, 2*time.Second, start)
			if err == nil {
				t.Fatalf("got a %s image, want an error", img.Format)
			}
			prefix := "image " + shown(tc.src) + ": "
			if msg := err.Error(); !strings.HasPrefix(msg, prefix) || !regexp.MustCompile(tc.want).MatchString(msg[len(prefix):]) {
				t.Errorf("got %q, want %q followed by /%s/", msg, prefix, tc.want)
			}
			if tc.kind != nil && !errors.Is(err, tc.kind) {
				t.Errorf("errors.Is(%v) is false", tc.kind)
			}
			if Temporary(err) != tc.temporary {
				t.Errorf("Temporary = %v, want %v", !tc.temporary, tc.temporary)
			}
		})
	}
	t.Run("redirects up to the limit", func(t *testing.T) {
		if _, err := f.Fetch(t.Context(), s.URL+"/redirect/2"); err != nil {
			t.Error(err)
		}
	})
	t.Run("no redirects", func(t *testing.T) {
		f := New(Config{AllowPrivateNetwork: true, MaxRedirects: -1})
		if _, err := f.Fetch(t.Context(), s.URL+"/redirect/0"); err != nil {
			t.Error(err)
		}
		_, err := f.Fetch(t.Context(), s.URL+"/redirect/1")
		if err == nil || !strings.HasSuffix(err.Error(), ": was redirected, and redirects are not followed") {
			t.Errorf("got %v", err)
		}
	})
}

func endless(w http.ResponseWriter, r *http.Request) {
	chunk := bytes.Repeat([]byte{0xff}, 1024)
	for r.Context().Err() == nil {
		if _, err := w.Write(chunk); err != nil {
			return
		}
		w.(http.Flusher).Flush()
	}
}

// drip sends a PNG signature, then a byte every 20 ms for 5 s: no single
// read waits long, only the whole is slow.
func drip(w http.ResponseWriter, r *http.Request) {
	_, _ = w.Write([]byte("\x89PNG\r\n\x1a\n"))
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	end := time.After(5 * time.Second)
	for {
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-end:
			return
		case <-tick.C:
			_, _ = w.Write([]byte{0})
		}
	}
}

// redirectChain answers /redirect/n with n redirects before a PNG.
func redirectChain(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/redirect/"))
	if n > 0 {
		http.Redirect(w, r, fmt.Sprintf("/redirect/%d", n-1), http.StatusFound)
		return
	}
	_, _ = w.Write(pngOf1x1)
}

var pngOf1x1, _ = base64.StdEncoding.DecodeString(
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==")

func status(w http.ResponseWriter, r *http.Request) {
	code, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/status/"))
	w.WriteHeader(code)
}

// reset drops the connection with a TCP reset before answering.
func reset(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	_ = conn.(*net.TCPConn).SetLinger(0)
	_ = conn.Close()
}

func gifBytes(t *testing.T) []byte {
	var buf bytes.Buffer
	if err := gif.Encode(&buf, image.NewPaletted(image.Rect(0, 0, 2, 2), []color.Color{color.White}), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// closedPort returns an address nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// TestTemporaryForeign classifies errors that did not come from Fetch.
func TestTemporaryForeign(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("something"), false},
		{ErrRefused, false},
		{context.DeadlineExceeded, true},
		{fmt.Errorf("job: %w", context.Canceled), true},
		{&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true},
		{fmt.Errorf("body: %w", io.ErrUnexpectedEOF), true},
		{&net.DNSError{Err: "i/o timeout", Name: "x", IsTimeout: true}, true},
	} {
		if got := Temporary(tc.err); got != tc.want {
			t.Errorf("Temporary(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestCacheFetchesOnce(t *testing.T) {
	a, b := pngBytes(t, 5, 5), jpegBytes(t, 6, 6)
	s := newSite(t, map[string]http.HandlerFunc{"/a.png": serve(a), "/b.jpg": serve(b), "/status/": status})
	f := New(Config{AllowPrivateNetwork: true})
	for range 2 {
		for _, path := range []string{"/a.png", "/b.jpg", "/status/503"} {
			_, _ = f.Fetch(t.Context(), s.URL+path)
		}
	}
	for path, want := range map[string]int{"/a.png": 1, "/b.jpg": 1, "/status/503": 2} {
		if got := s.hits(path); got != want {
			t.Errorf("%s fetched %d times, want %d (failures are not cached)", path, got, want)
		}
	}
	img, err := f.Fetch(t.Context(), s.URL+"/a.png")
	if err != nil || !bytes.Equal(img.Data, a) {
		t.Errorf("cached image: %v", err)
	}
}

// TestCacheConcurrent holds the response until every caller waits for a
// download, so that without a shared one they would all reach the server.
func TestCacheConcurrent(t *testing.T) {
	data := pngBytes(t, 8, 8)
	release := make(chan struct{})
	s := newSite(t, map[string]http.HandlerFunc{"/slow.png": func(w http.ResponseWriter, _ *http.Request) {
		<-release
		_, _ = w.Write(data)
	}})
	f := New(Config{AllowPrivateNetwork: true})
	var waiting atomic.Int64
	f.testHookShared = func(string) { waiting.Add(1) }
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Go(func() {
			img, err := f.Fetch(t.Context(), s.URL+"/slow.png")
			if err == nil && !bytes.Equal(img.Data, data) {
				err = errors.New("wrong bytes")
			}
			errs <- err
		})
	}
	// Every caller waits for a download (one shared, or each its own)
	// before the server answers.
	poll.Until(t, 5*time.Second, "20 callers waiting", func() bool { return waiting.Load() == 20 })
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := s.hits("/slow.png"); n != 1 {
		t.Errorf("20 concurrent fetches reached the server %d times, want 1", n)
	}
}

// TestCallerGivingUp checks that one caller's cancellation neither fails
// the others nor wastes the download they share.
func TestCallerGivingUp(t *testing.T) {
	data := pngBytes(t, 8, 8)
	release := make(chan struct{})
	s := newSite(t, map[string]http.HandlerFunc{"/slow.png": func(w http.ResponseWriter, _ *http.Request) {
		<-release
		_, _ = w.Write(data)
	}})
	f := New(Config{AllowPrivateNetwork: true})
	ctx, cancel := context.WithCancel(t.Context())
	first := make(chan error, 1)
	go func() { _, err := f.Fetch(ctx, s.URL+"/slow.png"); first <- err }()
	poll.Until(t, 5*time.Second, "the first download asked for", func() bool { return s.hits("/slow.png") > 0 })
	second := make(chan error, 1)
	go func() { _, err := f.Fetch(t.Context(), s.URL+"/slow.png"); second <- err }()
	cancel()
	if err := <-first; !Temporary(err) || !strings.Contains(err.Error(), "was interrupted") {
		t.Errorf("the caller who gave up got %v", err)
	}
	close(release)
	if err := <-second; err != nil {
		t.Errorf("the caller who waited got %v", err)
	}
	if n := s.hits("/slow.png"); n != 1 {
		t.Errorf("fetched %d times, want 1", n)
	}
}

func TestCacheEviction(t *testing.T) {
	data := pngBytes(t, 16, 16)
	s := newSite(t, map[string]http.HandlerFunc{"/a.png": serve(data), "/b.png": serve(data), "/c.png": serve(data)})
	entry := int64(len(s.URL+"/a.png") + len(data))

	t.Run("least recently used goes first", func(t *testing.T) {
		f := New(Config{AllowPrivateNetwork: true, CacheBytes: 2*entry + entry/2})
		for _, p := range []string{"/a.png", "/b.png", "/a.png", "/c.png", "/a.png", "/b.png", "/c.png"} {
			if _, err := f.Fetch(t.Context(), s.URL+p); err != nil {
				t.Fatal(err)
			}
		}
		// a stays (used again before c arrived); b goes for c, c for b.
		if a, b, c := s.hits("/a.png"), s.hits("/b.png"), s.hits("/c.png"); a != 1 || b != 2 || c != 2 {
			t.Errorf("hits a=%d b=%d c=%d, want 1 2 2", a, b, c)
		}
	})
	for name, limit := range map[string]int64{"larger than the cache": entry - 1, "cache off": -1} {
		t.Run(name, func(t *testing.T) {
			before := s.hits("/a.png")
			f := New(Config{AllowPrivateNetwork: true, CacheBytes: limit})
			for range 2 {
				if _, err := f.Fetch(t.Context(), s.URL+"/a.png"); err != nil {
					t.Fatal(err)
				}
			}
			if n := s.hits("/a.png") - before; n != 2 {
				t.Errorf("fetched %d times, want 2", n)
			}
		})
	}
}

// TestCacheTTL: an image is reused until the TTL has passed since it was
// fetched, then fetched again; on a clock of the test's.
func TestCacheTTL(t *testing.T) {
	s := newSite(t, map[string]http.HandlerFunc{"/a.png": serve(pngBytes(t, 4, 4))})
	f := New(Config{AllowPrivateNetwork: true, CacheTTL: 100 * time.Millisecond})
	fetched := time.Now()
	now := fetched
	f.cache.now = func() time.Time { return now }
	for _, tc := range []struct {
		after time.Duration
		hits  int
	}{{0, 1}, {0, 1}, {99 * time.Millisecond, 1}, {101 * time.Millisecond, 2}} {
		now = fetched.Add(tc.after)
		if _, err := f.Fetch(t.Context(), s.URL+"/a.png"); err != nil {
			t.Fatal(err)
		}
		if n := s.hits("/a.png"); n != tc.hits {
			t.Errorf("%v after the first fetch: fetched %d times, want %d", tc.after, n, tc.hits)
		}
	}
}

// TestHTTPS checks that the certificate is checked against the URL's host
// name although the checked IP address is what is dialled.
func TestHTTPS(t *testing.T) {
	data := jpegBytes(t, 12, 9)
	ts := httptest.NewUnstartedServer(serve(data))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	ts.StartTLS()
	t.Cleanup(ts.Close)
	addr := netip.MustParseAddrPort(ts.Listener.Addr().String())
	f := New(Config{Resolver: fakeDNS(t, map[string][]netip.Addr{
		"example.com": addrs("127.0.0.1"), // in httptest's certificate
		"other.test":  addrs("127.0.0.1"), // not in it
	})})
	f.exempt = map[netip.AddrPort]bool{addr: true}
	roots := x509.NewCertPool()
	roots.AddCert(ts.Certificate())
	f.client.Transport.(*http.Transport).TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	port := strconv.Itoa(int(addr.Port()))

	img, err := f.Fetch(t.Context(), "https://example.com:"+port+"/photo.jpg")
	if err != nil || img.Format != "jpeg" || !bytes.Equal(img.Data, data) {
		t.Fatalf("got %v, %v", img, err)
	}
	_, err = f.Fetch(t.Context(), "https://other.test:"+port+"/photo.jpg")
	if err == nil || Temporary(err) || !strings.Contains(err.Error(), "TLS certificate is not valid") {
		t.Errorf("got %v, want a permanent certificate failure", err)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{
		999: "999 B", 1 << 10: "1 KB", 25 << 20: "25 MB", 31_200_000: "29.8 MB", 25<<20 + 1: "25.1 MB",
	} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestSVGSniffing: SVG is told by its first element, after what may come
// before it, whatever the server calls it.
func TestSVGSniffing(t *testing.T) {
	for _, doc := range []string{
		`<svg xmlns="http://www.w3.org/2000/svg"/>`,
		"\xef\xbb\xbf  <?xml version=\"1.0\"?>\n<!-- by Inkscape -->\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"x\" [<!ENTITY a \"b>\">]>\n<svg>",
		"<svg\n width='1'>",
	} {
		if !isSVG([]byte(doc)) {
			t.Errorf("%q is SVG", doc)
		}
	}
	for _, doc := range []string{"<svgx>", "<html><svg>", "<?xml version='1.0'?><rss/>", "<!-- unterminated", "GIF89a", ""} {
		if isSVG([]byte(doc)) {
			t.Errorf("%q is not SVG", doc)
		}
	}
}
