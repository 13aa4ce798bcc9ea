package renderproc

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/render"
	"github.com/platen-print/platen/third_party/canvaspdf"
)

// maxIntents bounds the prepared output intents a Server keeps: preparing
// one deflates its profile (some milliseconds for a press profile), which a
// process does once per condition rather than per file. A press runs a
// handful of conditions.
const maxIntents = 16

// intents keeps prepared output intents by what the request says of them.
type intents struct {
	mu sync.Mutex
	m  map[string]*canvaspdf.OutputIntent
}

// get prepares the intent a request brings (nil: FOGRA39), or takes the
// one prepared for the same profile and names before.
func (c *intents) get(in *renderv1.OutputIntent) (*canvaspdf.OutputIntent, error) {
	if in == nil {
		return nil, nil
	}
	sum := sha256.Sum256(in.GetProfile())
	digest := hex.EncodeToString(sum[:])
	if given := in.GetSha256(); given != "" && given != digest {
		return nil, invalid("settings.output_intent.sha256: is not the SHA-256 of its profile")
	}
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%s", digest, in.GetIdentifier(), in.GetCondition(), in.GetRegistryName(), in.GetInfo())
	c.mu.Lock()
	o, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return o, nil
	}
	o, err := canvaspdf.NewOutputIntent(canvaspdf.OutputCondition{
		Profile: in.GetProfile(), Identifier: in.GetIdentifier(), Condition: in.GetCondition(),
		RegistryName: in.GetRegistryName(), Info: in.GetInfo(),
	})
	if err != nil {
		return nil, invalid("settings.output_intent: " + err.Error())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxIntents {
		c.m = map[string]*canvaspdf.OutputIntent{} // start over: a miss costs one deflate
	}
	c.m[key] = o
	return o, nil
}

// press is the press part of a request's settings: the PDF settings
// (output intent, cut contour spot, missing glyphs allowed) and the
// preflight limits.
func (s *Server) press(p *renderv1.PrintSettings) (render.Settings, render.Limits, error) {
	intent, err := s.intents.get(p.GetOutputIntent())
	if err != nil {
		return render.Settings{}, render.Limits{}, err
	}
	switch ppi, margin := p.GetMinEffectivePpi(), p.GetSafeMarginMm(); {
	case ppi > maxPPI:
		return render.Settings{}, render.Limits{}, invalid(fmt.Sprintf("settings.min_effective_ppi: must be at most %d", maxPPI))
	case !(margin >= 0 && margin <= maxSafeMargin): // NaN too
		return render.Settings{}, render.Limits{}, invalid(fmt.Sprintf("settings.safe_margin_mm: must be from 0 to %d", maxSafeMargin))
	}
	return render.Settings{OutputIntent: intent, CutSpot: p.GetCutContourSpot(), AllowMissingGlyphs: p.GetAllowMissingGlyphs()},
		render.Limits{MinEffectivePPI: int(p.GetMinEffectivePpi()), SafeMarginMM: p.GetSafeMarginMm()}, nil
}

// Bounds of the limits a request may set.
const (
	maxPPI        = 10_000
	maxSafeMargin = 100
)
