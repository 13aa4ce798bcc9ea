package render

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	xdraw "golang.org/x/image/draw"

	"github.com/platen-print/platen/internal/designdoc"
)

// bigSticker is a 4000 × 4000 photo-like PNG (noise in every channel, so it
// compresses as a photo does) of a disc with soft edges on transparency.
func bigSticker(tb testing.TB) []byte {
	const n = 4000
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	rng := rand.New(rand.NewPCG(1, 2))
	for y := range n {
		for x := range n {
			r := math.Hypot(float64(x)+0.5-n/2, float64(y)+0.5-n/2)
			if cover := clamp01(1700 - r); cover > 0 {
				v := rng.Uint32()
				img.SetNRGBA(x, y, color.NRGBA{R: uint8(v), G: uint8(v >> 8), B: uint8(x / 16), A: uint8(255 * cover)})
			}
		}
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func heapObjects() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// peakHeap samples the heap's live objects until stop is called.
func peakHeap() (stop func() uint64) {
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak }
}

// maxStickerHeap bounds what the big sticker's render holds at once: its
// decoded pixels (64 MB), the print-size copy, the alpha grid and the PDF,
// well under the 192 MB (half the render process's default 384 MB) where
// that process's garbage collector keeps its heap. Before, the scaling
// buffer alone was 144 MB.
const maxStickerHeap = 150 << 20

// TestABigStickerRendersFarBelowTheMemoryLimit: a 4000 × 4000 PNG with a
// cut offset and an underbase failed at the render process's 384 MB; the
// pixels it holds at once now stay far below.
func TestABigStickerRendersFarBelowTheMemoryLimit(t *testing.T) {
	data := bigSticker(t)
	r := New(images{"https://example.com/big.png": {Data: data, Format: "png"}}, NewFonts(nil))
	doc, err := designdoc.Parse([]byte(`{"width": 110, "height": 110, "layers": [{"type": "image", "src": "https://example.com/big.png",
		"x": 5, "y": 5, "width": 100, "height": 100, "cut_offset": 3, "underbase": "spot(White, #ffffff)"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	// Collect often, so that the peak is what the render holds rather
	// than garbage awaiting a collection; measure from what is live now.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	base := heapObjects()
	stop := peakHeap()
	pdf, err := r.PDF(context.Background(), doc, Settings{DPI: 300})
	peak := stop() - base
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("PNG %d MB, PDF %d MB, the render's heap peaked %d MB above what was live before", len(data)>>20, len(pdf)>>20, peak>>20)
	if peak > maxStickerHeap {
		t.Errorf("the render's heap peaked at %d MB, over %d MB", peak>>20, maxStickerHeap>>20)
	}
}

// TestAreaScaleAverages: scaling down averages the covered area exactly
// (premultiplied: a transparent pixel lends no colour), and agrees with
// a bilinear kernel on a smooth image.
func TestAreaScaleAverages(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 4, 2))
	src.SetNRGBA(0, 0, color.NRGBA{R: 200, A: 255})
	src.SetNRGBA(1, 0, color.NRGBA{G: 255, A: 0}) // transparent green
	src.SetNRGBA(0, 1, color.NRGBA{R: 200, A: 255})
	src.SetNRGBA(1, 1, color.NRGBA{R: 200, A: 255})
	for x := 2; x < 4; x++ {
		src.SetNRGBA(x, 0, color.NRGBA{B: 100, A: 255})
		src.SetNRGBA(x, 1, color.NRGBA{B: 100, A: 255})
	}
	out := areaScale(src, image.Pt(2, 1))
	if got, want := out.RGBAAt(0, 0), (color.RGBA{R: 150, A: 191}); got != want {
		t.Errorf("left pixel %v, want %v", got, want)
	}
	if got, want := out.RGBAAt(1, 0), (color.RGBA{B: 100, A: 255}); got != want {
		t.Errorf("right pixel %v, want %v", got, want)
	}
	// A gradient at a ratio that is not whole: within a level or two of
	// the bilinear kernel everywhere.
	grad := image.NewRGBA(image.Rect(0, 0, 301, 97))
	for y := range 97 {
		for x := range 301 {
			grad.SetRGBA(x, y, color.RGBA{R: uint8(x * 255 / 300), G: uint8(y * 255 / 96), B: 80, A: 255})
		}
	}
	size := image.Pt(67, 31)
	got := areaScale(grad, size)
	want := image.NewRGBA(image.Rectangle{Max: size})
	xdraw.BiLinear.Scale(want, want.Bounds(), grad, grad.Bounds(), xdraw.Src, nil)
	for i := range got.Pix {
		if d := int(got.Pix[i]) - int(want.Pix[i]); d < -3 || d > 3 {
			t.Fatalf("byte %d: %d, the kernel's %d", i, got.Pix[i], want.Pix[i])
		}
	}
}
