package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTheGuardReadsTheRepositorysFigures: BENCHMARKS.md's guard table
// holds a figure for each yardstick the guard measures.
func TestTheGuardReadsTheRepositorysFigures(t *testing.T) {
	figures, err := readGuardFigures(filepath.Join("..", "BENCHMARKS.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range guardNames {
		if figures[name] <= 0 {
			t.Errorf("%s: recorded %v", name, figures[name])
		}
	}
}

func TestTheGuardFailsAFigureThatFell(t *testing.T) {
	path := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	doc := "# Benchmarks\n\n## API\n\n| create | 9 |\n\n## The guard\n\n| figure | recorded | date |\n|---|---:|---|\n" +
		"| `create` | 0.60 | 2026-11-28 |\n| `read` | 0.70 | 2026-11-28 |\n| `render` | 2.00 | 2026-11-28 |\n\n## Later\n\n| read | 5 |\n"
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	recorded, err := readGuardFigures(path)
	if err != nil {
		t.Fatal(err)
	}
	if recorded[guardCreate] != 0.60 || recorded[guardRead] != 0.70 || recorded[guardRender] != 2.00 {
		t.Fatalf("read %v", recorded)
	}
	var out strings.Builder
	// create's median 0.52 is 13% under 0.60; read's 0.58 is 17% under 0.70.
	got := map[string][]float64{guardCreate: {0.50, 0.52, 0.61}, guardRead: {0.58, 0.40, 0.70}, guardRender: {2.1, 1.9, 2.0}}
	err = judgeGuard(&out, got, recorded, 0.15)
	if err == nil || !strings.Contains(err.Error(), "read: 0.58") || strings.Contains(err.Error(), "create") || strings.Contains(err.Error(), "render") {
		t.Errorf("judged %v\n%s", err, out.String())
	}
	got[guardRead] = []float64{0.65, 0.66, 0.1}
	if err := judgeGuard(&out, got, recorded, 0.15); err != nil {
		t.Errorf("every figure within 15%%: %v", err)
	}
	if err := os.WriteFile(path, []byte("## The guard\n\n| `create` | 0.6 |\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readGuardFigures(path); err == nil || !strings.Contains(err.Error(), "no read figure") {
		t.Errorf("a table without read: %v", err)
	}
}
