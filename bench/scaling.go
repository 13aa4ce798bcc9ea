package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/platen-print/platen/bench/loadgen"
	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/procstat"
	"github.com/platen-print/platen/internal/render/reference"
)

// ScalingOptions configure the scaling suite (RunScaling): what one core
// of each part of a cluster does on PostgreSQL, and what that makes of N
// serve and M render processes.
type ScalingOptions struct {
	Platen, PostgresURL string
	// Window is each measured step's length (a quarter of it unmeasured
	// first).
	Window time.Duration
	// CallersPerRender is how many renders each render process has in
	// flight in the render steps.
	CallersPerRender int
	// Pages is how many one-page orders Clients post in the pipeline step.
	Pages, Clients int
	// Connections is the create step's closed-loop connections.
	Connections int
	// ProfileDir, when set, receives a CPU profile of the serve over the
	// first seconds of the pipeline step.
	ProfileDir string
}

func scalingFlags(fs *flag.FlagSet) func(platen, postgresURL, profileDir string) ScalingOptions {
	var o ScalingOptions
	fs.DurationVar(&o.Window, "scaling-d", 10*time.Second, "scaling: measured length of each step")
	fs.IntVar(&o.CallersPerRender, "scaling-callers", 2, "scaling: renders in flight per render process")
	fs.IntVar(&o.Pages, "scaling-pages", 600, "scaling: one-page orders of the pipeline step")
	fs.IntVar(&o.Clients, "scaling-clients", 8, "scaling: clients of the pipeline step")
	fs.IntVar(&o.Connections, "scaling-c", 32, "scaling: connections of the create step")
	return func(platen, postgresURL, profileDir string) ScalingOptions {
		o.Platen, o.PostgresURL, o.ProfileDir = platen, postgresURL, profileDir
		return o
	}
}

func (o ScalingOptions) validate() error {
	switch {
	case o.PostgresURL == "":
		return errors.New("scaling runs on PostgreSQL: give -postgres")
	case o.Window <= 0 || o.CallersPerRender < 1 || o.Pages < 1 || o.Clients < 1 || o.Connections < 1:
		return errors.New("-scaling-d, -scaling-callers, -scaling-pages, -scaling-clients and -scaling-c must be positive")
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		return errors.New("scaling pins processes to cores with taskset (util-linux), which is not installed")
	}
	return nil
}

// costs are what the scaling suite measured: rates per core and CPU per
// operation of each part.
type costs struct {
	// RenderRate is pages a second of one render process on one core, which
	// the step with two processes is compared with.
	RenderRate float64
	// CreateRate is orders without print files a second of one serve
	// pinned to one core, with ServePerCreate and DBPerCreate the CPU one
	// create cost serve and PostgreSQL.
	CreateRate                  float64
	ServePerCreate, DBPerCreate time.Duration
	// PipelineRate is one-page orders with print files a second, from the
	// first POST to the last ready, through one serve and both render
	// processes; ServePerPage, DBPerPage and RenderPerPage are the CPU one
	// such order cost serve (its create, its job, its status changes),
	// PostgreSQL and the render processes.
	PipelineRate                           float64
	ServePerPage, DBPerPage, RenderPerPage time.Duration
	// BytesPerPage is what one order's files take in the store.
	BytesPerPage int64
}

// RunScaling measures, on PostgreSQL: one and two render processes pinned
// to a core each; one serve pinned to a core taking creates; and the whole
// pipeline through one serve and both render processes, with each part's
// CPU. From these it writes a capacity table for N serves and M render
// processes.
func RunScaling(ctx context.Context, o ScalingOptions, out, logw io.Writer) error {
	goVersion, err := builtWith(o.Platen)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nplaten-bench scaling: %s %s/%s, NumCPU %d; platen built with %s; PostgreSQL; the reference page at 300 DPI\n\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), goVersion)
	photos, err := startPhotoServer(reference.Photo)
	if err != nil {
		return err
	}
	defer photos.close()
	rb := &renderBench{RenderOptions: RenderOptions{Platen: o.Platen, Photo: reference.Photo}, logw: logw, photos: photos}

	var c costs
	fmt.Fprintln(out, "| step | what | rate | CPU per operation | notes |")
	fmt.Fprintln(out, "|---|---|---:|---|---|")
	procs, err := scaleRenders(ctx, o, rb, out, &c)
	defer func() {
		for _, p := range procs {
			p.stop()
		}
	}()
	if err != nil {
		return err
	}
	db := postgresDatabase{url: o.PostgresURL}
	if err := scaleCreates(ctx, o, db, out, logw, &c); err != nil {
		return err
	}
	if err := scalePipeline(ctx, o, db, procs, out, logw, &c); err != nil {
		return err
	}
	writeCapacity(out, c)
	return nil
}

// scaleRenders measures one render process on CPU 0, then two on CPUs 0
// and 1, and returns the two, still running, for the pipeline step.
func scaleRenders(ctx context.Context, o ScalingOptions, rb *renderBench, out io.Writer, c *costs) ([]*renderProc, error) {
	var procs []*renderProc
	for n := 1; n <= min(2, runtime.NumCPU()); n++ {
		p, err := startRenderOn(ctx, o.Platen, strconv.Itoa(n-1))
		if err != nil {
			return procs, err
		}
		procs = append(procs, p)
		callers := o.CallersPerRender * n
		fmt.Fprintf(rb.logw, "platen-bench: scaling: %d render processes, %d callers\n", n, callers)
		if _, err := rb.load(ctx, procs, renderv1.Format_FORMAT_PDF, callers, o.Window/4); err != nil {
			return procs, err
		}
		r, err := rb.load(ctx, procs, renderv1.Format_FORMAT_PDF, callers, o.Window)
		if err != nil {
			return procs, err
		}
		rate := float64(len(r.latencies)) / r.elapsed.Seconds()
		// The callers and the photo server run on the same 2 cores.
		note := fmt.Sprintf("platen-bench used %.2f cores", r.selfCPU.Seconds()/r.elapsed.Seconds())
		if n == 1 {
			c.RenderRate = rate
		} else {
			note += fmt.Sprintf("; %.2f× one process", rate/c.RenderRate)
		}
		fmt.Fprintf(out, "| render | %d `platen render`, one core each (taskset), %d renders in flight | %.1f pages/s | %.1f ms | %s |\n",
			n, callers, rate, millis(r.cpu)/float64(len(r.latencies)), note)
	}
	return procs, nil
}

// scaleCreates runs the http suite's create scenario against one serve
// pinned to CPU 0 and reports creates a second and what each cost serve
// and PostgreSQL in CPU.
func scaleCreates(ctx context.Context, o ScalingOptions, db database, out, logw io.Writer, c *costs) (err error) {
	e, err := startEnvWith(ctx, o.Platen, db, logw, envOptions{cpus: "0"})
	if err != nil {
		return err
	}
	defer stopKeepingErr(e, &err)
	s := findScenario("create")
	fmt.Fprintf(logw, "platen-bench: scaling: creates, serve on CPU 0, %d connections\n", o.Connections)
	// The CPU is counted from the warm-up's end to the run's: the window
	// the measured requests ran in.
	counted := make(chan func() (time.Duration, time.Duration), 1)
	time.AfterFunc(o.Window/4, func() { counted <- startCPUCount(e.cmd.Process.Pid) })
	res, err := loadgen.Run(ctx, loadgen.Config{
		Concurrency: o.Connections,
		Duration:    o.Window,
		Warmup:      o.Window / 4,
		NewRequest:  s.newRequest(e),
		Raw:         true,
	})
	serveCPU, dbCPU := (<-counted)()
	if err != nil {
		return err
	}
	if res.Errors > 0 {
		return fmt.Errorf("creates: %d errors, the first: %s", res.Errors, res.FirstError)
	}
	c.CreateRate = res.RPS
	c.ServePerCreate = perOp(serveCPU, int(res.Requests))
	c.DBPerCreate = perOp(dbCPU, int(res.Requests))
	fmt.Fprintf(out, "| create | one `platen serve` on one core (taskset), %d connections, orders without print files | %.0f creates/s (p50 %.1f ms, p99 %.1f ms) | serve %.2f ms, PostgreSQL %.2f ms | |\n",
		o.Connections, res.RPS, millis(res.P50), millis(res.P99), millis(c.ServePerCreate), millis(c.DBPerCreate))
	return nil
}

// scalePipeline posts Pages one-page orders with print files from Clients
// clients through one serve (not pinned) rendering on procs, and reports
// orders a second to the last ready and what each cost every part.
func scalePipeline(ctx context.Context, o ScalingOptions, db database, procs []*renderProc, out, logw io.Writer, c *costs) (err error) {
	addrs := make([]string, len(procs))
	for i, p := range procs {
		addrs[i] = p.addr
	}
	prof, err := newProfiler(o.ProfileDir)
	if err != nil {
		return err
	}
	e, err := startEnv(ctx, o.Platen, db, logw, append(prof.args(), "--render-addr", strings.Join(addrs, ","))...)
	if err != nil {
		return err
	}
	defer stopKeepingErr(e, &err)
	b := &latencyBench{LatencyOptions: LatencyOptions{Clients: o.Clients}, e: e, db: db.name(), logw: logw,
		client: &http.Client{Timeout: readyWait}, config: latencyConfig()}
	if b.operator, err = e.staffOperator(ctx, o.Platen); err != nil {
		return err
	}
	if _, err := b.postAllUntilReady(ctx, "warm", o.Clients*4); err != nil {
		return err
	}
	files0, err := dirSize(filepath.Join(e.dataDir, "files"))
	if err != nil {
		return err
	}
	fmt.Fprintf(logw, "platen-bench: scaling: pipeline, %d orders from %d clients\n", o.Pages, o.Clients)
	cpu := startCPUCount(e.cmd.Process.Pid)
	render0, err := procsCPUTime(procs)
	if err != nil {
		return err
	}
	profiled := prof.during(ctx, "scaling-pipeline", time.Now(), 3*time.Second, logw)
	took, err := b.postAllUntilReady(ctx, "pipe", o.Pages)
	serveCPU, dbCPU := cpu()
	<-profiled
	render1, renderErr := procsCPUTime(procs)
	if err = errors.Join(err, renderErr); err != nil {
		return err
	}
	files1, err := dirSize(filepath.Join(e.dataDir, "files"))
	if err != nil {
		return err
	}
	c.PipelineRate = float64(o.Pages) / took.Seconds()
	c.ServePerPage, c.DBPerPage, c.RenderPerPage = perOp(serveCPU, o.Pages), perOp(dbCPU, o.Pages), perOp(render1-render0, o.Pages)
	c.BytesPerPage = (files1 - files0) / int64(o.Pages)
	fmt.Fprintf(out, "| pipeline | one `platen serve` (any core) and the two render processes, %d one-page orders with print files from %d clients until all ready | %.0f orders/s | serve %.2f ms, PostgreSQL %.2f ms, render %.2f ms | %.0f KB stored per order |\n",
		o.Pages, o.Clients, c.PipelineRate, millis(c.ServePerPage), millis(c.DBPerPage), millis(c.RenderPerPage), float64(c.BytesPerPage)/1e3)
	return nil
}

// startCPUCount starts counting the CPU time of serve (and what it runs)
// and of every postgres process; the func it returns stops and answers.
// A backend that exits meanwhile takes its time with it: serve's pool
// keeps its connections through a step.
func startCPUCount(serve int) func() (serveCPU, dbCPU time.Duration) {
	s0, _ := treeCPUTime(serve)
	d0 := postgresCPUTime()
	return func() (time.Duration, time.Duration) {
		s1, _ := treeCPUTime(serve)
		d1 := postgresCPUTime()
		return s1 - s0, d1 - d0
	}
}

// postgresCPUTime is the CPU time of the processes named postgres on this
// machine: the server the suite runs on, on loopback.
func postgresCPUTime() time.Duration {
	var total time.Duration
	entries, _ := os.ReadDir("/proc")
	for _, entry := range entries {
		pid, err := strconv.Atoi(entry.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", entry.Name(), "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "postgres" {
			continue
		}
		if t, err := procstat.CPUTime(pid); err == nil {
			total += t
		}
	}
	return total
}

func perOp(d time.Duration, ops int) time.Duration {
	if ops == 0 {
		return 0
	}
	return d / time.Duration(ops)
}

// dirSize is the bytes of the regular files under dir (0 when it does not
// exist yet).
func dirSize(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			total += info.Size()
		}
		return err
	})
	return total, err
}

// clusterShape is a cluster by the cores each part has: its serves', its
// render processes' and its database server's (a process uses every core
// of its machine).
type clusterShape struct{ Serves, Renders, DBCores int }

// capacity is what a shape can do, by the measured costs: orders with
// print files a second, creates a second, and what limits the first.
type capacity struct {
	Pages, Creates float64
	Bottleneck     string
}

// capacityOf bounds a shape's rates by the CPU one order costs each part
// in the pipeline: its render processes, its serves and its database.
func capacityOf(c costs, s clusterShape) capacity {
	limits := []struct {
		name string
		rate float64
	}{
		{"render", rateOf(float64(s.Renders), c.RenderPerPage)},
		{"serve (API and queue)", rateOf(float64(s.Serves), c.ServePerPage)},
		{"database", rateOf(float64(s.DBCores), c.DBPerPage)},
	}
	best := limits[0]
	for _, l := range limits[1:] {
		if l.rate < best.rate {
			best = l
		}
	}
	creates := min(rateOf(float64(s.Serves), c.ServePerCreate), rateOf(float64(s.DBCores), c.DBPerCreate))
	return capacity{Pages: best.rate, Creates: creates, Bottleneck: best.name}
}

// rateOf is how many operations costing each a second of cores give.
func rateOf(cores float64, each time.Duration) float64 {
	if each <= 0 {
		return 0
	}
	return cores / each.Seconds()
}

// capacityShapes are the rows of the capacity table.
var capacityShapes = []clusterShape{
	{1, 1, 1}, {2, 1, 2}, {2, 2, 2}, {4, 2, 2}, {4, 4, 4}, {8, 4, 4}, {8, 8, 8},
}

func writeCapacity(out io.Writer, c costs) {
	fmt.Fprintf(out, "\nCapacity by those costs (an estimate: it assumes CPU is what runs out, not the disk's commits or the network):\n\n")
	fmt.Fprintln(out, "| serve cores | render cores | database cores | orders with files/s | bottleneck | creates without files/s | stored MB/s |")
	fmt.Fprintln(out, "|---:|---:|---:|---:|---|---:|---:|")
	for _, s := range capacityShapes {
		k := capacityOf(c, s)
		fmt.Fprintf(out, "| %d | %d | %d | %.0f | %s | %.0f | %.1f |\n", s.Serves, s.Renders, s.DBCores,
			k.Pages, k.Bottleneck, k.Creates, k.Pages*float64(c.BytesPerPage)/1e6)
	}
}
