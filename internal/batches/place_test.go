package batches

import (
	"errors"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/apierr"
)

// TestDesignBytesCountEachDesignOnce: the bound is on the distinct designs
// a batch reads, so a design shared by many items counts once.
func TestDesignBytesCountEachDesignOnce(t *testing.T) {
	var shared []*Item
	for range 1000 {
		shared = append(shared, &Item{DesignKey: "same", DesignBytes: MaxDesignBytes / 2})
	}
	if err := checkDesignBytes(shared); err != nil {
		t.Errorf("one design of half the bound, 1000 times: %v", err)
	}
	distinct := []*Item{{DesignKey: "a", DesignBytes: MaxDesignBytes / 2}, {DesignKey: "b", DesignBytes: MaxDesignBytes/2 + 1}}
	err := checkDesignBytes(distinct)
	var invalid *apierr.ValidationError
	if !errors.As(err, &invalid) || !strings.Contains(err.Error(), "order_items: the items' distinct designs total 32.0 MB; a batch takes at most 32 MB") {
		t.Errorf("two designs over the bound together: %v", err)
	}
}
