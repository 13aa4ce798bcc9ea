package fetch

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"strings"

	"golang.org/x/image/webp"
)

// format is an image format Platen accepts, told by its first bytes:
// what the server says in Content-Type is often wrong.
type format struct {
	name, title  string
	magic        func([]byte) bool
	decodeConfig func(io.Reader) (image.Config, error)
}

// formats calls each format's own DecodeConfig rather than
// image.DecodeConfig, which would also accept any format another package
// happens to register (GIF, BMP…).
var formats = []format{
	{"png", "PNG", prefix("\x89PNG\r\n\x1a\n"), png.DecodeConfig},
	{"jpeg", "JPEG", prefix("\xff\xd8\xff"), jpeg.DecodeConfig},
	{"webp", "WebP", isWebP, webp.DecodeConfig},
}

func prefix(magic string) func([]byte) bool {
	return func(b []byte) bool { return bytes.HasPrefix(b, []byte(magic)) }
}

func isWebP(b []byte) bool {
	return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP"
}

// inspect reads the format and size from the header alone: the pixel
// limit must hold before anyone spends the memory to decode.
func (f *Fetcher) inspect(data []byte) (*Image, error) {
	for _, ft := range formats {
		if ft.magic(data) {
			return f.inspectAs(ft, data)
		}
	}
	if isSVG(data) {
		// Vector art has no pixels to count: the renderer reads it, under
		// limits of its own (internal/svgart).
		return &Image{Data: data, Format: "svg"}, nil
	}
	return nil, &failure{kind: ErrNotImage, reason: "is not a PNG, JPEG, WebP or SVG image"}
}

// isSVG reports whether data starts as an SVG document does: after an
// optional byte order mark, white space, an XML declaration, comments
// and a DOCTYPE, its first element is <svg.
func isSVG(data []byte) bool {
	rest := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	for {
		rest = bytes.TrimLeft(rest, " \t\r\n")
		switch {
		case bytes.HasPrefix(rest, []byte("<svg")):
			return len(rest) > 4 && strings.ContainsRune(" \t\r\n>/", rune(rest[4]))
		case bytes.HasPrefix(rest, []byte("<?")):
			rest = after(rest, "?>")
		case bytes.HasPrefix(rest, []byte("<!--")):
			rest = after(rest, "-->")
		case bytes.HasPrefix(rest, []byte("<!DOCTYPE")) || bytes.HasPrefix(rest, []byte("<!doctype")):
			rest = afterDoctype(rest)
		default:
			return false
		}
		if rest == nil {
			return false
		}
	}
}

// after is what follows the first end in b, nil when there is none.
func after(b []byte, end string) []byte {
	i := bytes.Index(b, []byte(end))
	if i < 0 {
		return nil
	}
	return b[i+len(end):]
}

// afterDoctype is what follows a DOCTYPE, whose internal subset ([…])
// may hold ">".
func afterDoctype(b []byte) []byte {
	if i, j := bytes.IndexByte(b, '['), bytes.IndexByte(b, '>'); i >= 0 && (j < 0 || i < j) {
		if b = after(b[i:], "]"); b == nil {
			return nil
		}
	}
	return after(b, ">")
}

func (f *Fetcher) inspectAs(ft format, data []byte) (*Image, error) {
	cfg, err := ft.decodeConfig(bytes.NewReader(data))
	if err == nil && (cfg.Width <= 0 || cfg.Height <= 0) {
		err = fmt.Errorf("it is %d×%d pixels", cfg.Width, cfg.Height)
	}
	if err != nil {
		return nil, &failure{kind: ErrNotImage, reason: "is not a valid " + ft.title + " image: " + err.Error(), cause: err}
	}
	if ft.name == "jpeg" {
		// Embedded as it came, never decoded: it must be whole here.
		if err := jpegWhole(data); err != nil {
			return nil, &failure{kind: ErrNotImage, reason: "is not a whole JPEG image: " + err.Error(), cause: err}
		}
	}
	if int64(cfg.Width)*int64(cfg.Height) > f.cfg.MaxPixels {
		return nil, &failure{kind: ErrTooLarge, reason: fmt.Sprintf("is %d×%d pixels, over the %s limit",
			cfg.Width, cfg.Height, formatPixels(f.cfg.MaxPixels))}
	}
	return &Image{Data: data, Format: ft.name, Width: cfg.Width, Height: cfg.Height}, nil
}
