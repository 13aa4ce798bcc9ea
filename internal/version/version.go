// Package version is what the running binary knows of its own build: the
// module version (or the commit it was built from), for `platen version`
// and the platen_build_info metric.
package version

import (
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// Info is a build's identity.
type Info struct {
	// Version is the module's version when built from a tagged module
	// (go install …@v1.2.3), else "devel".
	Version string `json:"version"`
	// Revision is the commit it was built from, with "-dirty" when the
	// work tree had changes; "unknown" when the build recorded none
	// (go run, go test).
	Revision  string `json:"revision"`
	GoVersion string `json:"go_version"`
}

// Read returns the running binary's build identity.
func Read() Info {
	bi, _ := debug.ReadBuildInfo() // nil when the binary recorded none
	return fromBuild(bi)
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
