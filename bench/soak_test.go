package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/platen-print/platen/internal/testtools"
)

// soakSeries is samples every 10 s for 10 minutes whose RSS grows by
// growth over the run.
func soakSeries(growth float64) []soakSample {
	var out []soakSample
	for i := 1; i <= 60; i++ {
		rss := int64(100 << 20 * (1 + growth*float64(i)/60))
		out = append(out, soakSample{At: time.Duration(i) * 10 * time.Second, RSS: rss, TreeRSS: 2 * rss, GoHeap: 40 << 20,
			Goroutines: 40, FDs: 30, P99: 20 * time.Millisecond, Requests: 100})
	}
	return out
}

func TestSoakVerdicts(t *testing.T) {
	var steady, growing bytes.Buffer
	soakVerdicts(&steady, "sqlite", 5, soakSeries(0.02), 2*time.Minute)
	soakVerdicts(&growing, "sqlite", 5, soakSeries(0.5), 2*time.Minute)
	if strings.Contains(steady.String(), "GREW") || strings.Count(steady.String(), "no growth beyond 10%") != len(soakMetrics) {
		t.Errorf("a steady run:\n%s", steady.String())
	}
	if strings.Count(growing.String(), "GREW") != 2 { // RSS alone, and with the render processes
		t.Errorf("RSS growing by half:\n%s", growing.String())
	}
}

func TestSoakChartsAndCSV(t *testing.T) {
	dir := t.TempDir()
	samples := soakSeries(0.3)
	if err := drawSoakCharts(filepath.Join(dir, "c.png"), "Soak, test", samples, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	img := testtools.ReadPNG(t, filepath.Join(dir, "c.png"))
	// The line is drawn in blue: some pixels must be.
	blue := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if bl > 0xa000 && r < 0x6000 && g < 0x8000 {
				blue++
			}
		}
	}
	if blue < 100 || b.Dx() < 1000 {
		t.Errorf("a %v chart with %d line pixels", b.Size(), blue)
	}
	if err := writeSoakCSV(filepath.Join(dir, "s.csv"), samples); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "s.csv"))
	if lines := strings.Split(strings.TrimSpace(string(raw)), "\n"); len(lines) != 61 || !strings.HasPrefix(lines[1], "10,") {
		t.Errorf("CSV:\n%s", raw)
	}
}
