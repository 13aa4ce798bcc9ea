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
// operator added (TTF or OTF bytes by name). Parsed fonts are kept, since
// parsing one costs more than drawing a page of text.
type Fonts struct {
	mu     sync.Mutex
	extra  map[string][]byte
	loaded map[string]*canvas.Font
}

// NewFonts returns the built-in fonts plus extra.
func NewFonts(extra map[string][]byte) *Fonts {
	return &Fonts{extra: extra, loaded: map[string]*canvas.Font{}}
}

// Font returns the named font, or an error listing the known names.
func (f *Fonts) Font(name string) (*canvas.Font, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if font, ok := f.loaded[name]; ok {
		return font, nil
	}
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
	f.loaded[name] = font
	return font, nil
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
