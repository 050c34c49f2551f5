package engine

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/publish"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/reuse"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/terminal"
)

// provenanceRun runs sp as behaves run does under Actions run ghRun (its
// report's github block), with the stored reports at reusePaths, writes
// its report through the report writer, reads it back checked and
// returns its path. A cancelled ctx interrupts it.
func provenanceRun(t *testing.T, ctx context.Context, sp *spec.Spec, runID, ghRun string, reusePaths ...string) (string, report.Report) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.json")
	w, err := assemble.NewWriter(path, reportwrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	opt := Options{RunID: runID, StartedAt: time.Now().UTC().Truncate(time.Second), Cleanup: context.Background(),
		GitHub: report.GitHub{RunID: ghRun, RunAttempt: "1", Repository: "owner/repo", EventName: "push",
			SHA: strings.Repeat(ghRun[:1], 40), HeadSHA: strings.Repeat(ghRun[:1], 40)}}
	if len(reusePaths) > 0 {
		if opt.Reuse, err = reuse.Load(reusePaths, 64<<20); err != nil {
			t.Fatal(err)
		}
	}
	out := NewPlan(sp, Selection{}, 2).Run(ctx, &scriptSandbox{}, opt, w)
	if _, err := reporttest.Commit(t, w, out.Report); err != nil {
		t.Fatal(err)
	}
	rep, err := reporttest.ReadFile(t, path, 64<<20)
	if err != nil {
		t.Fatalf("run %s: the report does not read back: %v", runID, err)
	}
	return path, rep
}

// sourceOf is the run r's reuse block lists as runID (nil when none).
func sourceOf(r report.Report, runID string) *report.ReuseSource {
	if r.Reuse == nil {
		return nil
	}
	for i, s := range r.Reuse.Sources {
		if s.RunID == runID {
			return &r.Reuse.Sources[i]
		}
	}
	return nil
}

// sourceIDs are the run IDs r's reuse block lists, in order.
func sourceIDs(r report.Report) []string {
	var out []string
	for _, s := range r.Reuse.Sources {
		out = append(out, s.RunID)
	}
	return out
}

// TestReuseChainNamesTheOriginalRun: A ran everything, B reused A's
// evidence, C reused B's. C's cases name A, and C's sources list A with
// its own start, commit and Actions run (first: the terminal and the
// summary name the first), then B, the report C was given.
func TestReuseChainNamesTheOriginalRun(t *testing.T) {
	sp := loadSpec(t, testSpec, testFiles)
	pathA, a := provenanceRun(t, t.Context(), sp, "run-a", "111")
	pathB, b := provenanceRun(t, t.Context(), sp, "run-b", "222", pathA)
	_, c := provenanceRun(t, t.Context(), sp, "run-c", "333", pathB)

	want := []string{"ref/shout from run-a", "echo/plain from run-a", "echo/differs from run-a", "coin/heads ran: " + reuse.ReasonUndecided}
	if got := reused(c); !slices.Equal(got, want) {
		t.Errorf("C: %v, want %v", got, want)
	}
	if got := sourceIDs(c); !slices.Equal(got, []string{"run-a", "run-b"}) {
		t.Errorf("C's sources %v, want run-a (where its evidence came from), then run-b (the report it was given)", got)
	}
	wantA := report.ReuseSource{RunID: a.RunID, StartedAt: a.StartedAt, GitHub: a.GitHub}
	if got := sourceOf(c, "run-a"); got == nil || !got.StartedAt.Equal(wantA.StartedAt) || got.GitHub != wantA.GitHub {
		t.Errorf("C's source run-a is %+v, want A's own %+v", got, wantA)
	}
	if got := sourceOf(b, "run-a"); got == nil || got.GitHub != a.GitHub {
		t.Errorf("B's source run-a is %+v, want A's %+v", got, a.GitHub)
	}

	// The terminal and the job summary name A, its commit and its
	// Actions run.
	var term bytes.Buffer
	if err := terminal.Write(&term, c, terminal.Options{}); err != nil {
		t.Fatal(err)
	}
	if want := "reused 3 of 7 invocations from run run-a (commit 1111111, Actions run 111) +1 more"; !strings.Contains(term.String(), want) {
		t.Errorf("the terminal does not say %q:\n%s", want, term.String())
	}
	if sum, want := publish.Summary(c, publish.Options{}), "from run `run-a` (commit `1111111`, Actions run `111`) and 1 more run"; !strings.Contains(sum, want) {
		t.Errorf("the summary does not say %q:\n%s", want, sum)
	}
}

// TestReuseOfAnInterruptedRunKeepsWhatItReused: a run interrupted (or
// failed) holds cases it reused from a completed run; those stay
// reusable, naming that run. What the interrupted run ran itself is not
// reused, and it is not among the next run's sources.
func TestReuseOfAnInterruptedRunKeepsWhatItReused(t *testing.T) {
	sp := loadSpec(t, testSpec, testFiles)
	pathA, _ := provenanceRun(t, t.Context(), sp, "run-a", "111")

	// B: interrupted before anything ran; ref and echo were reused from A
	// first, coin (undetermined in A) never ran.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	pathB, b := provenanceRun(t, ctx, sp, "run-b", "222", pathA)
	if !b.Interrupted {
		t.Fatal("B was not interrupted")
	}
	if got := reused(b)[:3]; !slices.Equal(got, []string{"ref/shout from run-a", "echo/plain from run-a", "echo/differs from run-a"}) {
		t.Fatalf("B: %v, want ref and echo reused from run-a", got)
	}

	_, c := provenanceRun(t, t.Context(), sp, "run-c", "333", pathB)
	want := []string{"ref/shout from run-a", "echo/plain from run-a", "echo/differs from run-a", "coin/heads ran: " + reuse.ReasonInterrupted}
	if got := reused(c); !slices.Equal(got, want) {
		t.Errorf("C: %v, want %v", got, want)
	}
	if got := sourceIDs(c); !slices.Equal(got, []string{"run-a"}) {
		t.Errorf("C's sources %v, want only run-a (B was interrupted: none of its own evidence answers anything)", got)
	}
	if d := c.Programs[2].Cases[0].NotReused.Detail; !strings.Contains(d, "only the cases it reused from a completed run are reused") {
		t.Errorf("coin/heads's detail %q does not say what of B is reused", d)
	}

	// A run that completed, marked interrupted (as Read would take it):
	// nothing it ran itself is reused.
	data, err := os.ReadFile(pathA)
	if err != nil {
		t.Fatal(err)
	}
	stopped, err := reportread.Read(bytes.NewReader(data), 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	stopped.Interrupted = true
	stopped = report.Folded(stopped, nil)
	pathStopped := filepath.Join(t.TempDir(), "stopped.json")
	if err := reportwrite.WriteJSON(pathStopped, stopped); err != nil {
		t.Fatal(err)
	}
	reporttest.Written(t, pathStopped)
	_, d := provenanceRun(t, t.Context(), sp, "run-d", "444", pathStopped)
	for _, got := range reused(d) {
		if !strings.HasSuffix(got, " ran: "+reuse.ReasonInterrupted) {
			t.Errorf("D, given an interrupted report of what its run ran: %s, want it run for %q", got, reuse.ReasonInterrupted)
		}
	}
	if got := sourceIDs(d); len(got) != 0 {
		t.Errorf("D's sources %v, want none: the interrupted run answered nothing", got)
	}
}

// TestReuseOfAnEarlyInterruptedRunKeepsAPartlyReusedProgram: a run
// interrupted before a program's container started, with some of that
// program's cases reused, records the stored attempt's settings for the
// program (its reused cases' key held them equal to the spec's), so the
// next run reuses those cases again.
func TestReuseOfAnEarlyInterruptedRunKeepsAPartlyReusedProgram(t *testing.T) {
	sp := loadSpec(t, testSpec, testFiles)
	pathA, _ := provenanceRun(t, t.Context(), sp, "run-a", "111")

	withNew := strings.Replace(testSpec, `      - {name: differs,`, `      - {name: new, stdin: "new", expect: {stdout: {equals: "new"}}}
      - {name: differs,`, 1)
	spB := loadSpec(t, withNew, testFiles)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	pathB, b := provenanceRun(t, ctx, spB, "run-b", "222", pathA)
	if !b.Interrupted {
		t.Fatal("B was not interrupted")
	}
	echo := b.Programs[1]
	if echo.Settings.Applied.Image == "" || echo.Settings.ImageID == "" {
		t.Fatalf("B's echo (partly reused, interrupted before it ran) records no settings: %+v", echo.Settings)
	}

	_, c := provenanceRun(t, t.Context(), spB, "run-c", "333", pathB)
	want := []string{"ref/shout from run-a", "echo/plain from run-a", "echo/new ran: " + reuse.ReasonInterrupted, "echo/differs from run-a", "coin/heads ran: " + reuse.ReasonInterrupted}
	if got := reused(c); !slices.Equal(got, want) {
		t.Errorf("C: %v, want %v", got, want)
	}
}
