package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/render/reference"
)

// The pdfcpu half of the batch suite: the anchor is pdfcpu laying
// out the same pages, already rendered, on the same grid.

func init() {
	// pdfcpu would otherwise write a config.yml and fonts into the user's
	// config directory on first use; its built-in defaults are the same.
	api.DisableConfigDir()
}

// renderedPage renders the reference card to a one-page PDF with platen
// render, as the render suite times it: the "already rendered" page, whose
// rendering pdfcpu is not timed for.
func renderedPage(ctx context.Context, platen, photoURL string) ([]byte, error) {
	p, err := startRender(ctx, platen)
	if err != nil {
		return nil, err
	}
	defer p.stop()
	f, _, err := p.render(ctx, reference.Card(photoURL), renderv1.Format_FORMAT_PDF)
	if err != nil {
		return nil, err
	}
	return f.Data, nil
}

// mergedCopies merges n copies of the one-page PDF page into one n-page PDF
// with pdfcpu, and says how long that took. `pdfcpu grid` lays out the
// pages of one input PDF (given several files, it reads the first), so 200
// items rendered one file each reach it as `pdfcpu merge` makes them into
// one. The merge is not part of the layout the issue times.
func mergedCopies(page []byte, n int) ([]byte, time.Duration, error) {
	copies := make([]io.ReadSeeker, n)
	for i := range copies {
		copies[i] = bytes.NewReader(page)
	}
	var out bytes.Buffer
	start := time.Now()
	if err := api.MergeRaw(copies, &out, false, model.NewDefaultConfiguration()); err != nil {
		return nil, 0, fmt.Errorf("pdfcpu merge: %w", err)
	}
	took := time.Since(start)
	if _, err := countPages(out.Bytes(), n); err != nil {
		return nil, 0, fmt.Errorf("pdfcpu merge: %w", err)
	}
	return out.Bytes(), took, nil
}

// gridCellMargin is the margin pdfcpu keeps inside each cell: 3 mm makes
// 6 mm between neighbouring pages, the gap of Platen's print template.
const gridCellMargin = 3.0

// gridConfig is what `pdfcpu grid -u mm -- "dimensions:160 112.5, margin:3"
// out.pdf 4 2 in.pdf` configures. pdfcpu's grid makes a sheet of columns ×
// rows cells of the given dimensions, so a cell of 160 × 112.5 mm makes the
// 320 × 450 mm sheet; each page is scaled into its cell, turned when that
// fits it larger (the default), with a thin border around the cell (the
// default, as Platen draws crop marks).
func gridConfig() (*model.NUp, *model.Configuration, error) {
	conf := model.NewDefaultConfiguration()
	conf.Unit = types.MILLIMETRES
	desc := fmt.Sprintf("dimensions:%g %g, margin:%g", sheetWidthMM/gridColumns, sheetHeightMM/gridRows, gridCellMargin)
	nup, err := api.PDFGridConfig(gridRows, gridColumns, desc, conf)
	if err != nil {
		return nil, nil, fmt.Errorf("pdfcpu grid configuration %q: %w", desc, err)
	}
	return nup, conf, nil
}

// imposeGrid lays the pages of input out on the grid with pdfcpu's API,
// reading and writing in memory, and returns the file and the time taken:
// reading, validating and optimising the input, the layout and the write,
// which is all `pdfcpu grid` does but for the file I/O.
func imposeGrid(input []byte) ([]byte, time.Duration, error) {
	// The configuration is made before the clock starts: it parses a
	// string, which `pdfcpu grid` does once too.
	nup, conf, err := gridConfig()
	if err != nil {
		return nil, 0, err
	}
	var out bytes.Buffer
	start := time.Now()
	err = api.Grid(bytes.NewReader(input), &out, nil, nil, nup, conf)
	took := time.Since(start)
	if err != nil {
		return nil, 0, fmt.Errorf("pdfcpu grid: %w", err)
	}
	return out.Bytes(), took, nil
}

// measureSheets parses an imposed PDF and checks that it holds want pages,
// so that neither half can pass by doing little; it reads their size too.
func measureSheets(pdf []byte, want int) (sheetFile, error) {
	dims, err := countPages(pdf, want)
	if err != nil {
		return sheetFile{}, err
	}
	return sheetFile{bytes: len(pdf), pages: len(dims), size: pageSize(dims)}, nil
}

// countPages parses pdf with pdfcpu and returns its pages' dimensions,
// failing unless there are want of them.
func countPages(pdf []byte, want int) ([]types.Dim, error) {
	dims, err := api.PageDims(bytes.NewReader(pdf), model.NewDefaultConfiguration())
	if err != nil {
		return nil, fmt.Errorf("parsing the PDF: %w", err)
	}
	if len(dims) != want {
		return nil, fmt.Errorf("%d pages, want %d", len(dims), want)
	}
	return dims, nil
}

// pageSize writes the pages' size in whole millimetres, "320×450 mm", or
// says that they differ.
func pageSize(dims []types.Dim) string {
	if len(dims) == 0 {
		return "no pages"
	}
	mm := func(points float64) float64 { return math.Round(points / 72 * 25.4) }
	w, h := mm(dims[0].Width), mm(dims[0].Height)
	for _, d := range dims[1:] {
		if mm(d.Width) != w || mm(d.Height) != h {
			return fmt.Sprintf("%g×%g mm and other sizes", w, h)
		}
	}
	return fmt.Sprintf("%g×%g mm", w, h)
}
