package render

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tdewolff/canvas"
)

// DefaultFallbackFonts is the fallback chain a renderer uses unless told
// otherwise (--fallback-fonts): files of Debian's font packages, looked for
// at run time rather than built into the binary (together about 15 MB). A
// character the design's font lacks is drawn with the first of them that
// has it: Noto Sans for Latin, Greek and Cyrillic beyond the Go fonts;
// Droid Sans Fallback for Chinese and Japanese; Nanum Gothic for Korean;
// Symbola for emoji and symbols, as monochrome outlines in the text's
// colour (colour emoji fonts hold bitmaps, which a print file's text
// cannot carry). Each is TrueType, which PDFs embed as subsets; Noto's own
// CJK fonts are CFF collections, which the PDF writer cannot subset.
var DefaultFallbackFonts = []string{
	"/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",        // fonts-noto-core (OFL)
	"/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",  // fonts-droid-fallback (Apache 2.0)
	"/usr/share/fonts/truetype/nanum/NanumGothic.ttf",            // fonts-nanum (OFL)
	"/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf", // fonts-symbola (free for any use)
}

// fallbackFont is one font of the chain: its file, read and parsed when a
// render first needs a character of it.
type fallbackFont struct {
	name string // the file's name without its extension
	path string
	once sync.Once
	data []byte
	err  error
}

func (f *fallbackFont) read() ([]byte, error) {
	f.once.Do(func() { f.data, f.err = os.ReadFile(f.path) })
	return f.data, f.err
}

// SetFallbacks replaces the fallback chain with the font files paths, in
// order; missing lists those that cannot be read (they are left out, and
// a character only they have fails its print with a reason naming it).
func (f *Fonts) SetFallbacks(paths []string) (missing []string) {
	f.fallbacks = nil
	for _, p := range paths {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p)
			continue
		}
		name := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
		f.fallbacks = append(f.fallbacks, &fallbackFont{name: name, path: p})
	}
	return missing
}

// FallbackNames are the chain's fonts, in order.
func (f *Fonts) FallbackNames() []string {
	names := make([]string, len(f.fallbacks))
	for i, fb := range f.fallbacks {
		names[i] = fb.name
	}
	return names
}

// chain is the render's fallback fonts, in the order they are tried: the
// team's fonts marked as fallbacks (in the order the request gives them),
// then the renderer's own chain. A font that cannot be read is left out.
func (s *fontSet) chain() ([]namedFont, error) {
	if s.fallbacks != nil {
		return s.fallbacks, nil
	}
	s.fallbacks = []namedFont{}
	for _, a := range s.addedOrder {
		if !s.added[a].Fallback {
			continue
		}
		font, err := s.font(a)
		if err != nil {
			return nil, err
		}
		s.fallbacks = append(s.fallbacks, namedFont{name: a, font: font})
	}
	for _, fb := range s.fonts.fallbacks {
		font, err := s.fallback(fb)
		if err != nil {
			continue
		}
		s.fallbacks = append(s.fallbacks, namedFont{name: fb.name, font: font})
	}
	return s.fallbacks, nil
}

// namedFont is a parsed font and the name reasons give it.
type namedFont struct {
	name string
	font *canvas.Font
}

// fallback borrows a parsed copy of a chain font.
func (s *fontSet) fallback(fb *fallbackFont) (*canvas.Font, error) {
	key := "fallback:" + fb.path
	if font, ok := s.used[key]; ok {
		return font, nil
	}
	font, err := s.fonts.borrow(key, func() (*canvas.Font, error) {
		data, err := fb.read()
		if err != nil {
			return nil, fmt.Errorf("fallback font %s: %v", fb.path, err)
		}
		return parseFont(fb.name, data)
	})
	if err != nil {
		return nil, err
	}
	s.used[key] = font
	return font, nil
}
