package files

import platenv1 "github.com/platen-print/platen/gen/platen/v1"

// Warning is a preflight finding on the design a print's files were made
// from, kept with them: a code, the layer, and a message.
type Warning struct {
	Code    string `json:"code"`
	Layer   string `json:"layer"`
	Message string `json:"message"`
}

// WarningsProto is what the API answers of a print's warnings: none unless
// the print is ready (a print rendering again keeps its last warnings
// until it is).
func WarningsProto(ready bool, warnings []Warning) []*platenv1.PrintWarning {
	out := []*platenv1.PrintWarning{}
	if !ready {
		return out
	}
	for _, w := range warnings {
		out = append(out, &platenv1.PrintWarning{Code: w.Code, Layer: w.Layer, Message: w.Message})
	}
	return out
}
