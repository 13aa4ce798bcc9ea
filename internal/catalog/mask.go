package catalog

import (
	"slices"

	"google.golang.org/protobuf/types/known/fieldmaskpb"

	"github.com/platen-print/platen/internal/apierr"
)

// updateFields returns the fields an update replaces: the mask's paths
// (over REST, the body's top-level keys), or over gRPC without a mask every
// field set says is set. ignored are the request's own fields (the path's
// id, the mask), which a REST body may repeat.
func updateFields(mask *fieldmaskpb.FieldMask, allowed []string, set map[string]bool, ignored ...string) ([]string, error) {
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
