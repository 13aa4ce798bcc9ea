package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

const (
	// dialTimeout bounds one connection attempt, so that one unreachable
	// address of a host leaves time to try the next within Timeout.
	dialTimeout = 5 * time.Second
	userAgent   = "Platen-image-fetcher/1"
	// accept names only what Platen reads, so that a CDN negotiating on
	// Accept does not answer AVIF.
	accept = "image/png, image/jpeg, image/webp, image/svg+xml"
)

// errTimedOut is the cause of a download's context when Timeout ends it,
// to tell it apart from the caller giving up.
var errTimedOut = errors.New("fetch timeout")

func (f *Fetcher) newClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:               nil, // a proxy would connect for us, past the address check
			DialContext:         f.DialContext,
			ForceAttemptHTTP2:   true, // a custom DialContext turns HTTP/2 off otherwise
			TLSHandshakeTimeout: 10 * time.Second,
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     90 * time.Second,
		},
		CheckRedirect: f.checkRedirect,
	}
}

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	switch {
	case f.cfg.MaxRedirects < 0:
		return &failure{reason: "was redirected, and redirects are not followed"}
	case len(via) > f.cfg.MaxRedirects:
		return &failure{reason: fmt.Sprintf("was redirected more than %d times", f.cfg.MaxRedirects)}
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return &failure{kind: ErrBadURL, reason: "was redirected to " + shown(req.URL.String()) + ", which is not http or https"}
	}
	return nil
}

// fetchURL serves src from the cache, or downloads it once however many
// callers ask at the same time.
func (f *Fetcher) fetchURL(ctx context.Context, src string) (*Image, error) {
	u, err := parseHTTPURL(src)
	if err != nil {
		return nil, err
	}
	if img, ok := f.cache.get(src); ok {
		return img, nil
	}
	// The download outlives a caller who gives up, so that the callers
	// sharing it are not failed by one of them; Timeout still bounds it.
	shared := context.WithoutCancel(ctx)
	ch := f.flight.DoChan(src, func() (any, error) {
		if img, ok := f.cache.get(src); ok { // a flight that just ended
			return img, nil
		}
		img, err := f.download(shared, u)
		if err == nil {
			f.cache.put(src, img)
		}
		return img, err
	})
	if f.testHookShared != nil {
		f.testHookShared(src)
	}
	select {
	case res := <-ch:
		if res.Err != nil {
			return nil, res.Err
		}
		return res.Val.(*Image), nil
	case <-ctx.Done():
		return nil, interrupted(ctx)
	}
}

func (f *Fetcher) download(ctx context.Context, u *url.URL) (*Image, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, f.cfg.Timeout, errTimedOut)
	defer cancel()
	data, err := f.get(ctx, u)
	if err != nil {
		if errors.Is(context.Cause(ctx), errTimedOut) {
			return nil, &failure{reason: "timed out after " + f.cfg.Timeout.String(), temporary: true, cause: err}
		}
		return nil, explain(err)
	}
	return f.inspect(data)
}

func (f *Fetcher) get(ctx context.Context, u *url.URL) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", userAgent)
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close() //nolint:errcheck // nothing to do about it
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, statusFailure(resp.StatusCode)
	}
	if resp.ContentLength > f.cfg.MaxBytes {
		return nil, tooManyBytes(resp.ContentLength, f.cfg.MaxBytes)
	}
	return readLimited(resp.Body, f.cfg.MaxBytes)
}

// readLimited reads at most limit bytes, and one more to know that there
// are more: an endless body costs no more than the limit.
func readLimited(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &failure{kind: ErrTooLarge, reason: "is over the " + formatBytes(limit) + " limit (stopped reading there)"}
	}
	return data, nil
}

func parseHTTPURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its text would repeat the URL
		}
		return nil, &failure{kind: ErrBadURL, reason: "is not a valid URL: " + err.Error()}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, unsupportedScheme(u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, &failure{kind: ErrBadURL, reason: "is not a valid URL: it names no host"}
	}
	if _, err := portOf(u); err != nil {
		return nil, err
	}
	return u, nil
}

// portOf is the port u connects to: its own, else its scheme's. A port
// out of range can never connect, so it is the URL's fault, not the
// network's, and no retry may help.
func portOf(u *url.URL) (uint16, error) {
	p := u.Port()
	switch {
	case p == "" && u.Scheme == "https":
		return 443, nil
	case p == "":
		return 80, nil
	}
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil || n == 0 {
		return 0, badPort(p)
	}
	return uint16(n), nil
}

func badPort(p string) *failure {
	return &failure{kind: ErrBadURL, reason: "is not a valid URL: port " + clip(p, 20) + " is not between 1 and 65535"}
}
