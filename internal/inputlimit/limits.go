// Package inputlimit bounds what a request can make the server allocate
// before it is decoded: how deep it nests, how many elements one list (or
// members one object) holds, and how many values it holds in all. JSON
// bodies are checked as they are read (Scanner), protobuf messages before
// they are unmarshalled (CheckWire), both without building anything, so
// that a small request cannot cost a large decode: an 8 MiB body of empty
// objects decodes to about a gigabyte.
//
// The limits are far above every payload the API accepts (an order holds
// at most 1,000 items of at most 50 thumbnails, a shop order 500 lines, a
// variant 1,000 ecommerce_variant_ids), so they never refuse a request the
// validators would take; the validators then apply the API's own maxima.
package inputlimit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/platen-print/platen/internal/apierr"
)

const (
	// MaxDepth is how deeply objects and arrays (messages, in protobuf)
	// may nest; the request itself is depth 1.
	MaxDepth = 32
	// MaxElements is how many elements one array (one repeated field or
	// map, in protobuf) or members one object may hold.
	MaxElements = 10_000
	// MaxValues is how many values a request may hold in all, counting
	// every element and member at every depth.
	MaxValues = 250_000
	// MaxDocumentValues is how many values the documents embedded in one
	// request's strings (its template_configs) may hold together, each
	// within MaxValues: an order of 1,000 items of 8 KB designs holds
	// about 500,000. They are decoded one after another, so that memory
	// is bounded by one document's; this bounds the time.
	MaxDocumentValues = 1_000_000
)

// Descriptions of the three violations, as clients read them.
var (
	tooDeep      = fmt.Sprintf("nests more than %d levels deep", MaxDepth)
	tooMany      = fmt.Sprintf("holds more than %s elements", thousands(MaxElements))
	tooManyInAll = fmt.Sprintf("the request holds more than %s values in all", thousands(MaxValues))
	malformed    = "is not well-formed protobuf"
	notUTF8      = "must be UTF-8 text"
)

// violation is the 400 of a limit passed at path (empty: the whole request).
func violation(path, description string) error {
	return &apierr.ValidationError{Violations: []apierr.Violation{{Field: path, Description: description}}}
}

// tooManyAt is the 400 of a list or object at path with too many elements.
func tooManyAt(path string) error {
	if path == "" {
		return violation("", "the request "+tooMany)
	}
	return violation(path, tooMany)
}

// thousands writes n with commas, as the API's messages write limits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
