package bench

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/procstat"
)

func TestProcReaders(t *testing.T) {
	peak, err := procstat.PeakRSS(os.Getpid())
	if err != nil || peak < 1<<20 {
		t.Errorf("peakRSS: %d, %v", peak, err)
	}
	if _, err := procstat.CPUTime(os.Getpid()); err != nil {
		t.Errorf("cpuTime: %v", err)
	}
}

// TestRenderedOrderBody checks that the order carries the reference page
// as the server will decode it.
func TestRenderedOrderBody(t *testing.T) {
	body, err := renderedOrderBody("s", "o", "o-1", "http://127.0.0.1:9/p.jpg?n=7")
	if err != nil {
		t.Fatal(err)
	}
	var order struct {
		CreatePrintFiles bool `json:"create_print_files"`
		Items            []struct {
			TemplateConfig string `json:"template_config"`
		} `json:"items"`
	}
	if err := json.Unmarshal(body, &order); err != nil || !order.CreatePrintFiles || len(order.Items) != 1 {
		t.Fatalf("%s: %v", body, err)
	}
	doc, err := designdoc.ParseConfig(order.Items[0].TemplateConfig)
	if err != nil {
		t.Fatal(err)
	}
	if src := doc.Surfaces[0].Layers[0].Src; src != "http://127.0.0.1:9/p.jpg?n=7" {
		t.Errorf("src %q", src)
	}
}

func TestCommaList(t *testing.T) {
	if got := commaList(" a,,b , a"); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("%q", got)
	}
}
