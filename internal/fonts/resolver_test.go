package fonts

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// fakeStore holds fonts by team and name, and counts the files read.
type fakeStore struct {
	Store
	fonts map[int]map[string]Ref
	data  map[string][]byte // by uid
	asked [][]string
	reads int
}

func (s *fakeStore) TeamFonts(_ context.Context, teamID int, names []string) ([]Ref, error) {
	s.asked = append(s.asked, names)
	var out []Ref
	for n, r := range s.fonts[teamID] {
		if slices.Contains(names, n) || r.Fallback {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b Ref) int { return strings.Compare(a.UID, b.UID) })
	return out, nil
}

func (s *fakeStore) Data(_ context.Context, uid, _ string) ([]byte, error) {
	s.reads++
	if d, ok := s.data[uid]; ok {
		return d, nil
	}
	return nil, NotFound(uid)
}

// TestResolver: a render carries the fonts of the print's team that its
// documents name, and no other; built-in and --font-dir names are not
// looked up; a file is read from the store once; a font deleted between
// the lookup and the read is left out.
func TestResolver(t *testing.T) {
	store := &fakeStore{
		fonts: map[int]map[string]Ref{
			1: {"Brand Sans": {Name: "Brand Sans", UID: "a", SHA256: "sa"}, "Gone": {Name: "Gone", UID: "gone", SHA256: "sg"}},
			2: {"Brand Sans": {Name: "Brand Sans", UID: "b", SHA256: "sb"}, "Theirs": {Name: "Theirs", UID: "t", SHA256: "st"}},
		},
		data: map[string][]byte{"a": []byte("font a"), "b": []byte("font b"), "t": []byte("font t")},
	}
	r := NewResolver(store, func(name string) bool { return name == "House-Sans" })
	ctx := context.Background()
	doc := []byte(`{"width":10,"height":10,"layers":[
	  {"type":"text","text":"a","font":"Brand Sans","size":5},
	  {"type":"text","text":"b","font":"Go-Bold","size":5},
	  {"type":"text","text":"c","font":"House-Sans","size":5},
	  {"type":"text","text":"d","f\u006fnt":"Theirs","size":5},
	  {"type":"text","text":"e","font":"Gone","size":5}]}`)
	for range 2 {
		got, err := r.Fonts(ctx, 1, doc)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Name != "Brand Sans" || string(got[0].Data) != "font a" || got[0].Sha256 != "sa" {
			t.Errorf("team 1's fonts: %v", got)
		}
	}
	if want := []string{"Brand Sans", "Theirs", "Gone"}; !slices.Equal(store.asked[0], want) {
		t.Errorf("looked up %v; want %v", store.asked[0], want)
	}
	if store.reads != 3 { // a, then gone twice: a's file is kept
		t.Errorf("%d reads of files; want 3", store.reads)
	}
	got, err := r.Fonts(ctx, 2, doc)
	if err != nil || len(got) != 2 || string(got[0].Data) != "font b" || got[1].Name != "Theirs" {
		t.Errorf("team 2's fonts: %v %v", got, err)
	}
	store.asked = nil
	for _, d := range [][]byte{[]byte(`{"width":10,"height":10,"layers":[]}`), []byte(`not json`)} {
		if got, err := r.Fonts(ctx, 1, d); err != nil || got != nil {
			t.Errorf("%s: %v %v", d, got, err)
		}
	}
	if len(store.asked) != 0 {
		t.Errorf("looked up %v for documents without text", store.asked)
	}
	// Text naming no font of the team's still brings the team's fallback
	// fonts, marked as such.
	store.fonts[3] = map[string]Ref{"Brand CJK": {Name: "Brand CJK", UID: "c", SHA256: "sc", Fallback: true}}
	store.data["c"] = []byte("font c")
	plain := []byte(`{"width":10,"height":10,"layers":[{"type":"text","text":"x","size":5}]}`)
	if got, err := r.Fonts(ctx, 1, plain); err != nil || len(got) != 0 {
		t.Errorf("team 1, no fallback fonts: %v %v", got, err)
	}
	if got, err := r.Fonts(ctx, 3, plain); err != nil || len(got) != 1 || got[0].Name != "Brand CJK" || !got[0].Fallback {
		t.Errorf("team 3's fallback font: %v %v", got, err)
	}
	var none *Resolver
	if got, err := none.Fonts(ctx, 1, doc); got != nil || err != nil {
		t.Errorf("a nil resolver: %v %v", got, err)
	}
}
