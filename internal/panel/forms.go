package panel

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/fonts"
)

// maxUploadForm bounds an upload's form: the largest font or ICC profile
// the API takes (6,000,000 bytes each), and room for the form's other
// fields.
const maxUploadForm = fonts.MaxBytes + 64<<10

// limitBody refuses a request body over n bytes: 413 when it says so
// ahead, and a form that cannot be read when it grows past it.
func (p *Panel) limitBody(n int64, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > n {
			p.failWith(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("The file is too large: a font or a profile is at most %d bytes.", fonts.MaxBytes))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, n)
		h.ServeHTTP(w, r)
	})
}

// formFile reads the form's file field (what says what it must be),
// within the body's bound.
func formFile(r *http.Request, field, what string) ([]byte, error) {
	f, _, err := r.FormFile(field)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, apierr.Invalid(field, "must be at most %d bytes", fonts.MaxBytes)
	case err != nil:
		return nil, apierr.Invalid(field, "is required: %s", what)
	}
	defer f.Close()
	return io.ReadAll(f)
}
