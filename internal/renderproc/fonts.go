package renderproc

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/render"
)

// LoadFonts returns the built-in fonts plus every TTF and OTF file in dir
// (--font-dir), each named by its file name without the extension; an
// empty dir means the built-in fonts only. Each font is parsed here, so
// that a broken file stops the process at start rather than failing the
// prints that name it as if their documents were at fault. fallbacks
// (--fallback-fonts) replaces the renderer's fallback chain unless nil.
func LoadFonts(dir string, fallbacks []string) (*render.Fonts, error) {
	fonts, err := loadFontDir(dir)
	if err != nil {
		return nil, err
	}
	if fallbacks != nil {
		fonts.SetFallbacks(fallbacks)
	}
	return fonts, nil
}

// MissingFallbacks lists the files of the fallback chain that cannot be
// read, for a warning at start: characters only they have fail their
// prints.
func MissingFallbacks(fallbacks []string) []string {
	if fallbacks == nil {
		fallbacks = render.DefaultFallbackFonts
	}
	return new(render.Fonts).SetFallbacks(fallbacks) // only the files are looked at
}

func loadFontDir(dir string) (*render.Fonts, error) {
	if dir == "" {
		return render.NewFonts(nil), nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	extra := map[string][]byte{}
	files := map[string]string{} // font name → file name, for errors
	var names []string           // in file-name order, so that errors are too
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || (ext != ".ttf" && ext != ".otf") {
			continue
		}
		name := strings.TrimSuffix(e.Name(), filepath.Ext(e.Name()))
		if other, ok := files[name]; ok {
			return nil, fmt.Errorf("%s and %s both name the font %q", other, e.Name(), name)
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		extra[name], files[name] = data, e.Name()
		names = append(names, name)
	}
	fonts := render.NewFonts(extra)
	builtin := render.NewFonts(nil)
	for _, name := range names {
		// A built-in font wins over an added one of the same name.
		if _, err := builtin.Font(name); err == nil {
			return nil, fmt.Errorf("%s: %q is a built-in font; give the file another name", files[name], name)
		}
		// Parsed now, so that an unreadable file stops the start, not a render.
		if _, err := fonts.Font(name); err != nil {
			return nil, fmt.Errorf("%s: %w", files[name], err)
		}
	}
	return fonts, nil
}

// addedFonts checks the fonts a request brings: each named once, with its
// bytes, and the SHA-256 it gives (when it gives one) being the bytes'
// own, since parsed copies are kept by it for the next renders, which may
// be another team's.
func addedFonts(list []*renderv1.FontData) ([]render.Added, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := make([]render.Added, 0, len(list))
	seen := map[string]bool{}
	for i, f := range list {
		switch {
		case f.GetName() == "":
			return nil, invalid(fmt.Sprintf("fonts[%d].name: is required", i))
		case seen[f.GetName()]:
			return nil, invalid(fmt.Sprintf("fonts[%d].name: %q is named twice", i, f.GetName()))
		case len(f.GetData()) == 0:
			return nil, invalid(fmt.Sprintf("fonts[%d].data: is required", i))
		}
		seen[f.GetName()] = true
		sum := sha256.Sum256(f.GetData())
		digest := hex.EncodeToString(sum[:])
		if given := f.GetSha256(); given != "" && given != digest {
			return nil, invalid(fmt.Sprintf("fonts[%d].sha256: is not the SHA-256 of its data", i))
		}
		out = append(out, render.Added{Name: f.GetName(), SHA256: digest, Data: f.GetData(), Fallback: f.GetFallback()})
	}
	return out, nil
}
