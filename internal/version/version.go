// Package version is what the running binary knows of its own build: the
// version make build stamps into it, or the module version (or the commit
// it was built from), for `platen version` and the platen_build_info
// metric.
package version

import (
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// Stamp is set when the binary is linked, by make build:
//
//	go build -ldflags "-X github.com/platen-print/platen/internal/version.Stamp=$(git describe --always --dirty)"
//
// It holds git describe's answer: the last tag, the commits since and the
// commit (v1.2.0-3-gabc1234), or the commit alone when no tag precedes it,
// with "-dirty" when the work tree had changes. Go records the commit
// only where its own VCS stamping works (a build with -buildvcs=false, or
// from a copy of the sources without .git, records none); the stamp works
// wherever the Makefile could run git.
var Stamp string

// Info is a build's identity.
type Info struct {
	// Version is Stamp when the build was stamped, else the module's
	// version when built from a tagged module (go install …@v1.2.3), else
	// "devel".
	Version string `json:"version"`
	// Revision is the commit it was built from, with "-dirty" when the
	// work tree had changes (from Go's VCS stamping, else from Stamp);
	// "unknown" when the build recorded none (go run, go test).
	Revision  string `json:"revision"`
	GoVersion string `json:"go_version"`
}

// Read returns the running binary's build identity.
func Read() Info {
	bi, _ := debug.ReadBuildInfo() // nil when the binary recorded none
	return withStamp(fromBuild(bi), Stamp)
}

// describedCommit finds the commit in git describe's answer: after "-g"
// when a tag precedes it, else the whole answer; "-dirty" kept.
var describedCommit = regexp.MustCompile(`(?:^|-g)([0-9a-f]{7,64})(-dirty)?$`)

// withStamp is info with the version make build stamped (none when
// stamp is empty), and the commit it names when Go recorded none.
func withStamp(info Info, stamp string) Info {
	stamp = strings.TrimSpace(stamp)
	if stamp == "" {
		return info
	}
	info.Version = stamp
	if m := describedCommit.FindStringSubmatch(stamp); m != nil && info.Revision == "unknown" {
		info.Revision = m[1] + m[2]
	}
	return info
}

// fromBuild reads an identity from what the Go toolchain recorded in the
// binary (nil when it recorded nothing).
func fromBuild(bi *debug.BuildInfo) Info {
	info := Info{Version: "devel", Revision: "unknown", GoVersion: runtime.Version()}
	if bi == nil {
		return info
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		info.Version = v
	}
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && info.Revision != "unknown" {
		info.Revision += "-dirty"
	}
	return info
}

// String is the one line `platen version` prints.
func (i Info) String() string {
	return "platen " + i.Version + " (" + i.Revision + ", " + i.GoVersion + ")"
}

// Collector is platen_build_info: 1, labelled with the build's identity,
// so that a dashboard can tell which build each process runs.
func Collector() prometheus.Collector {
	i := Read()
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "platen_build_info",
		Help:        "The running build: always 1, labelled with its version, revision and Go version.",
		ConstLabels: prometheus.Labels{"version": i.Version, "revision": i.Revision, "go_version": i.GoVersion},
	})
	g.Set(1)
	return g
}
