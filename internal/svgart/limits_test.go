package svgart

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
)

// measure parses svg and reports how long it took and how much it
// allocated in all (an upper bound of the peak heap it added).
func measure(t *testing.T, svg string) (time.Duration, uint64, error) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := Parse([]byte(svg))
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	return took, after.TotalAlloc - before.TotalAlloc, err
}

// limitAlloc is what a refusal may allocate: a limit that only stops a
// file after its work is done stops nothing. (Time is not asserted: a
// loaded two-core machine makes any bound either flaky or meaningless;
// the logged times are the figures.)
const limitAlloc = 256 << 20

func TestLimitsRefuseQuickly(t *testing.T) {
	deep := strings.Repeat("<g>", 100) + strings.Repeat("</g>", 100)
	// Ten levels of ten <use> each: 10^10 copies if expanded.
	var bomb strings.Builder
	bomb.WriteString(`<defs><path id="l0" d="M0 0h1v1z"/>`)
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&bomb, `<g id="l%d">`, i)
		for j := 0; j < 10; j++ {
			fmt.Fprintf(&bomb, `<use href="#l%d"/>`, i-1)
		}
		bomb.WriteString(`</g>`)
	}
	bomb.WriteString(`</defs><use href="#l10"/>`)
	// 200 copies of a path of 10 000 commands: 2 000 000 commands drawn.
	copies := `<defs><path id="p" d="M0 0` + strings.Repeat(" l1 1", 10_000) + `"/></defs>` + strings.Repeat(`<use href="#p"/>`, 200)
	cases := []struct {
		name, svg, want string
	}{
		{"10 MB+ input", doc(`<!--` + strings.Repeat("x", MaxInputBytes) + `-->`), "10 MiB"},
		{"100k elements", doc(strings.Repeat(`<g/>`, 100_000)), "elements"},
		{"deep nesting", doc(deep), "nested more than"},
		{"use bomb", doc(bomb.String()), "<use> copies"},
		{"millions of path commands", doc(`<path d="M0 0L` + strings.Repeat("1 1 ", 2_000_000) + `"/>`), "path commands"},
		{"path copies", doc(copies), "path commands"},
		{"many points", doc(`<polygon points="` + strings.Repeat("1,1 ", 1_200_000) + `"/>`), "path commands"},
		{"entity expansion", `<!DOCTYPE svg [<!ENTITY a "` + strings.Repeat("x", 200) + `">]>` + doc(strings.Repeat(`<g id="&a;"/>`, 60_000)), "entities"},
		{"clipping geometry", doc(`<clipPath id="c"><circle cx="50" cy="50" r="40"/></clipPath><path clip-path="url(#c)" d="M50 0` + strings.Repeat(" l1 1 l-1 0", 150_000) + `"/>`), "geometry"},
		{"crossing star", doc(`<clipPath id="c"><circle cx="50" cy="50" r="40"/></clipPath><path clip-path="url(#c)" d="` + star(2001) + `"/>`), "cross too often"},
		{"stacked zigzag", doc(`<clipPath id="c"><circle cx="50" cy="50" r="40"/></clipPath><path clip-path="url(#c)" d="M0 0` + strings.Repeat(" l100 0.002 l-100 0.002", 20_000) + `"/>`), "cross too often"},
		{"style work", doc(`<style>` + strings.Repeat(`* { fill: red; stroke: blue }`, 2_000) + `</style>` + strings.Repeat(`<rect/>`, 500)), "style sheet"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			took, alloc, err := measure(t, c.svg)
			var e *Error
			if !errors.As(err, &e) || !e.Limit {
				t.Fatalf("Parse: %v, want a limit error", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
			t.Logf("%s: %d bytes refused in %v, %.1f MB allocated: %v", c.name, len(c.svg), took.Round(time.Millisecond), float64(alloc)/1e6, err)
			if alloc > limitAlloc {
				t.Errorf("allocated %.0f MB before refusing", float64(alloc)/1e6)
			}
		})
	}
}

// TestJustUnderTheLimits accepts documents at the limits, so the limits
// refuse hostile files, not big logos.
func TestJustUnderTheLimits(t *testing.T) {
	cases := map[string]string{
		"depth":    doc(strings.Repeat("<g>", MaxDepth-1) + strings.Repeat("</g>", MaxDepth-1)),
		"elements": doc(strings.Repeat(`<rect width="1" height="1"/>`, MaxElements-1)),
		"commands": doc(`<path d="M0 0L` + strings.Repeat("1 1 ", MaxPathCommands-2) + `"/>`),
	}
	for name, svg := range cases {
		t.Run(name, func(t *testing.T) {
			took, alloc, err := measure(t, svg)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d bytes accepted in %v, %.1f MB allocated", name, len(svg), took.Round(time.Millisecond), float64(alloc)/1e6)
		})
	}
}

// star is path data for a star polygon of n points in which every edge
// crosses most others: the worst case for path intersection.
func star(n int) string {
	var b strings.Builder
	b.WriteString("M")
	for i := 0; i < n; i++ {
		a := float64(i) * math.Pi * float64(n/2-1) * 2 / float64(n)
		fmt.Fprintf(&b, " %.4f %.4f", 50+45*math.Cos(a), 50+45*math.Sin(a))
	}
	return b.String() + "Z"
}
