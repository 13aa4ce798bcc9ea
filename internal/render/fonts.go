package render

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/tdewolff/canvas"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gobolditalic"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/gomedium"
	"golang.org/x/image/font/gofont/gomediumitalic"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/gomonobolditalic"
	"golang.org/x/image/font/gofont/gomonoitalic"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/gofont/gosmallcaps"
	"golang.org/x/image/font/gofont/gosmallcapsitalic"
)

// builtinFonts are the Go fonts every renderer has (contract §7).
var builtinFonts = map[string][]byte{
	"Go-Regular":          goregular.TTF,
	"Go-Bold":             gobold.TTF,
	"Go-Italic":           goitalic.TTF,
	"Go-BoldItalic":       gobolditalic.TTF,
	"Go-Medium":           gomedium.TTF,
	"Go-MediumItalic":     gomediumitalic.TTF,
	"Go-Mono":             gomono.TTF,
	"Go-Mono-Bold":        gomonobold.TTF,
	"Go-Mono-Italic":      gomonoitalic.TTF,
	"Go-Mono-BoldItalic":  gomonobolditalic.TTF,
	"Go-Smallcaps":        gosmallcaps.TTF,
	"Go-Smallcaps-Italic": gosmallcapsitalic.TTF,
}

// Fonts resolves a layer's font name: the built-in Go fonts, plus fonts an
// operator added (TTF or OTF bytes by name). Parsed fonts are kept for
// reuse, since parsing one costs more than drawing a page of text; but a
// canvas.Font keeps glyph caches that are not safe for concurrent use, so
// each render borrows its own copies (a fontSet) and returns them when its
// page is written: at most one parsed copy per font and concurrent render.
type Fonts struct {
	mu    sync.Mutex
	extra map[string][]byte
	free  map[string][]*canvas.Font
}

// NewFonts returns the built-in fonts plus extra.
func NewFonts(extra map[string][]byte) *Fonts {
	return &Fonts{extra: extra, free: map[string][]*canvas.Font{}}
}

// Font parses the named font, or says why it cannot: unknown (listing the
// known names) or unreadable. The caller owns the copy it gets.
func (f *Fonts) Font(name string) (*canvas.Font, error) {
	data, ok := builtinFonts[name]
	if !ok {
		if data, ok = f.extra[name]; !ok {
			return nil, fmt.Errorf("unknown font %q (known: %s)", name, strings.Join(f.names(), ", "))
		}
	}
	font, err := canvas.LoadFont(data, 0, canvas.FontRegular)
	if err != nil {
		return nil, fmt.Errorf("font %q cannot be read: %v", name, err)
	}
	return font, nil
}

// borrow returns a parsed copy of the named font no other render is using.
func (f *Fonts) borrow(name string) (*canvas.Font, error) {
	f.mu.Lock()
	if list := f.free[name]; len(list) > 0 {
		font := list[len(list)-1]
		f.free[name] = list[:len(list)-1]
		f.mu.Unlock()
		return font, nil
	}
	f.mu.Unlock()
	return f.Font(name)
}

func (f *Fonts) giveBack(name string, font *canvas.Font) {
	f.mu.Lock()
	f.free[name] = append(f.free[name], font)
	f.mu.Unlock()
}

// fontSet is one render's fonts: borrowed on first use, returned by
// release once the render's output is complete.
type fontSet struct {
	fonts *Fonts
	used  map[string]*canvas.Font
}

func (f *Fonts) set() *fontSet { return &fontSet{fonts: f, used: map[string]*canvas.Font{}} }

func (s *fontSet) font(name string) (*canvas.Font, error) {
	if font, ok := s.used[name]; ok {
		return font, nil
	}
	font, err := s.fonts.borrow(name)
	if err != nil {
		return nil, err
	}
	s.used[name] = font
	return font, nil
}

func (s *fontSet) release() {
	for name, font := range s.used {
		s.fonts.giveBack(name, font)
	}
	s.used = nil
}

func (f *Fonts) names() []string {
	names := make([]string, 0, len(builtinFonts)+len(f.extra))
	for n := range builtinFonts {
		names = append(names, n)
	}
	for n := range f.extra {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
