package procstat

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"testing"
)

func TestReadsThisProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	pid := os.Getpid()
	rss, err := RSS(pid)
	if err != nil || rss <= 0 {
		t.Fatalf("RSS = %d, %v", rss, err)
	}
	peak, err := PeakRSS(pid)
	if err != nil || peak < rss {
		t.Fatalf("PeakRSS = %d, %v; RSS %d", peak, err, rss)
	}
	if _, err := CPUTime(pid); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if kids := Children(pid); !slices.Contains(kids, cmd.Process.Pid) {
		t.Errorf("Children = %v; want %d among them", kids, cmd.Process.Pid)
	}
}
