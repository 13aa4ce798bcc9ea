package fetch

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
)

// shown is src as an error names it: a data: URI cut short, since it can
// be megabytes, and a URL without its password.
func shown(src string) string {
	if schemeOf(src) == "data" {
		return clip(src, 40)
	}
	if u, err := url.Parse(src); err == nil && u.User != nil {
		return clip(u.Redacted(), 300)
	}
	return clip(src, 300)
}

// clip cuts s to at most n runes, marking the cut.
func clip(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
}

// formatBytes writes a size as a shop reads it: binary megabytes, rounded
// up so that a size just over a limit never reads as the limit itself.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return tenths(float64(n)/(1<<20)) + " MB"
	case n >= 1<<10:
		return tenths(float64(n)/(1<<10)) + " KB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

func tenths(x float64) string {
	s := strconv.FormatFloat(math.Ceil(x*10)/10, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0")
}

// formatPixels names a pixel limit: "100-megapixel", or "10000-pixel" for
// the small limits of tests.
func formatPixels(n int64) string {
	if n%1_000_000 == 0 {
		return fmt.Sprintf("%d-megapixel", n/1_000_000)
	}
	return fmt.Sprintf("%d-pixel", n)
}
