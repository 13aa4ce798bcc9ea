package render

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
)

func added(name string, data []byte) Added {
	sum := sha256.Sum256(data)
	return Added{Name: name, SHA256: hex.EncodeToString(sum[:]), Data: data}
}

// TestAddedFonts: a render's added fonts resolve by name for that render
// only, after the built-in and --font-dir fonts; a parsed copy is kept by
// the file's hash, so the next render of any name for the same file
// reuses it, and the fonts kept are bounded.
func TestAddedFonts(t *testing.T) {
	fonts := NewFonts(map[string][]byte{"House-Sans": goregular.TTF})
	brand := added("Brand Sans", gomono.TTF)
	set := fonts.set(map[string]Added{brand.Name: brand, "House-Sans": added("House-Sans", gomono.TTF)}, nil)
	first, err := set.font("Brand Sans")
	if err != nil {
		t.Fatal(err)
	}
	if house, err := set.font("House-Sans"); err != nil || house.Name() != "GoRegular" {
		t.Errorf("House-Sans is %v %v; want the --font-dir font (GoRegular), which wins", house.Name(), err)
	}
	set.release()

	// Another render, another team's name for the same file: the copy
	// parsed before.
	other := added("Mono of theirs", gomono.TTF)
	set = fonts.set(map[string]Added{other.Name: other}, nil)
	if again, err := set.font("Mono of theirs"); err != nil || again != first {
		t.Errorf("the same file was parsed again (%v)", err)
	}
	set.release()

	// Without it, the name is unknown; the known names are the render's.
	set = fonts.set(nil, nil)
	if _, err := set.font("Brand Sans"); err == nil || !strings.Contains(err.Error(), `unknown font "Brand Sans" (known: Go-Bold,`) ||
		strings.Contains(err.Error(), "Mono of theirs") {
		t.Errorf("error %v", err)
	}
	set.release()

	// Past maxAddedFonts files, the least recently used goes.
	for i := range maxAddedFonts {
		data := append([]byte(nil), gomono.TTF...)
		data = append(data, byte(i), byte(i>>8)) // another file, the same font
		a := added(fmt.Sprint("f", i), data)
		s := fonts.set(map[string]Added{a.Name: a}, nil)
		if _, err := s.font(a.Name); err != nil {
			t.Fatal(err)
		}
		s.release()
	}
	if len(fonts.recent) != maxAddedFonts || fonts.free[addedKey(brand)] != nil {
		t.Errorf("%d added fonts kept, the oldest among them: %v", len(fonts.recent), fonts.free[addedKey(brand)] != nil)
	}
}
