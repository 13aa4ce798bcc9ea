// Package config holds Platen's settings: one Config with defaults, the
// command-line flags that set it, the PLATEN_* environment variables that
// stand in for any flag not given, and Validate.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Config is every setting of `platen serve` and the commands that share its
// database.
type Config struct {
	HTTPAddr        string
	GRPCAddr        string
	DataDir         string
	DatabaseURL     string
	LogLevel        string
	AccessLog       bool
	ShutdownTimeout time.Duration
	// DBTimeout bounds each call `platen serve` makes to PostgreSQL
	// (connect, statement, commit): past it the call fails and the API
	// answers 503 with Retry-After rather than wait on a database that
	// went silent.
	DBTimeout time.Duration
	// DebugAddr serves net/http/pprof when set; never on a public address.
	DebugAddr string
	// RateLimit is each token's requests a second in one process (0: none),
	// RateBurst the burst it may take at once (0: twice the rate).
	RateLimit float64
	RateBurst int

	Render
	// BlobURL is where print files are stored: file://DIR (default
	// DATA_DIR/files) or s3://bucket?endpoint=…&region=….
	BlobURL string
	// PublicURL is the base of download links (default http://HTTP_ADDR).
	PublicURL string
	// RenderAddrs are remote `platen render` processes (host:port); empty
	// renders in this process.
	RenderAddrs []string
	// RenderWorkers is how many renders run at once in this process
	// (default: the number of CPUs).
	RenderWorkers int
	// PreviewTimeout is one panel preview's render budget (0: the
	// default, prints.DefaultPreviewTimeout); past it the panel shows a
	// placeholder.
	PreviewTimeout time.Duration
	// WebhookRetryDelays replaces the webhook retry schedule (docs/behaviour.md,
	// Webhooks) when set. No flag sets it: tests shorten the schedule with it.
	WebhookRetryDelays []time.Duration
	// WebhookAttemptTimeout and WebhookPause, when set, replace how long
	// a webhook attempt may last (10 s) and how long a failing
	// endpoint is first paused (30 s; the longest pause is 20 times it).
	// No flag sets them: tests shorten them.
	WebhookAttemptTimeout, WebhookPause time.Duration
}

// Render is what rendering needs, in `platen serve` and `platen render`.
type Render struct {
	// AllowPrivateNetwork lets images (and webhooks) reach loopback,
	// private, link-local and metadata addresses: for tests and closed
	// networks only.
	AllowPrivateNetwork bool
	// FontDir holds operator-added TTF/OTF fonts, each named by its file
	// name without the extension.
	FontDir string
	// FallbackFonts are the TTF files tried, in order, for characters a
	// text's font lacks; nil is the renderer's default chain (Debian's
	// Noto Sans, Droid Sans Fallback, Nanum Gothic and Symbola), empty
	// none.
	FallbackFonts []string
	// Timeout bounds one render's wall clock, and its CPU time too;
	// MemoryMB caps a render process's heap. A render past either fails
	// with the reason, and is not retried.
	Timeout  time.Duration
	MemoryMB int
	// ProcessesOnDemand starts each render process at its first render
	// rather than with `platen serve`. No flag sets it: serve starts its
	// processes at once, so that the first renders wait for none and a
	// process that cannot start is seen at start; tests' servers, most of
	// which never render, set it.
	ProcessesOnDemand bool
}

// Render limits' defaults: a render of the largest page with its images
// takes seconds and stays under 250 MB resident (BENCHMARKS.md). The
// memory limit is what renders may add to a render process's heap: what
// the process holds before its first render comes on top (about 20 MB in
// RAM; 80 to 110 MB mapped, nearly all of it reserved and never touched,
// which the kernel's data limit counts apart: internal/renderproc's
// setDataLimit). 384 MB is 1.7 times the largest renders' peak.
const (
	DefaultRenderTimeout  = 2 * time.Minute
	DefaultRenderMemoryMB = 384
)

// DefaultDBTimeout is --db-timeout's default: far above what a statement
// of Platen's takes (milliseconds), short enough that a client waits on a
// silent database no longer than it would on a slow answer.
const DefaultDBTimeout = 5 * time.Second

// Default returns the embedded defaults: nothing to install, data in ./data.
func Default() Config {
	return Config{
		HTTPAddr:        "127.0.0.1:8080",
		GRPCAddr:        "127.0.0.1:9090",
		DataDir:         "./data",
		LogLevel:        "info",
		AccessLog:       true,
		ShutdownTimeout: 20 * time.Second,
		DBTimeout:       DefaultDBTimeout,
		Render:          Render{Timeout: DefaultRenderTimeout, MemoryMB: DefaultRenderMemoryMB},
	}
}

// StorageFlags registers the flags every command that opens the database
// shares.
func (c *Config) StorageFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.DataDir, "data-dir", c.DataDir, "directory of the embedded SQLite database and local files")
	fs.StringVar(&c.DatabaseURL, "database-url", c.DatabaseURL, "postgres://… for PostgreSQL; empty for the SQLite file in --data-dir")
	fs.StringVar(&c.LogLevel, "log-level", c.LogLevel, "debug, info, warn or error")
}

// ServeFlags registers the flags of `platen serve`.
func (c *Config) ServeFlags(fs *pflag.FlagSet) {
	c.StorageFlags(fs)
	fs.StringVar(&c.HTTPAddr, "http-addr", c.HTTPAddr, "address of the REST API, /healthz, /readyz and /metrics")
	fs.StringVar(&c.GRPCAddr, "grpc-addr", c.GRPCAddr, "address of the gRPC API (reflection and health on)")
	fs.BoolVar(&c.AccessLog, "access-log", c.AccessLog, "log one line per HTTP request")
	fs.DurationVar(&c.ShutdownTimeout, "shutdown-timeout", c.ShutdownTimeout, "how long a shutdown waits for requests in flight")
	fs.DurationVar(&c.DBTimeout, "db-timeout", c.DBTimeout, "how long one call to PostgreSQL (connect, statement, commit), or the wait for a pooled connection, may take before the request answers 503")
	fs.StringVar(&c.DebugAddr, "debug-addr", c.DebugAddr, "serve Go's pprof profiles on this address (off when empty)")
	fs.Float64Var(&c.RateLimit, "rate-limit", c.RateLimit, "requests a second each API token may make in this process; 0 for no limit")
	fs.IntVar(&c.RateBurst, "rate-burst", c.RateBurst, "requests a token may make at once above --rate-limit; 0 for twice the rate")
	fs.StringVar(&c.BlobURL, "blob-url", c.BlobURL, "where print files are stored: file://DIR (default DATA_DIR/files) or s3://BUCKET?endpoint=…&region=…")
	fs.StringVar(&c.PublicURL, "public-url", c.PublicURL, "base URL of download links (default http://HTTP_ADDR)")
	fs.StringSliceVar(&c.RenderAddrs, "render-addr", c.RenderAddrs, "host:port of platen render processes, comma-separated; empty renders in this process")
	fs.IntVar(&c.RenderWorkers, "render-workers", c.RenderWorkers, "renders at once in this process; 0 for the number of CPUs")
	fs.DurationVar(&c.PreviewTimeout, "preview-timeout", c.PreviewTimeout, "render time one panel preview may take before the panel shows a placeholder; 0 for 5s")
	c.Render.Flags(fs)
}

// Flags registers the rendering flags shared by serve and render.
func (r *Render) Flags(fs *pflag.FlagSet) {
	fs.BoolVar(&r.AllowPrivateNetwork, "allow-private-network", r.AllowPrivateNetwork, "let images and webhooks reach loopback, private, link-local and metadata addresses (tests and closed networks only)")
	fs.StringVar(&r.FontDir, "font-dir", r.FontDir, "directory of operator-added TTF/OTF fonts, each named by its file name without the extension")
	fs.StringSliceVar(&r.FallbackFonts, "fallback-fonts", r.FallbackFonts, "TTF files tried in order for characters a text's font lacks, comma-separated (default: Debian's Noto Sans, Droid Sans Fallback, Nanum Gothic and Symbola; \"\" for none)")
	fs.DurationVar(&r.Timeout, "render-timeout", r.Timeout, "wall-clock and CPU time one render may take; past it the print fails")
	fs.IntVar(&r.MemoryMB, "render-memory-mb", r.MemoryMB, "heap one render process may use, in MiB; a render needing more fails")
}

// Validate reports rendering settings that cannot work.
func (r *Render) Validate() error {
	var errs []error
	if r.Timeout <= 0 {
		errs = append(errs, errors.New("--render-timeout must be positive"))
	}
	// An ordinary page, a photo at 150 DPI as PDF and PNG, takes about
	// 40 MB over the process's own: 128 MB keeps it under the garbage
	// collector's target, half the limit.
	if r.MemoryMB < 128 {
		errs = append(errs, fmt.Errorf("--render-memory-mb must be at least 128, got %d", r.MemoryMB))
	}
	return errors.Join(errs...)
}

// BlobURLOrDefault is --blob-url, or the files directory in --data-dir.
func (c *Config) BlobURLOrDefault() (string, error) {
	if c.BlobURL != "" {
		return c.BlobURL, nil
	}
	dir, err := filepath.Abs(filepath.Join(c.DataDir, "files"))
	if err != nil {
		return "", err
	}
	return "file://" + filepath.ToSlash(dir), nil
}

// EnvPrefix starts the environment variable of every flag.
const EnvPrefix = "PLATEN_"

// EnvName is the environment variable standing in for a flag:
// --http-addr reads PLATEN_HTTP_ADDR.
func EnvName(flag string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// ApplyEnv sets every flag that was not given on the command line from its
// environment variable, when that is set. Flags win over the environment.
func ApplyEnv(fs *pflag.FlagSet) error {
	var errs []error
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Changed {
			return
		}
		if v, ok := os.LookupEnv(EnvName(f.Name)); ok {
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", EnvName(f.Name), err))
			}
		}
	})
	return errors.Join(errs...)
}

// Validate reports settings that cannot work.
func (c *Config) Validate() error {
	var errs []error
	for name, addr := range map[string]string{"--http-addr": c.HTTPAddr, "--grpc-addr": c.GRPCAddr} {
		if err := checkAddr(addr); err != nil {
			errs = append(errs, fmt.Errorf("%s %q: %w", name, addr, err))
		}
	}
	if c.DataDir == "" {
		errs = append(errs, errors.New("--data-dir must not be empty"))
	}
	if _, err := c.Level(); err != nil {
		errs = append(errs, err)
	}
	if c.RateLimit < 0 || c.RateBurst < 0 {
		errs = append(errs, errors.New("--rate-limit and --rate-burst must not be negative"))
	}
	for _, addr := range c.RenderAddrs {
		if err := checkAddr(addr); err != nil {
			errs = append(errs, fmt.Errorf("--render-addr %q: %w", addr, err))
		}
	}
	if c.RenderWorkers < 0 {
		errs = append(errs, errors.New("--render-workers must not be negative"))
	}
	if c.PreviewTimeout < 0 {
		errs = append(errs, errors.New("--preview-timeout must not be negative"))
	}
	if c.PublicURL != "" {
		if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("--public-url %q: want http(s)://host[:port][/path]", c.PublicURL))
		}
	}
	if c.DBTimeout <= 0 {
		errs = append(errs, errors.New("--db-timeout must be positive"))
	}
	if c.ShutdownTimeout <= 0 {
		errs = append(errs, errors.New("--shutdown-timeout must be positive"))
	}
	errs = append(errs, c.Render.Validate())
	return errors.Join(errs...)
}

// checkAddr accepts host:port with a port from 0 (any free one) to 65535.
func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %q: want a number from 0 to 65535", port)
	}
	return nil
}

// Level is the parsed --log-level.
func (c *Config) Level() (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return l, fmt.Errorf("--log-level %q: want debug, info, warn or error", c.LogLevel)
	}
	return l, nil
}
