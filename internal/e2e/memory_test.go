package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/engine"
	"github.com/behaves-dev/behaves/internal/peakrss"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// extremePrograms is how many programs TestExtremeOutput runs.
const extremePrograms = 30

// extremeSpec is extremePrograms programs, each keeping output_limit (at
// its ceiling, --max-output-limit's default) of control characters on both
// streams: exactly the limit on stderr, then stdout without end until the
// output ceiling kills it. JSON would write each byte as 6 ("\u0001").
func extremeSpec(image string, limit int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, `version: 1
profiles:
  flood:
    image: %q
    command: ["/bin/sh"]
    output_limit: %s
    output_ceiling: %s
programs:
`, image, verdict.FormatSize(limit), verdict.FormatSize(2*limit))
	for i := 1; i <= extremePrograms; i++ {
		fmt.Fprintf(&b, "  - {name: p%02d, file: flood.sh, profile: flood, cases: [{name: flood, expect: {stdout: {contains: \"never\"}}}]}\n", i)
	}
	return b.String()
}

// TestExtremeOutput guards behaves' own memory and the report's size at
// the extreme a spec can ask for by default: 30 programs × 2 streams ×
// 1MiB of "\x01" kept (60 MiB) at the default parallelism. The behaves
// binary runs as a child, so that its peak RSS (VmHWM, see peakrss) is its
// own. Both must stay within docs/security.md's formulas: well under 128 MiB
// of RSS, and a report under 1.5 × the kept bytes. Before the report was
// spooled, behaves held every case's output several times over (about 7
// copies, 6 bytes of JSON for each byte) and the report was about 6 × the
// kept bytes.
func TestExtremeOutput(t *testing.T) {
	img := testImages(t)
	limit := spec.DefaultCeilings.MaxOutputLimit
	files := map[string]string{
		"behaves.yml": extremeSpec(img.busybox, limit),
		"flood.sh":    fmt.Sprintf("head -c %d /dev/zero | tr '\\0' '\\1' >&2\ntr '\\0' '\\1' </dev/zero\n", limit),
	}
	dir := writeTree(t, files)
	bin := buildBehaves(t)
	reportPath := filepath.Join(t.TempDir(), "report.json")
	var stdout bytes.Buffer
	var stderr syncBuffer
	cmd := exec.Command(bin, "run", "--spec", filepath.Join(dir, "behaves.yml"), "--report", reportPath)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// behaves' own peak: its VmHWM, polled (wait4's ru_maxrss also counts
	// this test binary's memory, shared with the child until its exec).
	var peakRSS int64
	err := cmd.Start()
	if err == nil {
		stop, peak := make(chan struct{}), make(chan int64, 1)
		go func() { peak <- peakrss.Poll(cmd.Process.Pid, stop) }()
		err = cmd.Wait()
		close(stop)
		peakRSS = <-peak
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("running behaves: %v\nstderr:\n%s", err, indent(stderr.String()))
	}
	if code := cmd.ProcessState.ExitCode(); code != cli.ExitFalse {
		t.Errorf("exit code %d, want %d (every program is killed at the output ceiling)\nstderr:\n%s", code, cli.ExitFalse, indent(stderr.String()))
	}
	if peakRSS == 0 {
		t.Fatal("no VmHWM read for the behaves process")
	}

	rep := readReport(t, reportPath, &stderr)
	fi, err := os.Stat(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	size := fi.Size()
	dockertest.AssertNothingLeft(t, dockertest.Client(t), rep.RunID)

	// Every case kept the limit on both streams, exactly, in the report.
	var kept int64
	want := bytes.Repeat([]byte{1}, int(limit))
	for _, p := range rep.Programs {
		for _, c := range p.Cases {
			e := c.Event
			if c.Verdict != verdict.False || e.ResourceLimit != "output" {
				t.Errorf("%s: verdict %v, resource limit %q; want false, output (%s)", p.Name, c.Verdict, e.ResourceLimit, c.Reason)
			}
			if e.StdoutOmitted || e.StderrOmitted || !bytes.Equal(e.StdoutData(), want) || !bytes.Equal(e.StderrData(), want) {
				t.Errorf("%s: kept %d and %d bytes (omitted %v, %v), want %d of \\x01 on each", p.Name,
					len(e.StdoutData()), len(e.StderrData()), e.StdoutOmitted, e.StderrOmitted, limit)
			}
			kept += e.StdoutKeptBytes + e.StderrKeptBytes
		}
	}
	if len(rep.Programs) != extremePrograms || kept != extremePrograms*2*limit {
		t.Fatalf("%d programs kept %d bytes, want %d and %d", len(rep.Programs), kept, extremePrograms, extremePrograms*2*limit)
	}

	parallel := engine.DefaultParallel(256 << 20) // the profile's memory: the default
	bound := engine.MemoryBound(parallel, limit, extremePrograms)
	reportBound := engine.ReportBound(kept, extremePrograms, reportwrite.DefaultMaxReportSize)
	t.Logf("%d programs, parallel %d: %d MiB kept; peak RSS %.1f MiB (formula %.1f MiB); report %.1f MiB (%.2f × kept; formula %.1f MiB)",
		extremePrograms, parallel, kept>>20, mib(peakRSS), mib(bound), mib(size), float64(size)/float64(kept), mib(reportBound))
	if peakRSS > bound || peakRSS >= 128<<20 {
		t.Errorf("behaves' peak RSS is %.1f MiB, over the formula's %.1f MiB (or 128 MiB)", mib(peakRSS), mib(bound))
	}
	if size > reportBound || size*2 >= kept*3 {
		t.Errorf("the report is %.1f MiB, over the formula's %.1f MiB (or 1.5 × the %d MiB kept)", mib(size), mib(reportBound), kept>>20)
	}
	if runtime.NumCPU() > 2 {
		t.Logf("note: %d CPUs, the default parallelism is higher than on the 2-CPU machine docs/performance.md's figures come from", runtime.NumCPU())
	}
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }
