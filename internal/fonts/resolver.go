package fonts

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sync"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/designdoc"
	"github.com/platen-print/platen/internal/render"
)

// cacheBytes bounds the font files a Resolver keeps in memory, by hash:
// a file never changes under its hash, so a kept one is never stale.
const cacheBytes = 64 << 20

// Resolver finds the team fonts a render request must carry: those its
// designs name that are neither built in nor --font-dir fonts, looked up
// among the print's team's fonts only, so that no team's design ever uses
// another team's font.
type Resolver struct {
	store  Store
	shared func(string) bool

	mu     sync.Mutex
	cache  map[string][]byte
	recent []string // hashes, most recently used last
	size   int
}

// NewResolver returns a resolver on store; shared reports the --font-dir
// fonts' names (nil: none).
func NewResolver(store Store, shared func(string) bool) *Resolver {
	if shared == nil {
		shared = func(string) bool { return false }
	}
	return &Resolver{store: store, shared: shared, cache: map[string][]byte{}}
}

// Fonts returns the fonts of teamID that docs (design documents, JSON)
// name, and, when they have text, the team's fallback fonts, in the order
// the team added them. A document that does not parse names none: the
// renderer says what is wrong with it. A name the team has no font of is
// left out: the renderer fails the layer naming it, as for any unknown
// font.
func (r *Resolver) Fonts(ctx context.Context, teamID int, docs ...[]byte) ([]*renderv1.FontData, error) {
	if r == nil {
		return nil, nil
	}
	var names []string
	text := false
	for _, doc := range docs {
		text = text || hasText(doc)
		if !namesFonts(doc) {
			continue
		}
		d, err := designdoc.Parse(doc)
		if err != nil {
			continue
		}
		for _, font := range d.Fonts() {
			if !render.Builtin(font) && !r.shared(font) && !slices.Contains(names, font) {
				names = append(names, font)
			}
		}
	}
	if len(names) == 0 && !text {
		return nil, nil
	}
	refs, err := r.store.TeamFonts(ctx, teamID, names)
	if err != nil {
		return nil, err
	}
	out := make([]*renderv1.FontData, 0, len(refs))
	for _, ref := range refs {
		data, err := r.data(ctx, ref)
		if errors.Is(err, apierr.ErrNotFound) {
			continue // deleted meanwhile: as unknown
		}
		if err != nil {
			return nil, err
		}
		out = append(out, &renderv1.FontData{Name: ref.Name, Data: data, Sha256: ref.SHA256, Fallback: ref.Fallback})
	}
	return out, nil
}

// namesFonts reports whether doc may name a font: only then is it parsed
// here (it is parsed again where it renders, and a document may carry
// megabytes of data: URIs). A key "font" is in its text, or written with
// a \u escape.
func namesFonts(doc []byte) bool {
	return bytes.Contains(doc, []byte(`"font"`)) || bytes.Contains(doc, []byte(`\u`))
}

// hasText reports whether doc may hold text, for which the team's
// fallback fonts are sent: a text layer's type, or a \u escape.
func hasText(doc []byte) bool {
	return bytes.Contains(doc, []byte(`"text"`)) || bytes.Contains(doc, []byte(`\u`))
}

// data is the file of ref, from the cache or the store.
func (r *Resolver) data(ctx context.Context, ref Ref) ([]byte, error) {
	r.mu.Lock()
	data, ok := r.cache[ref.SHA256]
	if ok {
		r.touch(ref.SHA256)
	}
	r.mu.Unlock()
	if ok {
		return data, nil
	}
	data, err := r.store.Data(ctx, ref.UID, ref.SHA256)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.cache[ref.SHA256]; !ok && len(data) <= cacheBytes {
		r.cache[ref.SHA256] = data
		r.size += len(data)
		r.touch(ref.SHA256)
		for r.size > cacheBytes {
			old := r.recent[0]
			r.recent = r.recent[1:]
			r.size -= len(r.cache[old])
			delete(r.cache, old)
		}
	}
	return data, nil
}

// touch marks sum the most recently used; r.mu is held.
func (r *Resolver) touch(sum string) {
	r.recent = slices.DeleteFunc(r.recent, func(s string) bool { return s == sum })
	r.recent = append(r.recent, sum)
}
