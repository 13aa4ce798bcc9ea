// Package fieldmask reads which fields an update replaces, one rule for
// every update RPC: the update_mask's paths (over REST the gateway fills it
// with the body's top-level keys, so a key present with null or [] counts),
// or over gRPC without a mask, every field that is set.
package fieldmask

import (
	"slices"

	"google.golang.org/protobuf/types/known/fieldmaskpb"

	"github.com/platen-print/platen/internal/apierr"
)

// Fields returns the fields an update replaces, in the order of allowed
// when there is no mask. set says which fields a mask-less gRPC request
// set. ignored are the request's own fields (the path's id), which a REST
// body may repeat; any other path outside allowed is a 400.
func Fields(mask *fieldmaskpb.FieldMask, allowed []string, set map[string]bool, ignored ...string) ([]string, error) {
	var fields []string
	if paths := mask.GetPaths(); len(paths) > 0 {
		for _, p := range paths {
			switch {
			case slices.Contains(allowed, p):
				fields = append(fields, p)
			case slices.Contains(ignored, p) || p == "update_mask":
			default:
				return nil, apierr.Invalid("update_mask", "%q cannot be updated; updatable fields are %v", p, allowed)
			}
		}
		return fields, nil
	}
	for _, f := range allowed {
		if set[f] {
			fields = append(fields, f)
		}
	}
	return fields, nil
}
