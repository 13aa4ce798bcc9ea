package render

import (
	"fmt"
	"slices"
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

	"github.com/platen-print/platen/internal/sfntcheck"
)

// builtinFonts are the Go fonts every renderer has.
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

// Builtin reports whether name is one of the built-in Go fonts.
func Builtin(name string) bool {
	_, ok := builtinFonts[name]
	return ok
}

// Added is a font one render brings with it (a team's font, sent by the
// caller): the name its layers give, the file, and the file's SHA-256
// (lowercase hex), by which its parsed copies are kept between renders.
type Added struct {
	Name   string
	SHA256 string
	Data   []byte
	// Fallback puts the font in the fallback chain, before the renderer's
	// own: characters a layer's font lacks are drawn with it.
	Fallback bool
}

// Bounds of the parsed added fonts kept between renders: so many distinct
// files, holding so many bytes of font data in all (a parsed font keeps
// its file, and takes about three times its size in all). A render
// process parses a team's font once, not per render, while the teams it
// serves use at most this many; the bytes stay a small part of a render
// process's heap (--render-memory-mb, 384 MiB by default).
const (
	maxAddedFonts     = 16
	maxAddedFontBytes = 16 << 20
)

// Fonts resolves a layer's font name: the built-in Go fonts, plus fonts an
// operator added (TTF or OTF bytes by name: --font-dir), plus those a
// render brings (Added: a team's fonts). Parsed fonts are kept for reuse,
// since parsing one costs more than drawing a page of text; but a
// canvas.Font keeps glyph caches that are not safe for concurrent use, so
// each render borrows its own copies (a fontSet) and returns them when its
// page is written: at most one parsed copy per font and concurrent render.
// Added fonts are kept by their SHA-256, the least recently used dropped
// past maxAddedFonts or maxAddedFontBytes.
type Fonts struct {
	mu    sync.Mutex
	extra map[string][]byte
	free  map[string][]*canvas.Font
	// recent lists the pool keys of added fonts, most recently returned
	// last; sizes holds each one's file size.
	recent []string
	sizes  map[string]int
	// fallbacks is the chain of fonts tried for a character a layer's
	// font lacks (SetFallbacks).
	fallbacks []*fallbackFont
}

// NewFonts returns the built-in fonts plus extra.
func NewFonts(extra map[string][]byte) *Fonts {
	f := &Fonts{extra: extra, free: map[string][]*canvas.Font{}, sizes: map[string]int{}}
	f.SetFallbacks(DefaultFallbackFonts)
	return f
}

// Has reports whether name is a built-in font or one of extra: those win
// over an added font of the same name.
func (f *Fonts) Has(name string) bool {
	if Builtin(name) {
		return true
	}
	_, ok := f.extra[name]
	return ok
}

// Font parses the named font, or says why it cannot: unknown (listing the
// known names) or unreadable. The caller owns the copy it gets.
func (f *Fonts) Font(name string) (*canvas.Font, error) {
	data, ok := builtinFonts[name]
	if !ok {
		if data, ok = f.extra[name]; !ok {
			return nil, f.unknown(name, nil)
		}
	}
	return parseFont(name, data)
}

// parseFont parses a font after bounding what its glyphs may ask of the
// font library: a font stored before uploads were checked, or put in
// --font-dir or the fallback chain, fails the prints that use it with the
// reason rather than outlining without end. Parsing happens once per
// pooled copy, and the check costs milliseconds against its tens.
func parseFont(name string, data []byte) (*canvas.Font, error) {
	// Loading parses the tables without outlining any glyph.
	font, err := canvas.LoadFont(data, 0, canvas.FontRegular)
	if err != nil {
		return nil, fmt.Errorf("font %q cannot be read: %v", name, err)
	}
	if err := sfntcheck.Check(data); err != nil {
		return nil, fmt.Errorf("font %q cannot be used: %v", name, err)
	}
	return font, nil
}

func (f *Fonts) unknown(name string, added map[string]Added) error {
	return fmt.Errorf("unknown font %q (known: %s)", name, strings.Join(f.names(added), ", "))
}

// addedKey is the pool key of an added font: never a font's name.
func addedKey(a Added) string { return "sha256:" + a.SHA256 }

// borrow returns a parsed copy of the font under key no other render is
// using, parsing one with parse when none is free.
func (f *Fonts) borrow(key string, parse func() (*canvas.Font, error)) (*canvas.Font, error) {
	f.mu.Lock()
	if list := f.free[key]; len(list) > 0 {
		font := list[len(list)-1]
		f.free[key] = list[:len(list)-1]
		f.mu.Unlock()
		return font, nil
	}
	f.mu.Unlock()
	return parse()
}

func (f *Fonts) giveBack(key string, font *canvas.Font, added *Added) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.free[key] = append(f.free[key], font)
	if added == nil {
		return
	}
	f.recent = slices.DeleteFunc(f.recent, func(k string) bool { return k == key })
	f.recent = append(f.recent, key)
	f.sizes[key] = len(added.Data)
	total := 0
	for _, k := range f.recent {
		total += f.sizes[k]
	}
	for len(f.recent) > 1 && (len(f.recent) > maxAddedFonts || total > maxAddedFontBytes) {
		old := f.recent[0]
		f.recent = f.recent[1:]
		total -= f.sizes[old]
		delete(f.free, old)
		delete(f.sizes, old)
	}
}

// fontSet is one render's fonts: borrowed on first use, returned by
// release once the render's output is complete.
type fontSet struct {
	fonts *Fonts
	added map[string]Added
	// addedOrder is added's names in the request's order, which the
	// team's fallback fonts are tried in.
	addedOrder []string
	used       map[string]*canvas.Font
	fallbacks  []namedFont // the chain, once looked up
}

func (f *Fonts) set(added map[string]Added, order []string) *fontSet {
	return &fontSet{fonts: f, added: added, addedOrder: order, used: map[string]*canvas.Font{}}
}

func (s *fontSet) font(name string) (*canvas.Font, error) {
	if font, ok := s.used[name]; ok {
		return font, nil
	}
	var (
		font *canvas.Font
		err  error
	)
	if s.fonts.Has(name) {
		font, err = s.fonts.borrow(name, func() (*canvas.Font, error) { return s.fonts.Font(name) })
	} else if a, ok := s.added[name]; ok {
		font, err = s.fonts.borrow(addedKey(a), func() (*canvas.Font, error) { return parseFont(name, a.Data) })
	} else {
		err = s.fonts.unknown(name, s.added)
	}
	if err != nil {
		return nil, err
	}
	s.used[name] = font
	return font, nil
}

func (s *fontSet) release() {
	for name, font := range s.used {
		if strings.HasPrefix(name, "fallback:") {
			s.fonts.giveBack(name, font, nil)
		} else if s.fonts.Has(name) {
			s.fonts.giveBack(name, font, nil)
		} else {
			a := s.added[name]
			s.fonts.giveBack(addedKey(a), font, &a)
		}
	}
	s.used = nil
}

// names are the fonts a render may name, sorted.
func (f *Fonts) names(added map[string]Added) []string {
	names := make([]string, 0, len(builtinFonts)+len(f.extra)+len(added))
	for n := range builtinFonts {
		names = append(names, n)
	}
	for n := range f.extra {
		names = append(names, n)
	}
	for n := range added {
		if !f.Has(n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}
