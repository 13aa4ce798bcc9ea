package renderproc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	renderv1 "github.com/platen-print/platen/gen/platen/render/v1"
	"github.com/platen-print/platen/internal/procstat"
)

// The test binary is its own render child (see run.go); these faults, named
// by a document's "test_fault" member, play a drawing library that never
// returns, takes all memory or panics where nothing can recover it.
var _ = func() bool {
	testHookRender = func(req *renderv1.RenderRequest) {
		doc := string(req.GetDocument())
		switch {
		case strings.Contains(doc, `"test_fault":"spin"`):
			for {
				runtime.Gosched()
			}
		case strings.Contains(doc, `"test_fault":"grow"`):
			for {
				b := make([]byte, 16<<20)
				for i := range b {
					b[i] = 1
				}
				hoard = append(hoard, b)
			}
		case strings.Contains(doc, `"test_fault":"segv"`):
			segv()
		case strings.Contains(doc, `"test_fault":"killed"`):
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		case strings.Contains(doc, `"test_fault":"panic"`):
			done := make(chan struct{})
			go func() { panic(errors.New("path has NaN or Inf")) }()
			<-done
		}
	}
	return true
}()

// segv dies as the Go runtime does of a fault in its own code, where it
// cannot panic: "SIGSEGV: segmentation violation", a dump, exit code 2.
func segv() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGSEGV)
	time.Sleep(time.Minute)
}

const page = `{"width":50,"height":30,"layers":[{"type":"rect","x":5,"y":5,"width":40,"height":20,"fill":"#336699"}]`

func request(fault string) *renderv1.RenderRequest {
	doc := page + `}`
	if fault != "" {
		doc = page + `,"test_fault":"` + fault + `"}`
	}
	return &renderv1.RenderRequest{Document: []byte(doc), Formats: []renderv1.Format{renderv1.Format_FORMAT_PDF}}
}

func startSupervisor(t *testing.T, lim Limits) *Supervisor {
	t.Helper()
	if lim.Time == 0 {
		lim.Time = 30 * time.Second
	}
	if lim.CPU == 0 {
		lim.CPU = lim.Time
	}
	if lim.MemoryBytes == 0 {
		lim.MemoryBytes = 384 << 20
	}
	s, err := Start(Config{Processes: 1, Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// rendersAfterwards checks that the supervisor's one process slot renders
// again: the child that misbehaved was replaced.
func rendersAfterwards(t *testing.T, s *Supervisor) {
	t.Helper()
	resp, err := s.Render(context.Background(), request(""))
	if err != nil {
		t.Fatalf("the next render: %v", err)
	}
	if len(resp.Files) != 1 || !bytes.HasPrefix(resp.Files[0].Data, []byte("%PDF-")) {
		t.Fatalf("the next render answered %d files", len(resp.Files))
	}
}

func wantFailure(t *testing.T, err error, code codes.Code, reason string) {
	t.Helper()
	if status.Code(err) != code || Reason(err) != reason {
		t.Fatalf("err = %v; want %s %q", err, code, reason)
	}
	if !Permanent(err) {
		t.Fatalf("%v is not permanent: the queue would retry it into the same failure", err)
	}
}

func TestRenders(t *testing.T) {
	rendersAfterwards(t, startSupervisor(t, Limits{}))
}

func TestARenderThatNeverReturnsIsKilledAtItsTimeLimit(t *testing.T) {
	// 3 s rather than 1: the limit applies to the render after the kill
	// too, which a loaded machine running this package under -race has
	// taken over a second to draw in a fresh process.
	s := startSupervisor(t, Limits{Time: 3 * time.Second, CPU: time.Minute})
	began := time.Now()
	_, err := s.Render(context.Background(), request("spin"))
	wantFailure(t, err, codes.ResourceExhausted, "render exceeded 3 s")
	if took := time.Since(began); took > 10*time.Second { // killed, not left to spin: the bound is loose for loaded machines
		t.Errorf("the kill took %v", took)
	}
	rendersAfterwards(t, s)
}

func TestARenderIsKilledAtItsCPULimit(t *testing.T) {
	s := startSupervisor(t, Limits{Time: time.Minute, CPU: time.Second})
	_, err := s.Render(context.Background(), request("spin"))
	wantFailure(t, err, codes.ResourceExhausted, "render exceeded its CPU limit of 1 s")
	rendersAfterwards(t, s)
}

// TestARenderOverItsMemoryLimitFailsAlone: however the child dies at its
// limit (the supervisor's watch, or the kernel refusing the heap, a
// thread or the garbage collector's own memory), the render fails with
// the limit, and the next render, in a fresh child, renders.
func TestARenderOverItsMemoryLimitFailsAlone(t *testing.T) {
	s := startSupervisor(t, Limits{MemoryBytes: 128 << 20})
	_, err := s.Render(context.Background(), request("grow"))
	wantFailure(t, err, codes.ResourceExhausted, "render exceeded its memory limit of 128 MB")
	rendersAfterwards(t, s)
}

// TestAPhotoRendersUnderTheSmallestMemoryLimit: a fresh child under the
// smallest limit --render-memory-mb allows renders a photo page as PDF
// and PNG (about 60 MB resident). The memory the child maps before its
// first render (110 MB, nearly none of it in RAM) is not the render's.
func TestAPhotoRendersUnderTheSmallestMemoryLimit(t *testing.T) {
	photo := dataURI(t, "jpeg", 1200, 800)
	doc := fmt.Sprintf(`{"width":148,"height":105,"layers":[{"type":"image","src":%q,"x":0,"y":0,"width":148,"height":105},`+
		`{"type":"text","text":"Hello","size":40,"x":10,"y":50,"width":120}]}`, photo)
	req := &renderv1.RenderRequest{Document: []byte(doc), Settings: &renderv1.PrintSettings{Dpi: 150},
		Formats: []renderv1.Format{renderv1.Format_FORMAT_PDF, renderv1.Format_FORMAT_PNG}}
	s := startSupervisor(t, Limits{MemoryBytes: 128 << 20})
	resp, err := s.Render(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Files) != 2 {
		t.Fatalf("%d files; want the PDF and the PNG", len(resp.Files))
	}
	rendersAfterwards(t, s)
}

// TestARuntimeFaultIsTheMemoryLimitWhereTheKernelHoldsIt: a child that
// dies of a fault in the Go runtime's own code was refused memory where
// the data limit holds (the runtime leaves some of its allocations
// unchecked); under the race detector, where none does, it crashed.
// Neither is retried.
func TestARuntimeFaultIsTheMemoryLimitWhereTheKernelHoldsIt(t *testing.T) {
	s := startSupervisor(t, Limits{MemoryBytes: 128 << 20})
	_, err := s.Render(context.Background(), request("segv"))
	if dataLimitHolds() {
		wantFailure(t, err, codes.ResourceExhausted, "render exceeded its memory limit of 128 MB")
	} else {
		wantFailure(t, err, codes.Internal, "render crashed: SIGSEGV: segmentation violation")
	}
	rendersAfterwards(t, s)
}

func TestAPanicNothingRecoversFailsTheRenderWithItsMessage(t *testing.T) {
	s := startSupervisor(t, Limits{})
	_, err := s.Render(context.Background(), request("panic"))
	wantFailure(t, err, codes.Internal, "render crashed: path has NaN or Inf")
	if !Crashed(err) {
		t.Errorf("%v is not marked as a crash", err)
	}
	rendersAfterwards(t, s)
}

// TestADeathWithoutLastWordsIsRetried: a child killed from outside (the
// machine's OOM killer, an operator) said nothing of the document: the
// render is UNAVAILABLE, which the queue retries, not a crash.
func TestADeathWithoutLastWordsIsRetried(t *testing.T) {
	s := startSupervisor(t, Limits{})
	_, err := s.Render(context.Background(), request("killed"))
	if status.Code(err) != codes.Unavailable || Permanent(err) {
		t.Fatalf("err = %v; want UNAVAILABLE, not permanent", err)
	}
	if want := "the render process stopped: it was killed by signal 9 (killed)"; Reason(err) != want {
		t.Errorf("reason %q; want %q", Reason(err), want)
	}
	rendersAfterwards(t, s)
}

func TestACallerGivingUpStopsTheRender(t *testing.T) {
	s := startSupervisor(t, Limits{})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := s.Render(ctx, request("spin"))
	if status.Code(err) != codes.DeadlineExceeded || Permanent(err) {
		t.Fatalf("err = %v; want the caller's DEADLINE_EXCEEDED, not a permanent failure", err)
	}
	rendersAfterwards(t, s)
}

func TestLastWordsReadTheRuntimesOwnLines(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  dyingWords
	}{
		{[]string{"panic: path has NaN or Inf", "", "goroutine 7 [running]:", "main.f()"}, dyingWords{fatal: "path has NaN or Inf"}},
		{[]string{`{"msg":"render failed","src":"https://x/out of memory.png"}`, "exit"}, dyingWords{}},
		{[]string{"runtime: out of memory: cannot allocate 4194304-byte block", "fatal error: out of memory"}, dyingWords{fatal: "out of memory", memory: true}},
		{[]string{"fatal error: out of memory allocating heap arena metadata"}, dyingWords{fatal: "out of memory allocating heap arena metadata", memory: true}},
		{[]string{"fatal error: pageAlloc: out of memory"}, dyingWords{fatal: "pageAlloc: out of memory", memory: true}},
		{[]string{"runtime/cgo: pthread_create failed: Resource temporarily unavailable", "SIGABRT: abort"}, dyingWords{memory: true}},
		{[]string{"log line", "panic: boom [recovered]", "\tpanic: boom"}, dyingWords{fatal: "boom"}},
		// Go 1.26's garbage collector, its span queue's memory refused.
		{[]string{"SIGSEGV: segmentation violation", "PC=0x439f7d m=6 sigcode=1 addr=0x0", "goroutine 0 gp=0x2ea4c2520d20 m=6 mp=0x2ea4c252c008 [idle]:",
			"runtime.(*spanQueue).tryDrain(0x7efc00000400?, 0x4427c5?, 0x1d351a8?)", "gs     0x0"}, dyingWords{fault: "SIGSEGV: segmentation violation"}},
		{[]string{"fatal error: unexpected signal during runtime execution", "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x2e430]"},
			dyingWords{fatal: "unexpected signal during runtime execution", fault: "unexpected signal during runtime execution"}},
		// A nil pointer in the renderer's code is its panic, not a fault of the runtime.
		{[]string{"panic: runtime error: invalid memory address or nil pointer dereference", "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a1b2c]"},
			dyingWords{fatal: "runtime error: invalid memory address or nil pointer dereference"}},
	} {
		var w lastWords
		for _, l := range tc.lines {
			w.note(l)
		}
		if got := w.last(); got != tc.want {
			t.Errorf("%q: last() = %+v; want %+v", tc.lines, got, tc.want)
		}
	}
}

// hoard keeps what the "grow" fault allocates alive, so that the child
// grows until its memory limit stops it.
var hoard [][]byte

// TestOnDemandStartsAChildAtItsFirstRender: an on-demand supervisor costs
// no process until it renders, then one per slot used, not per slot.
func TestOnDemandStartsAChildAtItsFirstRender(t *testing.T) {
	before := len(procstat.Children(os.Getpid()))
	s, err := Start(Config{Processes: 3, Limits: Limits{Time: 30 * time.Second, CPU: 30 * time.Second}, OnDemand: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if n := len(procstat.Children(os.Getpid())) - before; n != 0 {
		t.Fatalf("%d render processes before any render, want 0", n)
	}
	rendersAfterwards(t, s)
	if n := len(procstat.Children(os.Getpid())) - before; n != 1 {
		t.Errorf("%d render processes after one render, want 1", n)
	}
}
