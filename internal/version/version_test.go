package version

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestFromBuild(t *testing.T) {
	setting := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	gov := runtime.Version()
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want Info
	}{
		{"nothing recorded", nil, Info{"devel", "unknown", gov}},
		{"go run", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, Info{"devel", "unknown", gov}},
		{"go install @v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, Info{"v1.2.3", "unknown", gov}},
		{"a clean checkout", &debug.BuildInfo{Settings: setting("vcs.revision", "69e2269", "vcs.modified", "false")}, Info{"devel", "69e2269", gov}},
		{"a work tree with changes", &debug.BuildInfo{Settings: setting("vcs.modified", "true", "vcs.revision", "69e2269")}, Info{"devel", "69e2269-dirty", gov}},
		{"changes but no revision", &debug.BuildInfo{Settings: setting("vcs.modified", "true")}, Info{"devel", "unknown", gov}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fromBuild(tt.bi); got != tt.want {
				t.Errorf("fromBuild = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestStringIsOneLine(t *testing.T) {
	got := Info{"v1.2.3", "69e2269-dirty", "go1.26.8"}.String()
	if want := "platen v1.2.3 (69e2269-dirty, go1.26.8)"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

// TestCollectorLabelsTheRunningBuild: platen_build_info is 1, labelled with
// what Read says of this very binary.
func TestCollectorLabelsTheRunningBuild(t *testing.T) {
	i := Read()
	want := `# HELP platen_build_info The running build: always 1, labelled with its version, revision and Go version.
# TYPE platen_build_info gauge
platen_build_info{go_version="` + i.GoVersion + `",revision="` + i.Revision + `",version="` + i.Version + `"} 1
`
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(Collector())
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "platen_build_info"); err != nil {
		t.Error(err)
	}
}
