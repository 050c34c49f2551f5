package cli

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/ghlimits"
	gh "github.com/behaves-dev/behaves/internal/publish/github"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// manySpec is a spec of programs programs with cases cases each, all false
// under exitOne (they expect exit 0).
func manySpec(programs, cases int) map[string]string {
	var sb strings.Builder
	sb.WriteString("version: 1\nprofiles:\n  sh: {image: \"" + testImage + "\", command: [\"/bin/sh\"]}\nprograms:\n")
	for p := range programs {
		fmt.Fprintf(&sb, "  - {name: p%d, file: gen/prog.sh, profile: sh, cases: [", p)
		for c := range cases {
			if c > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "{name: c%d}", c)
		}
		sb.WriteString("]}\n")
	}
	return map[string]string{"behaves.yml": sb.String(), "gen/prog.sh": "exit 1\n"}
}

// manyCasesReport writes the report of a run of the spec in ws, every case
// of which exited 1 in 1ms with no output, and returns its path. It is made
// as run makes one (spec.Load, verdict.Judge, assemble.Report), without the
// run engine, whose spooling of one file a case would take most of the
// test's time; it is this emulated run's (emuRunID, on emuHeadSHA).
func manyCasesReport(t *testing.T, ws string) string {
	t.Helper()
	sp, err := spec.Load(filepath.Join(ws, "behaves.yml"), spec.Options{Ceilings: spec.Ceilings{MaxCases: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	one := 1
	in := assemble.Input{Spec: sp, RunID: "0123456789abcdef", StartedAt: time.Unix(1700000000, 0).UTC(), Duration: time.Minute,
		Version: version(), GitHub: report.GitHub{RunID: emuRunID, RunAttempt: "1", Repository: "octo/repo",
			EventName: "pull_request", SHA: "3333333333333333333333333333333333333333", HeadSHA: emuHeadSHA}}
	for _, p := range sp.Programs {
		obs := runner.Observation{Acquisition: runner.AcquisitionComplete}
		var results []verdict.CaseResult
		for _, c := range p.Cases {
			ev := runner.Event{ExitCode: &one, Duration: time.Millisecond}
			obs.Events = append(obs.Events, ev)
			results = append(results, verdict.Judge(c.Expect, ev))
		}
		in.Programs = append(in.Programs, reporttest.Ran(p, obs, time.Duration(len(p.Cases))*time.Millisecond, results...))
	}
	path := filepath.Join(t.TempDir(), "behaves-report.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Encode(f, assemble.Report(in)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	reporttest.Written(t, path)
	return path
}

// TestCheckRunRequestCeiling guards the check run's request ceiling: a
// report of 50,000 false cases, made as behaves run makes one and published
// by behaves publish, takes at most 25 check-run requests (it took 1,010
// when every annotation was sent), and the check run's summary, the job
// summary and the log say how many annotations were not sent.
func TestCheckRunRequestCeiling(t *testing.T) {
	t.Parallel()
	const programs, cases = 500, 100
	ws := workspaceRepo(t, manySpec(programs, cases))
	e := newEmulatedRunner(t, ws, "pull_request")
	reportPath := manyCasesReport(t, ws)
	r := e.main(t, Env{}, nil, "publish", "--report", reportPath, "--check-run", "--comment", "off")
	if r.code != ExitFalse {
		t.Fatalf("publish: exit %d, want %d\n%s", r.code, ExitFalse, r.stdout)
	}

	// The ceiling is the one docs/security.md promises, not the package's constant: one
	// create and 24 updates.
	const maxRequests = 25
	// Every false program and every false case is an annotation.
	const all = programs + programs*cases
	notSent := all - maxRequests*gh.MaxAnnotationsPerRequest
	_, writes := e.gh.snapshot()
	checkRequests := 0
	for _, w := range writes {
		if strings.HasPrefix(w.Path, "/repos/octo/repo/check-runs") {
			checkRequests++
		}
	}
	if checkRequests > maxRequests || checkRequests != len(writes) {
		t.Errorf("%d check-run requests of %d writes, want at most %d and nothing else", checkRequests, len(writes), maxRequests)
	}
	e.gh.mu.Lock()
	defer e.gh.mu.Unlock()
	sent := 0
	for _, n := range e.gh.batches {
		sent += n
	}
	if want := maxRequests * gh.MaxAnnotationsPerRequest; sent != want {
		t.Errorf("%d annotations sent, want %d (the ceiling, in full batches)", sent, want)
	}
	if len(e.gh.checkRuns) != 1 {
		t.Fatalf("%d check runs created, want 1", len(e.gh.checkRuns))
	}
	out, _ := e.gh.checkRuns[0]["output"].(map[string]any)
	summary, _ := out["summary"].(string)
	if len(summary) > ghlimits.CheckRunSummaryBytes {
		t.Errorf("the check run's summary has %d bytes, above %d", len(summary), ghlimits.CheckRunSummaryBytes)
	}
	// GitHub renders the summaries: the numbers as the markdown has them.
	want := fmt.Sprintf("%d of the %d annotations were not sent to the check run", notSent, all)
	if !strings.Contains(summary, want) {
		t.Errorf("the check run's summary does not say %q:\n%s", want, tail(summary))
	}
	if job := e.file(t, "step_summary"); !strings.Contains(job, want) {
		t.Errorf("the job summary does not say %q:\n%s", want, tail(job))
	}
	if want := fmt.Sprintf("%d not sent", notSent); !strings.Contains(r.stdout, want) {
		t.Errorf("the log does not say %q:\n%s", want, tail(r.stdout))
	}
	for _, w := range writes {
		if w.Method == http.MethodPatch && !strings.HasSuffix(w.Path, "/check-runs/1") {
			t.Errorf("update of %s, want check run 1", w.Path)
		}
	}
}

// tail is the end of a long text, for a failure message.
func tail(s string) string {
	if len(s) > 2000 {
		return "…" + s[len(s)-2000:]
	}
	return s
}

// A report whose spec lies outside the repository (spec_file "../…", as
// a report from elsewhere may say) gives annotations on no file. The
// Checks API refuses a whole check run for one of them, so they are left
// out of it, and the log says so; the check run is still created.
func TestCheckRunLeavesOutAnnotationsOnNoFile(t *testing.T) {
	t.Parallel()
	ws := workspaceRepo(t, manySpec(1, 3))
	rep, err := reporttest.ReadFile(t, manyCasesReport(t, ws), DefaultMaxReadReport)
	if err != nil {
		t.Fatal(err)
	}
	rep.SpecFile = "../elsewhere/behaves.yml"
	reportPath := filepath.Join(t.TempDir(), "behaves-report.json")
	f, err := os.Create(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Encode(f, rep); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	reporttest.Written(t, reportPath)
	e := newEmulatedRunner(t, ws, "pull_request")
	r := e.main(t, Env{}, nil, "publish", "--report", reportPath, "--check-run", "--comment", "off")
	if r.code != ExitFalse {
		t.Fatalf("exit %d, want %d\n%s\n%s", r.code, ExitFalse, r.stdout, r.stderr)
	}
	e.gh.mu.Lock()
	defer e.gh.mu.Unlock()
	if len(e.gh.checkRuns) != 1 {
		t.Fatalf("%d check runs created, want 1\n%s", len(e.gh.checkRuns), r.stdout)
	}
	if !strings.Contains(r.stdout, "3 on no file of the repository left out") {
		t.Errorf("the log does not say the annotations on no file were left out:\n%s", r.stdout)
	}
}
