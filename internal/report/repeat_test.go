package report_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/goldentest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestRepeatReport guards a case's runs in the report: every run's event
// and verdict in runs[], event the first run's, the nondeterministic case
// undetermined and counted apart, a case that ran once without runs; and
// the golden file reads back.
func TestRepeatReport(t *testing.T) {
	t.Parallel()
	in, _ := reporttest.RepeatInput()
	r := report.Build(in)
	var buf bytes.Buffer
	if err := report.Encode(&buf, r); err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, "report_repeat.golden.json", buf.Bytes())

	cs := r.Programs[0].Cases
	if c := cs[0]; c.Verdict != verdict.Undetermined || !c.Nondeterministic || len(c.Runs) != 3 ||
		!strings.HasPrefix(c.Reason, "nondeterministic: 2 of 3 runs true (run 2 false: ") {
		t.Errorf("parity: %s nondeterministic=%v %d runs %q", c.Verdict, c.Nondeterministic, len(c.Runs), c.Reason)
	}
	if c := cs[0]; c.Runs[1].Verdict != verdict.False || string(c.Runs[1].Event.StdoutData()) != "1\xff\n" ||
		c.Runs[1].Event.StdoutBase64 == "" || string(c.Runs[1].Event.StderrData()) != "odd\n" {
		t.Errorf("parity run 2: %s stdout %q (base64 %q) stderr %q", c.Runs[1].Verdict, c.Runs[1].Event.StdoutData(),
			c.Runs[1].Event.StdoutBase64, c.Runs[1].Event.StderrData())
	}
	if c := cs[1]; c.Verdict != verdict.True || c.Nondeterministic || len(c.Runs) != 2 || c.RunCount() != 2 {
		t.Errorf("steady: %s nondeterministic=%v %d runs", c.Verdict, c.Nondeterministic, len(c.Runs))
	}
	if c := cs[2]; c.Verdict != verdict.True || len(c.Runs) != 0 || c.RunCount() != 1 {
		t.Errorf("once: %s %d runs", c.Verdict, len(c.Runs))
	}
	want := report.Counts{Programs: report.Tally{Total: 1, Undetermined: 1, Nondeterministic: 1},
		Cases: report.Tally{Total: 3, True: 2, Undetermined: 1, Nondeterministic: 1}}
	if r.Counts != want || r.Verdict != verdict.Undetermined {
		t.Errorf("counts %+v verdict %s, want %+v undetermined", r.Counts, r.Verdict, want)
	}
	back, err := report.Read(bytes.NewReader(buf.Bytes()), 1<<20)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if back.Counts != want || !back.Programs[0].Cases[0].Nondeterministic {
		t.Errorf("Read: counts %+v", back.Counts)
	}
}

// TestRepeatWriter guards the spool with runs: cases added with their runs
// as a run goes assemble to the same bytes as Encode, each run's output in
// its own event; and under a budget too small for any output, every run's
// output is left out, not only the first's, and the report still reads.
func TestRepeatWriter(t *testing.T) {
	t.Parallel()
	in, runs := reporttest.RepeatInput()
	want, err := os.ReadFile(filepath.Join("testdata", "report_repeat.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(max int64) []byte {
		t.Helper()
		path := filepath.Join(t.TempDir(), "report.json")
		w, err := report.NewWriter(path, report.WriterOptions{MaxSize: max})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		for j, c := range in.Spec.Programs[0].Cases {
			w.AddCase(0, j, c, runs[j], in.Results[0][j], nil)
		}
		dropped := in
		dropped.Observations = []runner.Observation{in.Observations[0]}
		dropped.Observations[0].Events = nil // the runner kept no output: the writer has it
		dropped.Runs = nil
		if _, err := w.Commit(report.Build(dropped)); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if got := write(report.DefaultMaxReportSize); !bytes.Equal(got, want) {
		t.Errorf("the spooled report differs from the encoded one:\n%s", got)
	}

	got := write(1) // no output fits
	r, err := report.Read(bytes.NewReader(got), 1<<20)
	if err != nil {
		t.Fatalf("Read of the budgeted report: %v", err)
	}
	if r.OutputOmittedCases != 3 {
		t.Errorf("output_omitted_cases = %d, want 3", r.OutputOmittedCases)
	}
	c := r.Programs[0].Cases[0]
	for k, run := range c.Runs {
		e := run.Event
		if !e.StdoutOmitted || e.Stdout != "" || e.StdoutBase64 != "" || e.StdoutKeptBytes == 0 {
			t.Errorf("run %d: stdout omitted=%v %q %q kept %d", k+1, e.StdoutOmitted, e.Stdout, e.StdoutBase64, e.StdoutKeptBytes)
		}
	}
	if !c.Runs[1].Event.StderrOmitted || c.Verdict != verdict.Undetermined || !c.Nondeterministic {
		t.Errorf("run 2 stderr omitted=%v, case %s nondeterministic=%v", c.Runs[1].Event.StderrOmitted, c.Verdict, c.Nondeterministic)
	}
}

// TestRepeatBudgetCountsEveryRun guards the size budget: the extra runs'
// output counts against it. A budget that holds the case with one run's
// output but not with three leaves the repeated case's output out.
func TestRepeatBudgetCountsEveryRun(t *testing.T) {
	t.Parallel()
	in, runs := reporttest.RepeatInput()
	big := strings.Repeat("0", 4000) + "\n"
	for k := range runs[1] {
		runs[1][k].Event.Stdout = runner.Stream{Data: []byte(big), Bytes: int64(len(big))}
	}
	// The steady case's entry is about 6 KiB without output and 17.5 KiB
	// with it (4,001 bytes in event, runs[0] and runs[1]); run once, it is
	// about 6 KiB with its output.
	w, err := report.NewWriter(filepath.Join(t.TempDir(), "r.json"), report.WriterOptions{MaxSize: 14 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.AddCase(0, 1, in.Spec.Programs[0].Cases[1], runs[1], in.Results[0][1], nil)
	if w.Omitted() != 1 || w.Used() > 14<<10 {
		t.Errorf("omitted %d cases, used %d bytes; want the case left out within the budget", w.Omitted(), w.Used())
	}
	single, err := report.NewWriter(filepath.Join(t.TempDir(), "r.json"), report.WriterOptions{MaxSize: 14 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer single.Close()
	single.AddCase(0, 1, in.Spec.Programs[0].Cases[1], runs[1][:1], in.Results[0][1], nil)
	if single.Omitted() != 0 {
		t.Errorf("one run's output was left out too (used %d): the budget is too small for this test", single.Used())
	}
}

// TestReadRefusesRunForgery guards Read against edited runs: each edit of
// the repeat golden report must be refused, and a report of an earlier
// behaves (no runs, no nondeterministic) still reads.
func TestReadRefusesRunForgery(t *testing.T) {
	t.Parallel()
	golden, err := os.ReadFile("testdata/report_repeat.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	kase := func(m map[string]any, j int) map[string]any {
		return m["programs"].([]any)[0].(map[string]any)["cases"].([]any)[j].(map[string]any)
	}
	run := func(m map[string]any, j, k int) map[string]any { return kase(m, j)["runs"].([]any)[k].(map[string]any) }
	tests := []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"case made true, runs left", func(m map[string]any) {
			c := kase(m, 0)
			c["verdict"], c["nondeterministic"] = "true", false
		}, "is not what its 3 runs fold to"},
		{"nondeterministic dropped", func(m map[string]any) { kase(m, 0)["nondeterministic"] = false }, "is not what its 3 runs fold to"},
		{"a false run made true", func(m map[string]any) { run(m, 0, 1)["verdict"] = "true" }, "is not what its 3 runs fold to"},
		{"runs dropped", func(m map[string]any) { kase(m, 0)["runs"] = []any{} }, "nondeterministic without runs"},
		{"one run", func(m map[string]any) { kase(m, 1)["runs"] = kase(m, 1)["runs"].([]any)[:1] }, "one run in runs"},
		{"first run is not the event", func(m map[string]any) { run(m, 0, 0)["event"].(map[string]any)["duration_ms"] = 7.0 }, "runs[0].event"},
		{"a run's output rewritten", func(m map[string]any) {
			e := run(m, 0, 1)["event"].(map[string]any)
			e["stdout"], e["stdout_base64"] = "4\n", ""
		}, "run 2: stdout holds 2 bytes, but stdout_kept_bytes says 3: the report was damaged"},
		{"run with a bad limit", func(m map[string]any) { run(m, 0, 2)["event"].(map[string]any)["resource_limit"] = "x" }, "run 3: unknown resource_limit"},
		{"nondeterministic count", func(m map[string]any) {
			m["counts"].(map[string]any)["cases"].(map[string]any)["nondeterministic"] = 0.0
		}, "counts"},
		{"nondeterministic on a case that ran once", func(m map[string]any) {
			kase(m, 2)["nondeterministic"] = true
		}, "nondeterministic without runs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var m map[string]any
			if err := json.Unmarshal(golden, &m); err != nil {
				t.Fatal(err)
			}
			tt.edit(m)
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := report.Read(bytes.NewReader(b), 1<<20); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Read = %v, want an error containing %q", err, tt.want)
			}
		})
	}

	// An earlier behaves wrote neither runs nor nondeterministic.
	old, err := os.ReadFile("testdata/report.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(old, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"programs", "cases"} {
		delete(m["counts"].(map[string]any)[k].(map[string]any), "nondeterministic")
	}
	for _, p := range m["programs"].([]any) {
		for _, c := range p.(map[string]any)["cases"].([]any) {
			delete(c.(map[string]any), "runs")
			delete(c.(map[string]any), "nondeterministic")
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := report.Read(bytes.NewReader(b), 1<<20); err != nil || r.Verdict != verdict.False {
		t.Errorf("Read of a report without runs = %v, %v; want false, nil", r.Verdict, err)
	}
}
