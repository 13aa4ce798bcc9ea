package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/platen-print/platen/bench/loadgen"
)

// The batch suite's layout is the issue's: 200 items of the reference page,
// one copy each, on SRA3 sheets (320 × 450 mm) in a grid of 2 columns and 4
// rows, so 25 sheets.
const (
	batchItems    = 200
	sheetWidthMM  = 320.0
	sheetHeightMM = 450.0
	gridColumns   = 2
	gridRows      = 4
	// sizeAllowance is what the Platen file may weigh above the photo:
	// 1 MB, in the decimal megabytes the tables write.
	sizeAllowance = 1_000_000
	// pdfcpuModule is the module whose version the table names.
	pdfcpuModule = "github.com/pdfcpu/pdfcpu"
)

// BatchOptions configures the batch suite (RunBatch): pdfcpu imposing the
// already-rendered reference page 200 times on the sheets, against Platen
// from POST /api/v1/batch-orders to Ready for 200 items of the same page.
type BatchOptions struct {
	// Platen is the path of the platen binary to benchmark.
	Platen string
	// PostgresURL, when set, also times batches on PostgreSQL.
	PostgresURL string
	// GridRuns is how many pdfcpu layouts are timed, and BatchRuns how many
	// Platen batches, each after one unmeasured.
	GridRuns, BatchRuns int
	// Photo is the page's JPEG: the render suite's.
	Photo []byte
}

func (o BatchOptions) validate() error {
	switch {
	case o.Platen == "":
		return errors.New("-platen is required")
	case o.GridRuns <= 0 || o.BatchRuns <= 0:
		return errors.New("-batch-grid-runs and -batch-runs must be positive")
	case len(o.Photo) == 0:
		return errors.New("no photo")
	}
	return nil
}

// batchFlags registers the batch suite's flags on fs and returns what
// reads them once fs is parsed.
func batchFlags(fs *flag.FlagSet) func(platen, postgresURL string, photo []byte) BatchOptions {
	var o BatchOptions
	fs.IntVar(&o.GridRuns, "batch-grid-runs", 5, "batch: pdfcpu grid layouts of the 200 pages timed, after 1 unmeasured")
	fs.IntVar(&o.BatchRuns, "batch-runs", 3, "batch: Platen batches of 200 items timed from POST to Ready, after 1 unmeasured")
	return func(platen, postgresURL string, photo []byte) BatchOptions {
		o.Platen, o.PostgresURL, o.Photo = platen, postgresURL, photo
		return o
	}
}

// sheetsFor is how many sheets items single copies fill at columns × rows
// slots a sheet.
func sheetsFor(items, columns, rows int) int {
	perSheet := columns * rows
	return (items + perSheet - 1) / perSheet
}

// batchRow is one database's figures: pdfcpu's and Platen's, taken in
// turns so that both meet the host at the same speed.
type batchRow struct {
	database string
	grid     []time.Duration
	gridFile sheetFile
	// batches is empty when Platen could not batch; platenErr then says
	// why.
	batches    []time.Duration
	firstBatch time.Duration
	batchFile  sheetFile
	platenErr  error
}

// sheetFile is an imposed PDF as measured: its size and its pages.
type sheetFile struct {
	bytes int
	pages int
	size  string // of its pages, "320×450 mm"
}

// RunBatch runs the batch suite, writing a markdown table to out and
// progress to logw. The pdfcpu half runs even when Platen cannot batch (a
// platen without batch orders answers 501); the error then says so.
func RunBatch(ctx context.Context, o BatchOptions, out, logw io.Writer) error {
	if err := o.validate(); err != nil {
		return err
	}
	goVersion, err := builtWith(o.Platen)
	if err != nil {
		return err
	}
	photos, err := startPhotoServer(o.Photo)
	if err != nil {
		return err
	}
	defer photos.close()

	fmt.Fprintf(logw, "platen-bench: batch: rendering the reference page with platen render (not timed)\n")
	page, err := renderedPage(ctx, o.Platen, photos.next())
	if err != nil {
		return fmt.Errorf("rendering the reference page: %w", err)
	}
	input, merged, err := mergedCopies(page, batchItems)
	if err != nil {
		return err
	}
	sheets := sheetsFor(batchItems, gridColumns, gridRows)
	fmt.Fprintf(out, "\nplaten-bench batch: %s %s/%s, NumCPU %d; platen built with %s; pdfcpu %s\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), goVersion, moduleVersion(pdfcpuModule))
	fmt.Fprintf(out, "\n%d items of the reference page (photo %d bytes), one copy each, on %g×%g mm sheets in a %d×%d grid: %d sheets. "+
		"pdfcpu lays out one %d-page PDF of the page rendered by platen render (%.1f KB; merged by pdfcpu from %d copies into %.1f KB in %.0f ms, not counted), "+
		"in memory, %d times after 1 unmeasured; Platen runs %d batches of new items after 1 unmeasured, taking turns with pdfcpu.\n\n",
		batchItems, len(o.Photo), sheetWidthMM, sheetHeightMM, gridColumns, gridRows, sheets,
		batchItems, float64(len(page))/1e3, batchItems, float64(len(input))/1e3, millis(merged), o.GridRuns, o.BatchRuns)
	fmt.Fprintln(out, "| database | pdfcpu grid p50 ms | Platen POST to Ready p50 ms | Platen / pdfcpu | pdfcpu file | Platen file | photo + 1 MB | pages, pdfcpu / Platen | targets |")
	fmt.Fprintln(out, "|---|---:|---:|---:|---:|---:|---:|---|---|")

	databases := []database{sqliteDatabase{}}
	if o.PostgresURL != "" {
		databases = append(databases, postgresDatabase{url: o.PostgresURL})
	}
	var rows []batchRow
	var failed []error
	for _, db := range databases {
		if ctx.Err() != nil {
			break
		}
		r, err := batchOn(ctx, o, db, input, sheets, photos, logw)
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", db.name(), err))
			continue
		}
		rows = append(rows, r)
		writeBatchRow(out, r, len(o.Photo))
	}
	fmt.Fprintln(out)
	for _, r := range rows {
		fmt.Fprintf(out, "pdfcpu, %s: runs of %s ms\n", r.database, runList(r.grid))
		if r.platenErr != nil {
			fmt.Fprintf(out, "Platen, %s: %v\n", r.database, r.platenErr)
			failed = append(failed, fmt.Errorf("%s: Platen: %w", r.database, r.platenErr))
		} else {
			fmt.Fprintf(out, "Platen, %s: runs of %s ms; the unmeasured first batch after start took %.0f ms\n",
				r.database, runList(r.batches), millis(r.firstBatch))
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(failed...)
}

// batchOn starts platen serve on db, prepares it for batches, and then
// times pdfcpu and Platen in turns. A Platen that cannot batch leaves
// pdfcpu's figures standing: the row carries its error.
func batchOn(ctx context.Context, o BatchOptions, db database, input []byte, sheets int, photos *photoServer, logw io.Writer) (r batchRow, err error) {
	r.database = db.name()
	fmt.Fprintf(logw, "platen-bench: batch: %s: starting platen serve\n", db.name())
	e, err := startEnv(ctx, o.Platen, db, logw, "--allow-private-network")
	if err != nil {
		return r, err
	}
	defer stopKeepingErr(e, &err)
	pb, err := newPlatenBatcher(ctx, o.Platen, e)
	if err != nil {
		r.platenErr = e.withLog(err)
	}
	for i := range max(o.GridRuns, o.BatchRuns) + 1 {
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		if i <= o.GridRuns {
			fmt.Fprintf(logw, "platen-bench: batch: pdfcpu grid, run %d of 1 + %d\n", i+1, o.GridRuns)
			file, took, err := imposeGrid(input)
			if err != nil {
				return r, fmt.Errorf("pdfcpu: %w", err)
			}
			if r.gridFile, err = measureSheets(file, sheets); err != nil {
				return r, fmt.Errorf("pdfcpu's file: %w", err)
			}
			if i > 0 {
				r.grid = append(r.grid, took)
			}
		}
		if i <= o.BatchRuns && r.platenErr == nil {
			fmt.Fprintf(logw, "platen-bench: batch: %s: Platen batch, run %d of 1 + %d\n", db.name(), i+1, o.BatchRuns)
			took, file, err := pb.batch(ctx, fmt.Sprintf("%s-batch-%d", e.run, i), photos.next(), sheets)
			switch {
			case errors.Is(err, errNoBatches):
				r.platenErr = err
			case err != nil:
				r.platenErr = e.withLog(err)
			case i == 0:
				r.firstBatch, r.batchFile = took, file
			default:
				r.batches, r.batchFile = append(r.batches, took), file
			}
		}
	}
	return r, nil
}

func writeBatchRow(out io.Writer, r batchRow, photoBytes int) {
	slices.Sort(r.grid)
	slices.Sort(r.batches)
	grid := loadgen.Percentile(r.grid, 50)
	platen, ratio, platenFile, platenPages, targets := "–", "–", "–", "–", "not measured"
	if len(r.batches) > 0 {
		p50 := loadgen.Percentile(r.batches, 50)
		platen = fmt.Sprintf("%.0f", millis(p50))
		ratio = fmt.Sprintf("%.2f×", float64(p50)/float64(grid))
		platenFile = kb(r.batchFile.bytes)
		platenPages = fmt.Sprintf("%d of %s", r.batchFile.pages, r.batchFile.size)
		targets = fmt.Sprintf("time %s, size %s", yesNo(p50 < grid), yesNo(r.batchFile.bytes <= photoBytes+sizeAllowance))
	}
	fmt.Fprintf(out, "| %s | %.0f | %s | %s | %s | %s | %s | %d of %s / %s | %s |\n", r.database, millis(grid), platen, ratio,
		kb(r.gridFile.bytes), platenFile, kb(photoBytes+sizeAllowance), r.gridFile.pages, r.gridFile.size, platenPages, targets)
}

// runList writes the runs' times in ms, sorted: "212, 230, 251".
func runList(took []time.Duration) string {
	parts := make([]string, len(took))
	for i, d := range slices.Sorted(slices.Values(took)) {
		parts[i] = fmt.Sprintf("%.0f", millis(d))
	}
	return strings.Join(parts, ", ")
}

func kb(bytes int) string { return fmt.Sprintf("%.1f KB", float64(bytes)/1e3) }

func yesNo(ok bool) string {
	if ok {
		return "met"
	}
	return "missed"
}

// moduleVersion is the version of module path this binary was built with.
func moduleVersion(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == path {
				return m.Version
			}
		}
	}
	return "(unknown version)"
}
