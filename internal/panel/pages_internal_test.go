package panel

import (
	"testing"

	"github.com/platen-print/platen/internal/prints"
)

// TestWordsForPeople: sizes in bytes, KB and MB; a count at the cap reads
// as "that many or more".
func TestWordsForPeople(t *testing.T) {
	for n, want := range map[uint32]string{512: "512 bytes", 98_764: "98.8 KB", 1_234_567: "1.2 MB"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
	if got := (stateCount{Count: prints.CountCap}).Shown(); got != "1,000+" {
		t.Errorf("a count at the cap reads %q", got)
	}
	if got := (stateCount{Count: 7}).Shown(); got != "7" {
		t.Errorf("a count of 7 reads %q", got)
	}
}
