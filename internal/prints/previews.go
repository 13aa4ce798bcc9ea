package prints

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/design"
	"github.com/platen-print/platen/internal/files"
	"github.com/platen-print/platen/internal/fonts"
)

// previewDPI makes a preview small: an A6 card is 150 × 210 pixels.
const previewDPI = 36

// previewTTL is how long a preview's signed file URL lives.
const previewTTL = 15 * time.Minute

// DesignSource finds the design document of a print.
type DesignSource interface {
	// PrintDesign returns a key that changes whenever the print's design
	// does (the hash the database keeps of it), and a function that reads
	// the design (template_config as stored: URL-encoded or not), so that
	// a preview already made costs no read of the design; and the print's
	// team, whose fonts the design may name.
	PrintDesign(ctx context.Context, id string) (key string, teamID int, load func(context.Context) (string, error), err error)
}

// Previews makes a small PNG of a print's first page with the render
// service, once per design: it is kept in the file store under the
// design's hash, so a changed design gets a new one.
type Previews struct {
	Designs DesignSource
	Render  renderv1.RenderServiceClient
	Files   *files.Store
	// Fonts finds the team's fonts a design names; nil for none.
	Fonts *fonts.Resolver
}

// URL returns a short-lived URL of the preview of print id, rendering it
// first when it does not exist.
func (p *Previews) URL(ctx context.Context, id string) (string, error) {
	design, team, load, err := p.Designs.PrintDesign(ctx, id)
	if err != nil {
		return "", err
	}
	// A fixed-length name, whatever the key's form; the team's, since the
	// same design may name another team's font of the same name.
	sum := sha256.Sum256(fmt.Appendf(nil, "%d:%s", team, design))
	key := "previews/" + hex.EncodeToString(sum[:16]) + ".png"
	exists, err := p.Files.Exists(ctx, key)
	if err != nil {
		return "", err
	}
	if !exists {
		config, err := load(ctx)
		if err != nil {
			return "", err
		}
		if err := p.make(ctx, team, config, key); err != nil {
			return "", err
		}
	}
	return p.Files.SignedURL(ctx, key, "preview.png", previewTTL)
}

func (p *Previews) make(ctx context.Context, team int, config, key string) error {
	doc, err := design.Decode(config)
	if err != nil {
		return fmt.Errorf("preview: %w", err)
	}
	fonts, err := p.Fonts.Fonts(ctx, team, doc)
	if err != nil {
		return fmt.Errorf("preview: fonts: %w", err)
	}
	resp, err := p.Render.Render(ctx, &renderv1.RenderRequest{
		Document: doc, PreviewDpi: previewDPI, Fonts: fonts,
		Formats: []renderv1.Format{renderv1.Format_FORMAT_PNG}, SurfaceIndexes: []int32{0},
	})
	if err != nil {
		return err
	}
	if len(resp.GetFiles()) != 1 {
		return fmt.Errorf("preview: the renderer answered %d files", len(resp.GetFiles()))
	}
	_, err = p.Files.Put(ctx, key, bytes.NewReader(resp.GetFiles()[0].GetData()), "image/png")
	return err
}
