package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
)

// echoKeyedSandbox answers every invocation with its stdin on stdout and
// records what a Docker sandbox records of it (settings, command, limits,
// digests), so that its evidence can be reused. It counts the
// invocations.
type echoKeyedSandbox struct {
	mu  sync.Mutex
	ran int
	// onRun, when set, is called at each invocation.
	onRun func()
}

func (s *echoKeyedSandbox) Prepare(ctx context.Context, batch []runner.Request) []runner.Prepared {
	out := make([]runner.Prepared, len(batch))
	for i, r := range batch {
		out[i].Attempt = echoKeyedAttempt{s: s, req: r}
	}
	return out
}

type echoKeyedAttempt struct {
	s   *echoKeyedSandbox
	req runner.Request
}

func (a echoKeyedAttempt) Settings() runner.Settings {
	p := a.req.Profile
	return runner.Settings{Image: p.Image, ImageID: testImage, User: p.User, Runtime: p.Runtime,
		NetworkFiles: p.NetworkFiles.OrDefault(), TmpfsBytes: maps.Clone(p.Tmpfs), Applied: runner.Apply(p)}
}

func (a echoKeyedAttempt) Run(ctx context.Context, inv runner.Invocation) (runner.Event, error) {
	a.s.mu.Lock()
	a.s.ran++
	a.s.mu.Unlock()
	if a.s.onRun != nil {
		a.s.onRun()
	}
	p := a.req.Profile
	sum := sha256.Sum256(inv.Stdin)
	code := 0
	return runner.Event{
		ExitCode:      &code,
		Stdout:        runner.Stream{Data: slices.Clone(inv.Stdin), Bytes: int64(len(inv.Stdin))},
		Command:       append(append(slices.Clone(p.Command), runner.DefaultProgramDir+"/"+p.ProgramName), inv.Args...),
		StdinSHA256:   hex.EncodeToString(sum[:]),
		ProgramSHA256: a.req.Program.Digest(),
		ImageDigest:   testImage,
		Limits: runner.Limits{TimeoutMS: p.Timeout.Milliseconds(), MemoryBytes: p.Memory, CPUs: p.CPUs, Pids: p.Pids,
			OutputLimit: p.OutputLimit, OutputCeiling: p.OutputCeiling},
		Duration: time.Millisecond,
	}, nil
}

func (a echoKeyedAttempt) Close(context.Context) error { return nil }

// readChecked reads the report at path as publish does.
func readChecked(t *testing.T, path string) report.Report {
	t.Helper()
	r, err := reporttest.ReadFile(t, path, 64<<20)
	if err != nil {
		t.Fatalf("the report does not read back: %v", err)
	}
	return r
}

// TestReuseOfTheReportBeingReplaced: --reuse X --report X reuses X (it
// is read before the run replaces it), also through a symbolic link. A
// run interrupted by Ctrl-C replaces X, but what it reused from the
// completed run stays reusable, and the next run reuses it from X.
func TestReuseOfTheReportBeingReplaced(t *testing.T) {
	t.Parallel()
	path := shSpec(t, `[{name: a, stdin: "x", expect: {stdout: {equals: "x"}}}, {name: b, stdin: "y", expect: {stdout: {equals: "y"}}}]`)
	x := filepath.Join(t.TempDir(), "behaves-report.json")
	first := &echoKeyedSandbox{}
	if r := runMain(t, context.Background(), fixed(first), "run", "--spec", path, "--report", x); r.code != ExitTrue || first.ran != 2 {
		t.Fatalf("first run: exit %d, %d runs; want 0 and 2\n%s", r.code, first.ran, r.stderr)
	}
	a := readChecked(t, x)

	again := &echoKeyedSandbox{}
	if r := runMain(t, context.Background(), fixed(again), "run", "--spec", path, "--reuse", x, "--report", x); r.code != ExitTrue {
		t.Fatalf("--reuse X --report X: exit %d, want 0\n%s", r.code, r.stderr)
	}
	b := readChecked(t, x)
	if again.ran != 0 || b.RunID == a.RunID || b.Reuse == nil || b.Reuse.Reused != 2 {
		t.Errorf("--reuse X --report X: %d runs, report of run %s with reuse %+v; want none run, a new report, both reused", again.ran, b.RunID, b.Reuse)
	}

	link := filepath.Join(t.TempDir(), "link.json")
	if err := os.Symlink(x, link); err != nil {
		t.Fatal(err)
	}
	if r := runMain(t, context.Background(), fixed(&echoKeyedSandbox{}), "run", "--spec", path, "--reuse", link, "--report", x); r.code != ExitTrue {
		t.Errorf("--reuse of a symbolic link to a report: exit %d, want 0 (the link is followed)\n%s", r.code, r.stderr)
	}

	// A new case c must run; Ctrl-C interrupts the run while it does.
	grown := strings.Replace(string(mustRead(t, path)), `"y"}}}]}`, `"y"}}}, {name: c, stdin: "z", expect: {stdout: {equals: "z"}}}]}`, 1)
	if err := os.WriteFile(path, []byte(grown), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped := &echoKeyedSandbox{onRun: cancel}
	if r := runMain(t, ctx, fixed(stopped), "run", "--spec", path, "--reuse", x, "--report", x); r.code != ExitRunFailed {
		t.Fatalf("interrupted: exit %d, want %d\n%s", r.code, ExitRunFailed, r.stderr)
	}
	if c := readChecked(t, x); !c.Interrupted && c.Error == "" {
		t.Fatalf("the interrupted run's report says it completed")
	}

	last := &echoKeyedSandbox{}
	if r := runMain(t, context.Background(), fixed(last), "run", "--spec", path, "--reuse", x, "--report", x); r.code != ExitTrue {
		t.Fatalf("after the interrupted run: exit %d, want 0\n%s", r.code, r.stderr)
	}
	d := readChecked(t, x)
	var got []string
	for _, c := range d.Programs[0].Cases {
		switch {
		case c.ReusedFrom != nil:
			got = append(got, c.Name+" from "+c.ReusedFrom.RunID)
		case c.NotReused != nil:
			got = append(got, c.Name+" ran: "+c.NotReused.Reason)
		}
	}
	want := []string{"a from " + a.RunID, "b from " + a.RunID, "c ran: stored run interrupted"}
	if !slices.Equal(got, want) || last.ran != 1 {
		t.Errorf("after the interrupted run: %v (%d runs), want %v (1 run)", got, last.ran, want)
	}
	if len(d.Reuse.Sources) != 1 || d.Reuse.Sources[0].RunID != a.RunID {
		t.Errorf("sources %+v, want only the completed first run", d.Reuse.Sources)
	}
}

// TestReuseOfAFIFORefusedAtOnce: --reuse of a FIFO that no one writes is
// refused without waiting on it (exit 2), and the report path, which held
// an earlier run's report, then holds that refusal.
func TestReuseOfAFIFORefusedAtOnce(t *testing.T) {
	t.Parallel()
	path := shSpec(t, `[{name: a, stdin: "x", expect: {stdout: {equals: "x"}}}]`)
	dir := t.TempDir()
	rep := filepath.Join(dir, "behaves-report.json")
	if r := runMain(t, context.Background(), fixed(&echoKeyedSandbox{}), "run", "--spec", path, "--report", rep); r.code != ExitTrue {
		t.Fatalf("the earlier run: exit %d\n%s", r.code, r.stderr)
	}
	earlier := readChecked(t, rep)
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}

	done := make(chan result, 1)
	sb := &echoKeyedSandbox{}
	go func() {
		done <- runMain(t, context.Background(), fixed(sb), "run", "--spec", path, "--reuse", fifo, "--report", rep)
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(time.Minute): // a hang, not a slow machine
		// Unblock the run's open of the FIFO, so the test ends.
		if f, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
			defer f.Close()
		}
		t.Fatal("behaves run --reuse FIFO blocked on it")
	}
	if r.code != ExitUsage || !strings.Contains(r.stderr, "not a regular file") || !strings.Contains(r.stderr, fifo) {
		t.Errorf("--reuse of a FIFO: exit %d, want %d naming it, not a regular file\n%s", r.code, ExitUsage, r.stderr)
	}
	got := readChecked(t, rep)
	if got.RunID == earlier.RunID || !strings.Contains(got.Error, "nothing ran") || !strings.Contains(got.Error, "not a regular file") || len(got.Programs) != 0 {
		t.Errorf("the report after the refusal: run %s (the earlier %s), error %q, %d programs; want this run's refusal", got.RunID, earlier.RunID, got.Error, len(got.Programs))
	}
	if sb.ran != 0 {
		t.Errorf("%d invocations ran, want none", sb.ran)
	}
}
