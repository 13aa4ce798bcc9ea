package bench

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"

	"golang.org/x/image/font/gofont/goregular"

	"github.com/platen-print/platen/internal/sfntcheck/sfnttest"
)

// fontBomb is the font: Go Regular whose "A" nests 4 composite
// references 8 levels deep over a glyph of 5,000 points (327 million
// points outlined; serve went past 3.8 GB on its first upload).
var fontBomb = sfnttest.Bomb{Rune: 'A', Depth: 8, Fanout: 4, Points: 5000}

// attackFontBomb has an operator of the attacking team upload the font
// bomb from 2 senders until the attack ends.
func attackFontBomb(ctx context.Context, h *hostileRun, answers *statusCounts) error {
	data, _, err := fontBomb.Build(goregular.TTF)
	if err != nil {
		return err
	}
	op, err := h.e.createOperator(ctx, platenBinary(h.e), "--email", "attacker@example.com", "--team", fmt.Sprint(h.e.teamID))
	if err != nil {
		return err
	}
	return senders(ctx, 2, func(i int) error {
		body, err := json.Marshal(map[string]any{"name": fmt.Sprintf("Bomb %d", i), "data": base64.StdEncoding.EncodeToString(data)})
		if err != nil {
			return err
		}
		return h.send(ctx, "/api/v1/operator/fonts", op.Token, body, answers)
	})
}

// platenBinary is the platen the env runs, pinned to CPUs or not.
func platenBinary(e *env) string {
	if filepath.Base(e.cmd.Path) == "taskset" && len(e.cmd.Args) > 3 {
		return e.cmd.Args[3]
	}
	return e.cmd.Path
}
