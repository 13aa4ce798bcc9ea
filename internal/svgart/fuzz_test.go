package svgart

import (
	"errors"
	"image"
	"os"
	"path/filepath"
	"testing"

	"github.com/tdewolff/canvas"
)

// nullRenderer counts what is drawn and draws nothing.
type nullRenderer struct{ paths int }

func (r *nullRenderer) Size() (float64, float64)                             { return 100, 100 }
func (r *nullRenderer) RenderPath(*canvas.Path, canvas.Style, canvas.Matrix) { r.paths++ }
func (r *nullRenderer) RenderText(*canvas.Text, canvas.Matrix)               {}
func (r *nullRenderer) RenderImage(image.Image, canvas.Matrix)               { panic("svgart drew an image") }

// FuzzParse: Parse never panics, every refusal is an *Error, and what it
// accepts stays within the limits and draws without panicking or
// drawing an image.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/logos/*.svg")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		doc(`<g opacity=".5"><rect width="50" height="50" fill="red"/><circle cx="50" cy="50" r="30" fill="blue" fill-opacity=".5"/></g>`),
		doc(`<clipPath id="c"><path d="M0 0h50v50z" clip-rule="evenodd"/></clipPath><path clip-path="url(#c)" fill-rule="evenodd" d="M10 10h80v80h-80zM20 20h60v60h-60z"/>`),
		doc(`<defs><g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g></defs><use href="#a"/>`),
		doc(`<path d="M0 0a1 1 0 01 1 1z" stroke="red" stroke-dasharray="1 0"/>`),
		`<!DOCTYPE svg [<!ENTITY e "x">]><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1e-9 1e9">&e;</svg>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		art, err := Parse(data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("refusal %v is not an *Error", err)
			}
			return
		}
		if len(art.ops) > 2*MaxExpandedElements+MaxKnockoutShapes*MaxKnockoutShapes {
			t.Fatalf("%d operations", len(art.ops))
		}
		r := &nullRenderer{}
		c := canvas.NewContext(r)
		c.SetCoordSystem(canvas.CartesianIV)
		art.Draw(c, 10, 10, 80, 50)
		art.DrawStretched(c, 0, 0, 30, 90)
	})
}
