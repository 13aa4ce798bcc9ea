package version

import (
	"os/exec"
	"path/filepath"
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

func TestWithStamp(t *testing.T) {
	gov := runtime.Version()
	recorded := Info{"devel", "69e2269", gov}
	unrecorded := Info{"devel", "unknown", gov}
	tests := []struct {
		name  string
		info  Info
		stamp string
		want  Info
	}{
		{"no stamp", unrecorded, "", unrecorded},
		{"a tag", unrecorded, "v1.2.0", Info{"v1.2.0", "unknown", gov}},
		{"commits after a tag", unrecorded, "v1.2.0-3-gabc1234", Info{"v1.2.0-3-gabc1234", "abc1234", gov}},
		{"no tag, changes", unrecorded, "abc1234-dirty\n", Info{"abc1234-dirty", "abc1234-dirty", gov}},
		{"Go recorded the commit", recorded, "v1.2.0-3-g69e2269", Info{"v1.2.0-3-g69e2269", "69e2269", gov}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := withStamp(tt.info, tt.stamp); got != tt.want {
				t.Errorf("withStamp(%+v, %q) = %+v, want %+v", tt.info, tt.stamp, got, tt.want)
			}
		})
	}
}

// TestStampedBuild: a binary linked with make build's -X flag, and no VCS
// information from Go, prints the stamped version and its commit.
func TestStampedBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "printversion")
	build := exec.Command("go", "build", "-buildvcs=false",
		"-ldflags", "-X github.com/platen-print/platen/internal/version.Stamp=v1.2.0-3-gabc1234-dirty",
		"-o", bin, "./testdata/printversion")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), "platen v1.2.0-3-gabc1234-dirty (abc1234-dirty, "+runtime.Version()+")"; got != want {
		t.Errorf("the stamped binary printed %q, want %q", got, want)
	}
}

// TestMakeBuildStamps: make build links git describe's answer in, and,
// where git fails (no git, no repository), builds without a stamp.
func TestMakeBuildStamps(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	root := filepath.Join("..", "..")
	dryRun := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("make", append([]string{"-n", "-s", "build"}, args...)...)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("make -n build %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	const flag = `-ldflags "-X github.com/platen-print/platen/internal/version.Stamp=`
	describe := exec.Command("git", "describe", "--always", "--dirty")
	describe.Dir = root
	if out, err := describe.Output(); err != nil {
		t.Logf("git describe: %v; the stamp is not checked against it", err)
	} else if got, want := dryRun(), flag+strings.TrimSpace(string(out))+`"`; !strings.Contains(got, want) {
		t.Errorf("make build runs %q, want it to hold %q", got, want)
	}
	if got := dryRun("GIT=" + filepath.Join(t.TempDir(), "no-git")); strings.Contains(got, "-ldflags") || !strings.Contains(got, "go build") {
		t.Errorf("without git, make build runs %q, want go build without -ldflags", got)
	}
}
