package bench

import (
	"context"
	"encoding/json"
	"strings"
)

// designVersionBodies are two 8 MB design-version bodies whose
// template_config holds 4,000,000 zeros: in one array (over the
// 10,000-element limit), and in arrays of 9,999 (over the 250,000-value
// total only). Decoded, one took the server from 55 to 378 MB.
func designVersionBodies() [][]byte {
	const zeros = 4_000_000
	one := `{"width":50,"height":50,"layers":[],"meta":{"a":[` + strings.TrimSuffix(strings.Repeat("0,", zeros), ",") + `]}}`
	chunk := "[" + strings.TrimSuffix(strings.Repeat("0,", 9_999), ",") + "]"
	spread := `{"width":50,"height":50,"layers":[],"meta":{"a":[` + strings.TrimSuffix(strings.Repeat(chunk+",", zeros/10_000), ",") + `]}}`
	var bodies [][]byte
	for _, doc := range []string{one, spread} {
		body, _ := json.Marshal(map[string]any{"template_config": doc, "thumbnails": []string{}})
		bodies = append(bodies, body)
	}
	return bodies
}

// attackDesignVersionBody sends the two bodies in turn from 10 senders
// with the attacker's token.
func attackDesignVersionBody(ctx context.Context, h *hostileRun, answers *statusCounts) error {
	bodies := designVersionBodies()
	return senders(ctx, 10, func(i int) error {
		return h.send(ctx, "/api/v1/design-versions", h.e.token, bodies[i%len(bodies)], answers)
	})
}
