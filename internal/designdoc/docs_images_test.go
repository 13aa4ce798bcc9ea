package designdoc_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// imageHost is where the documentation's examples keep their images; the
// test serves them itself, there being no network here.
const imageHost = "https://images.example.com"

// oversizeBytes is the size /scan.png claims: 26 MB, over the 25 MB a
// fetched image may have.
const oversizeBytes = 26 << 20

// imageServer serves the images the documentation names under imageHost,
// and 404 for any other path; it returns its URL.
func imageServer(t *testing.T) string {
	t.Helper()
	files := map[string][]byte{
		"/photo.jpg":    halvesJPEG(t),
		"/banner.gif":   solidGIF(t),
		"/poster.png":   pngHeader(5000, 5000),
		"/panorama.png": pngHeader(20000, 6000),
		"/sticker.png":  discPNG(t),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/scan.png" {
			// The length is enough to refuse it by: no body is sent.
			w.Header().Set("Content-Length", strconv.Itoa(oversizeBytes))
			return
		}
		data, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// The colours of the halves of /photo.jpg: #c03030 and #3030c0.
var (
	photoLeft  = color.RGBA{R: 0xc0, G: 0x30, B: 0x30, A: 0xff}
	photoRight = color.RGBA{R: 0x30, G: 0x30, B: 0xc0, A: 0xff}
)

// halvesJPEG is a 600 × 400 photo, its left half photoLeft and its right
// half photoRight, so that examples can show where it lands.
func halvesJPEG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 600, 400))
	for y := range 400 {
		for x := range 600 {
			c := photoLeft
			if x >= 300 {
				c = photoRight
			}
			img.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// discPNG is a 400 × 400 sticker: a disc of radius 160 px in photoLeft's
// red, on transparency.
func discPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 400, 400))
	for y := range 400 {
		for x := range 400 {
			if dx, dy := float64(x)+0.5-200, float64(y)+0.5-200; dx*dx+dy*dy <= 160*160 {
				img.SetNRGBA(x, y, color.NRGBA{R: photoLeft.R, G: photoLeft.G, B: photoLeft.B, A: 255})
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// solidGIF is a GIF, a format Platen does not print.
func solidGIF(t *testing.T) []byte {
	t.Helper()
	img := image.NewPaletted(image.Rect(0, 0, 4, 4), color.Palette{photoLeft})
	var buf bytes.Buffer
	if err := gif.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pngHeader is the start of a w × h PNG: its signature and header chunk,
// all Platen reads of an image before it decides it is too large. The
// pixels never come, so that the test spends nothing making them.
func pngHeader(w, h uint32) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8 bits a channel, RGBA
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(ihdr)))
	chunk = append(chunk, "IHDR"...)
	chunk = append(chunk, ihdr...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	return append([]byte("\x89PNG\r\n\x1a\n"), chunk...)
}
