package bench

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"
)

func TestCapacityNamesTheTightestPart(t *testing.T) {
	c := costs{
		RenderPerPage: 20 * time.Millisecond,                                 // 50 a second per render core
		ServePerPage:  5 * time.Millisecond, DBPerPage: 4 * time.Millisecond, // 200 and 250 a second per core
		ServePerCreate: 2 * time.Millisecond, DBPerCreate: 1 * time.Millisecond,
	}
	for _, tc := range []struct {
		shape      clusterShape
		pages      float64
		bottleneck string
		creates    float64
	}{
		{clusterShape{1, 1, 2}, 50, "render", 500},
		{clusterShape{1, 8, 2}, 200, "serve (API and queue)", 500},
		{clusterShape{4, 16, 2}, 500, "database", 2000},
		{clusterShape{4, 16, 1}, 250, "database", 1000},
	} {
		got := capacityOf(c, tc.shape)
		if math.Abs(got.Pages-tc.pages) > 1e-6 || got.Bottleneck != tc.bottleneck || math.Abs(got.Creates-tc.creates) > 1e-6 {
			t.Errorf("%+v: %+v, want %.0f pages/s limited by %s, %.0f creates/s", tc.shape, got, tc.pages, tc.bottleneck, tc.creates)
		}
	}
}

func TestCapacityTableRows(t *testing.T) {
	var out bytes.Buffer
	writeCapacity(&out, costs{RenderPerPage: 20 * time.Millisecond, ServePerPage: time.Millisecond,
		DBPerPage: time.Millisecond, ServePerCreate: time.Millisecond, DBPerCreate: time.Millisecond, BytesPerPage: 200_000})
	// One render process: 50 orders a second of 200 KB each.
	if !strings.Contains(out.String(), "| 1 | 1 | 1 | 50 | render | 1000 | 10.0 |") {
		t.Errorf("table:\n%s", out.String())
	}
	if rows := strings.Count(out.String(), "\n| "); rows != len(capacityShapes)+1 {
		t.Errorf("%d rows, want a header and %d shapes:\n%s", rows, len(capacityShapes), out.String())
	}
}
