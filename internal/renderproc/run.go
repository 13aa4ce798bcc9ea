package renderproc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/fetch"
)

// childEnv marks a process as a render child and carries its settings
// (childConfig as JSON). The supervisor starts its own executable with it
// set, so that `platen`, and a test binary that starts servers, can each
// be the child of itself with no other binary to find.
const childEnv = "PLATEN_RENDER_CHILD"

// The pipes of a child, after stdin, stdout and stderr: stdout is left to
// anything that prints, so that nothing a library writes can break a frame.
const (
	requestsFD = 3
	answersFD  = 4
)

// childConfig is what a child renders with.
type childConfig struct {
	FontDir string `json:"font_dir,omitempty"`
	// FallbackFonts keeps nil (the default chain) apart from empty (none).
	FallbackFonts       []string `json:"fallback_fonts"`
	AllowPrivateNetwork bool     `json:"allow_private_network,omitempty"`
	MemoryBytes         int64    `json:"memory_bytes,omitempty"`
	LogLevel            string   `json:"log_level,omitempty"`
}

// testHookRender, when a test binary sets it, runs in the child before
// each render: the tests misbehave in it as a library might.
var testHookRender func(*renderv1.RenderRequest)

// A process started as a child runs renders and exits before its program's
// main starts (or its tests run).
func init() {
	if spec, ok := os.LookupEnv(childEnv); ok {
		os.Exit(runChild(spec))
	}
}

// runChild serves renders one at a time over the pipes until the
// supervisor closes them; it returns the exit code.
func runChild(spec string) int {
	var cfg childConfig
	if err := json.Unmarshal([]byte(spec), &cfg); err != nil {
		fmt.Fprintf(os.Stderr, "platen render child: bad %s: %v\n", childEnv, err)
		return 2
	}
	srv, err := childServer(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "platen render child: %v\n", err)
		return 2
	}
	if err := limitMemory(cfg.MemoryBytes); err != nil {
		fmt.Fprintf(os.Stderr, "platen render child: memory limit: %v\n", err)
		return 2
	}
	answers := os.NewFile(answersFD, "answers")
	if err := writeReady(answers); err != nil {
		fmt.Fprintf(os.Stderr, "platen render child: %v\n", err)
		return 1
	}
	if err := serveChild(srv, os.NewFile(requestsFD, "requests"), answers); err != nil {
		fmt.Fprintf(os.Stderr, "platen render child: %v\n", err)
		return 1
	}
	return 0
}

// limitMemory caps what the renders may add to the child's heap, once it
// has loaded what every render shares (its fonts), where the kernel
// enforces it (RLIMIT_DATA counts the anonymous memory Go's heap lives
// in; setDataLimit counts what the child has mapped already apart), so
// that a render that would take more dies alone; and has the garbage
// collector keep the heap near half of it, where the renders the budgets
// admit fit (rather than let garbage grow to twice what is live).
// The limit is the renders' alone (internal/config says how its default
// and minimum were chosen); the supervisor holds the child's resident
// memory to it plus 64 MB for the child's own (residentLimit). Under that
// limit the collector may let garbage grow to four times what is live
// (GOGC 400), not once: a render of a page carrying a photo allocates
// megabytes it holds for a moment, and collecting at every doubling of a
// small heap was a sixth of the heavy page's call to its child.
func limitMemory(limit int64) error {
	if limit <= 0 {
		return nil
	}
	debug.SetMemoryLimit(limit / 2)
	debug.SetGCPercent(childGCPercent)
	return setDataLimit(limit)
}

// childGCPercent is the render child's GOGC, under its memory limit.
const childGCPercent = 400

func childServer(cfg childConfig) (*Server, error) {
	fonts, err := LoadFonts(cfg.FontDir, cfg.FallbackFonts)
	if err != nil {
		return nil, fmt.Errorf("--font-dir: %w", err)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level})).With("render_child", os.Getpid())
	// The cache keeps images between renders, in the memory of the next
	// render, which may be another team's: an eighth of it at most.
	cache := max(cfg.MemoryBytes/8, 1)
	if cfg.MemoryBytes <= 0 {
		cache = 0 // the fetcher's default
	}
	return NewServer(Options{
		Fetcher: fetch.New(fetch.Config{AllowPrivateNetwork: cfg.AllowPrivateNetwork, CacheBytes: cache}),
		Fonts:   fonts,
		Logger:  logger,
	}), nil
}

func serveChild(srv *Server, requests io.Reader, answers io.Writer) error {
	for {
		req, limit, err := readRequest(requests)
		if errors.Is(err, io.EOF) {
			return nil // the supervisor let go
		}
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		if testHookRender != nil {
			testHookRender(req)
		}
		resp, failure := srv.Render(ctx, req)
		cancel()
		if err := writeAnswer(answers, resp, failure); err != nil {
			return err
		}
	}
}
