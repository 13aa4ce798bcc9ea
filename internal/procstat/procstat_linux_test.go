package procstat

import (
	"os"
	"syscall"
	"testing"
)

// TestMappedDataCountsWhatIsMappedNotWhatIsTouched: 64 MB mapped and never
// touched counts in MappedData, as RLIMIT_DATA counts it, and not in RSS.
func TestMappedDataCountsWhatIsMappedNotWhatIsTouched(t *testing.T) {
	pid := os.Getpid()
	before, err := MappedData(pid)
	if err != nil || before <= 0 {
		t.Fatalf("MappedData = %d, %v", before, err)
	}
	rssBefore, _ := RSS(pid)
	const size = 64 << 20
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Munmap(mem) }()
	after, err := MappedData(pid)
	if err != nil || after-before < size {
		t.Errorf("MappedData grew by %d, %v; want at least %d", after-before, err, size)
	}
	if rss, _ := RSS(pid); rss-rssBefore >= size {
		t.Errorf("RSS grew by %d for memory never touched", rss-rssBefore)
	}
}
