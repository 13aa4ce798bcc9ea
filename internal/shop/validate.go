package shop

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	platenv1 "github.com/platen-print/platen/gen/platen/v1"
	"github.com/platen-print/platen/internal/apierr"
)

// newOrder checks a create request and returns the order it
// asks for, every problem named by its JSON path.
func newOrder(req *platenv1.CreateShopOrderRequest) (*Order, error) {
	var vs apierr.Violations
	checkID(&vs, "external_id", req.ExternalId, true)
	switch n := len(req.Lines); {
	case n == 0:
		vs.Add("lines", "is required: give 1 to %d lines", MaxLines)
	case n > MaxLines:
		vs.Add("lines", "has %d lines; at most %d are allowed", n, MaxLines)
	}
	o := &Order{ExternalID: req.ExternalId}
	if len(req.Lines) > MaxLines {
		return nil, vs.Err()
	}
	seen := map[string]int{}
	for i, in := range req.Lines {
		path := fmt.Sprintf("lines[%d]", i)
		l := Line{ExternalID: in.ExternalId, DesignVersionID: in.DesignVersionId}
		if l.ExternalID == "" {
			l.ExternalID = strconv.Itoa(i + 1)
		} else {
			checkID(&vs, path+".external_id", l.ExternalID, false)
		}
		if first, dup := seen[l.ExternalID]; dup {
			vs.Add(path+".external_id", "%q is also the id of lines[%d]; line ids are unique within an order", l.ExternalID, first)
		} else {
			seen[l.ExternalID] = i
		}
		checkID(&vs, path+".design_version_id", l.DesignVersionID, true)
		switch {
		case in.Quantity == nil:
			vs.Add(path+".quantity", "is required: give 1 to %d", MaxQuantity)
		case *in.Quantity < 1 || *in.Quantity > MaxQuantity:
			vs.Add(path+".quantity", "must be 1 to %d, got %d", MaxQuantity, *in.Quantity)
		default:
			l.Quantity = int(*in.Quantity)
		}
		o.Lines = append(o.Lines, l)
	}
	if err := vs.Err(); err != nil {
		return nil, err
	}
	o.LinesHash = hashLines(o.Lines)
	return o, nil
}

// checkID checks a client id: printable, at most maxIDLen characters, and
// present when required.
func checkID(vs *apierr.Violations, field, id string, required bool) {
	switch {
	case id == "" && required:
		vs.Add(field, "is required")
	case utf8.RuneCountInString(id) > maxIDLen:
		vs.Add(field, "is %d characters long; at most %d are allowed", utf8.RuneCountInString(id), maxIDLen)
	case strings.TrimSpace(id) != id || strings.ContainsFunc(id, unicode.IsControl):
		vs.Add(field, "must not hold control characters or start or end with spaces")
	}
}
