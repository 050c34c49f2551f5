package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// sameAsReport writes, through a Writer, a program with a same_as case
// that differs from its reference (which ran twice, agreeing, on "2 1")
// and a written case, and returns the report's bytes.
func sameAsReport(t *testing.T, max int64) []byte {
	t.Helper()
	sa := &verdict.SameAs{Reference: "ref", Streams: []string{"stdout"}, Normalize: verdict.NormalizeTrailing}
	diff := withStdin(kase("sorted", 12, verdict.Expectation{SameAs: sa}), "2 1\n")
	plain := kase("plain", 16, verdict.Expectation{Stdout: equals("x")})
	sp := &spec.Spec{Path: "behaves.yml", Root: ".", Programs: []spec.Program{prog("cand", "cand.py", 10, diff, plain)}}
	sp.Programs[0].Reference = "ref"

	refs := []runner.Event{event(intp(0), "1 2\n"), event(intp(0), "1 2\n")}
	refs[1].Stderr = runner.Stream{Data: []byte("warn\xff\n"), Bytes: 6}
	cand := event(intp(0), "2 1\n")
	res := verdict.JudgeSameAs(*sa, refs, cand)
	plainEv := event(intp(0), "x\n")
	plainRes := verdict.Judge(plain.Expect, plainEv)

	path := filepath.Join(t.TempDir(), "report.json")
	w, err := NewWriter(path, WriterOptions{MaxSize: max})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.AddCase(0, 0, diff, []RunResult{{Event: cand, Result: res}}, res, refs)
	w.Add(0, 1, plain, []RunResult{{Event: plainEv, Result: plainRes}}, plainRes)
	in := Input{
		Spec: sp,
		Observations: []runner.Observation{{ExecutionID: "55555555-5555-4555-8555-555555555555",
			Acquisition: runner.AcquisitionComplete, Settings: settings}},
		Results:   [][]verdict.CaseResult{{res, plainRes}},
		Programs:  []ProgramResult{{Duration: time.Second}},
		RunID:     "run-0003",
		StartedAt: startedAt,
		Duration:  time.Second,
		Version:   "v0.1.0-test",
	}
	if _, err := w.Commit(Build(in)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSameAsReport guards a same_as case in the report: its reference's
// runs in reference_events with their output (text and base64), the
// expectation the reference stands for (its exit code and output) beside
// same_as, and the report reads back; a written case has neither.
func TestSameAsReport(t *testing.T) {
	t.Parallel()
	r, err := Read(bytes.NewReader(sameAsReport(t, DefaultMaxReportSize)), 1<<20)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	c := r.Programs[0].Cases[0]
	if c.Verdict != verdict.False || !strings.Contains(c.Reason, `not the same as reference "ref"`) {
		t.Errorf("case: %s %q", c.Verdict, c.Reason)
	}
	if len(c.ReferenceEvents) != 2 || string(c.ReferenceEvents[0].StdoutData()) != "1 2\n" ||
		string(c.ReferenceEvents[1].StderrData()) != "warn\xff\n" || c.ReferenceEvents[1].StderrBase64 == "" {
		t.Fatalf("reference_events: %+v", c.ReferenceEvents)
	}
	if string(c.Event.StdoutData()) != "2 1\n" {
		t.Errorf("event stdout %q", c.Event.StdoutData())
	}
	sa := c.Expect.SameAs
	if sa == nil || sa.Reference != "ref" || len(sa.Streams) != 1 || sa.Streams[0] != "stdout" {
		t.Fatalf("expect.same_as: %+v", sa)
	}
	if c.Expect.Stdout == nil || c.Expect.Stdout.Value != "1 2\n" || c.Expect.Stdout.Verdict != verdict.False || c.Expect.Stderr != nil {
		t.Errorf("expect.stdout: %+v", c.Expect.Stdout)
	}
	if p := r.Programs[0].Cases[1]; p.Expect.SameAs != nil || len(p.ReferenceEvents) != 0 {
		t.Errorf("plain case: %+v %d reference events", p.Expect.SameAs, len(p.ReferenceEvents))
	}

	// Under a budget too small for any output, the reference's output is
	// left out with the case's, and the report still reads.
	r, err = Read(bytes.NewReader(sameAsReport(t, 1)), 1<<20)
	if err != nil {
		t.Fatalf("Read of the budgeted report: %v", err)
	}
	for k, e := range r.Programs[0].Cases[0].ReferenceEvents {
		if !e.StdoutOmitted || e.Stdout != "" || e.StdoutSHA256 == "" {
			t.Errorf("reference event %d kept its output under the budget: %+v", k, e)
		}
	}
}

// TestReadReferenceEvents: a report of an earlier behaves (no
// reference_events, no same_as) reads; reference events on a case that is
// not same_as, or a same_as with a stream that is not one, do not.
func TestReadReferenceEvents(t *testing.T) {
	t.Parallel()
	good := sameAsReport(t, DefaultMaxReportSize)
	edit := func(f func(cases []any)) []byte {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		f(m["programs"].([]any)[0].(map[string]any)["cases"].([]any))
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	kases := func(cases []any) (diff, plain map[string]any) {
		return cases[0].(map[string]any), cases[1].(map[string]any)
	}
	// An earlier behaves wrote neither key on its cases, and had no same_as.
	old := edit(func(cases []any) {
		_, plain := kases(cases)
		delete(plain, "reference_events")
		delete(plain["expect"].(map[string]any), "same_as")
	})
	if _, err := Read(bytes.NewReader(old), 1<<20); err != nil {
		t.Errorf("a case without reference_events and same_as: %v", err)
	}
	for name, f := range map[string]func(cases []any){
		"reference events on a plain case": func(cases []any) {
			diff, plain := kases(cases)
			plain["reference_events"] = diff["reference_events"]
		},
		"a stream that is not one": func(cases []any) {
			diff, _ := kases(cases)
			diff["expect"].(map[string]any)["same_as"].(map[string]any)["streams"] = []any{"stdin"}
		},
		"a reference event with a negative size": func(cases []any) {
			diff, _ := kases(cases)
			diff["reference_events"].([]any)[1].(map[string]any)["stdout_bytes"] = -1
		},
	} {
		if _, err := Read(bytes.NewReader(edit(f)), 1<<20); err == nil {
			t.Errorf("%s: Read accepted it", name)
		}
	}
}

// TestSameAsTerminal: the terminal shows a differing same_as case with the
// reference's output as what is expected, next to the candidate's.
func TestSameAsTerminal(t *testing.T) {
	t.Parallel()
	r, err := Read(bytes.NewReader(sameAsReport(t, DefaultMaxReportSize)), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteTerminal(&out, r, TerminalOptions{}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		`same as reference "ref" (2 run(s); the exit code and stdout compared)`,
		"expected:\n       | 1 2\n",
		"actual (4 bytes):\n       | 2 1\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, s)
		}
	}
}

// TestExpectedExitCode: a same_as case whose reference could not answer
// expects no known exit code, and the renderings say so instead of 0.
func TestExpectedExitCode(t *testing.T) {
	t.Parallel()
	c := Case{Expect: Expect{ExitCode: 0, SameAs: &SameAs{Reference: "ref", Streams: []string{"stdout"}}}}
	if got := c.ExpectedExitCode(); got != "the reference's (unknown)" {
		t.Errorf("unanswered same_as: %q", got)
	}
	c.Expect.ExitCode, c.Expect.Stdout = 3, &MatcherOutcome{Kind: verdict.Equals}
	if got := c.ExpectedExitCode(); got != "3" {
		t.Errorf("answered same_as: %q", got)
	}
	if got := (&Case{Expect: Expect{ExitCode: 2}}).ExpectedExitCode(); got != "2" {
		t.Errorf("written: %q", got)
	}
}
