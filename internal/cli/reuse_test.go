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
		NetworkFiles: p.NetworkFiles.OrDefault(), TmpfsBytes: maps.Clone(p.Tmpfs)}
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
		ProgramSHA256: report.ProgramDigest(a.req.Program),
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
	r, err := report.ReadFile(path, 64<<20)
	if err != nil {
		t.Fatalf("the report does not read back: %v", err)
	}
	return r
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
