// Package fetch fetches the images a design document names:
// PNG, JPEG, WebP or SVG, over http(s) or from data: URIs, within size, pixel
// and time limits, and never from a loopback, private, link-local or cloud
// metadata address unless the operator allows it. The address rules guard
// webhook targets too, through CheckURL and DialContext.
package fetch

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"golang.org/x/sync/singleflight"
)

// The limits of images a design names, and the cache's defaults.
const (
	DefaultMaxBytes     = 25 << 20
	DefaultMaxPixels    = 100_000_000
	DefaultTimeout      = 15 * time.Second
	DefaultMaxRedirects = 10
	DefaultCacheBytes   = 256 << 20
	DefaultCacheTTL     = time.Hour
)

// Config sets a Fetcher's limits; a zero field takes its default.
type Config struct {
	MaxBytes     int64         // per image, counted as read, so a lying Content-Length cannot pass
	MaxPixels    int64         // width × height, checked before anyone decodes the image
	Timeout      time.Duration // for a whole image: connection, redirects and body
	MaxRedirects int           // a negative value follows none
	CacheBytes   int64         // total size of cached images; a negative value disables the cache
	CacheTTL     time.Duration // how long a fetched image is reused, so a changed file is seen again

	// AllowPrivateNetwork lets images and webhooks reach loopback, private,
	// link-local and metadata addresses (--allow-private-network).
	AllowPrivateNetwork bool
	// Resolver looks up host names; nil means net.DefaultResolver.
	Resolver *net.Resolver
}

// withDefaults fills in the defaults. A limit below zero means none only
// where the field says so; elsewhere it would fail every image, so it takes
// the default too.
func (c Config) withDefaults() Config {
	c.MaxBytes = positiveOr(c.MaxBytes, DefaultMaxBytes)
	c.MaxPixels = positiveOr(c.MaxPixels, DefaultMaxPixels)
	c.Timeout = positiveOr(c.Timeout, DefaultTimeout)
	c.CacheTTL = positiveOr(c.CacheTTL, DefaultCacheTTL)
	if c.MaxRedirects == 0 {
		c.MaxRedirects = DefaultMaxRedirects
	}
	if c.CacheBytes == 0 {
		c.CacheBytes = DefaultCacheBytes
	}
	if c.Resolver == nil {
		c.Resolver = net.DefaultResolver
	}
	return c
}

func positiveOr[T int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Image is a fetched image.
type Image struct {
	// Data holds the bytes as served, never re-encoded, so that a JPEG can
	// pass into a PDF untouched. It is shared with the cache: read only.
	Data          []byte
	Format        string // "png", "jpeg", "webp" or "svg"
	Width, Height int    // in pixels; 0 for SVG
}

// Fetcher fetches images and checks addresses. It is safe for concurrent
// use, and meant to live as long as the process so that its cache and
// connections are reused.
type Fetcher struct {
	cfg    Config
	client *http.Client
	dialer *net.Dialer
	cache  *cache
	flight singleflight.Group

	// exempt lets tests stand a loopback server in for a public one; the
	// check is by address and port, so a second loopback server stays refused.
	exempt map[netip.AddrPort]bool
	// testHookShared, when a test sets it, runs once a caller waits for a
	// download, its own or one it shares with earlier callers.
	testHookShared func(src string)
}

// New returns a Fetcher with cfg's limits.
func New(cfg Config) *Fetcher {
	f := &Fetcher{cfg: cfg.withDefaults()}
	f.dialer = &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second, Control: f.control}
	f.client = f.newClient()
	f.cache = newCache(f.cfg.CacheBytes, f.cfg.CacheTTL)
	return f
}

// Fetch returns the image src names: an http or https URL, or a data: URI.
// Errors read "image <src>: <reason>", fit to show a shop as the print's
// failure reason; Temporary tells whether a retry can help.
func (f *Fetcher) Fetch(ctx context.Context, src string) (*Image, error) {
	img, err := f.fetch(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", shown(src), err)
	}
	return img, nil
}

func (f *Fetcher) fetch(ctx context.Context, src string) (*Image, error) {
	switch scheme := schemeOf(src); scheme {
	case "data":
		data, err := decodeDataURI(src, f.cfg.MaxBytes)
		if err != nil {
			return nil, err
		}
		return f.inspect(data)
	case "http", "https":
		return f.fetchURL(ctx, src)
	default:
		return nil, unsupportedScheme(scheme)
	}
}

// schemeOf returns src's scheme in lower case, without parsing the rest:
// a data: URI need not be a valid URL.
func schemeOf(src string) string {
	scheme, _, ok := strings.Cut(src, ":")
	if !ok || strings.ContainsAny(scheme, "/?#") {
		return ""
	}
	return strings.ToLower(scheme)
}
