package assemble_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/goldentest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestRepeatReport guards a case's runs in the report: every run's event
// and verdict in runs[], event the first run's, the nondeterministic case
// undetermined and counted apart, a case that ran once without runs; and
// the golden file reads back.
func TestRepeatReport(t *testing.T) {
	t.Parallel()
	in, _ := reporttest.RepeatInput()
	r := assemble.Report(in)
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
	back, err := reportread.Read(bytes.NewReader(buf.Bytes()), 1<<20)
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
	in, _ := reporttest.RepeatInput()
	want, err := os.ReadFile(filepath.Join("testdata", "report_repeat.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(max int64) []byte {
		t.Helper()
		path := filepath.Join(t.TempDir(), "report.json")
		w, err := assemble.NewWriter(path, reportwrite.Options{MaxSize: max})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		// The run keeps no output once the writer has it.
		if _, err := reporttest.Commit(t, w, assemble.Report(reporttest.AddAll(w, in))); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if got := write(reportwrite.DefaultMaxReportSize); !bytes.Equal(got, want) {
		t.Errorf("the spooled report differs from the encoded one:\n%s", got)
	}

	got := write(1) // no output fits
	r, err := reportread.Read(bytes.NewReader(got), 1<<20)
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

// TestSameAsReport guards a same_as case in the report: its reference's
// runs in reference_events with their output (text and base64), the
// expectation the reference stands for (its exit code and output) beside
// same_as, and the report reads back; a written case has neither.
func TestSameAsReport(t *testing.T) {
	t.Parallel()
	r, err := reportread.Read(bytes.NewReader(reporttest.SameAs(t, reportwrite.DefaultMaxReportSize)), 1<<20)
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
	r, err = reportread.Read(bytes.NewReader(reporttest.SameAs(t, 1)), 1<<20)
	if err != nil {
		t.Fatalf("Read of the budgeted report: %v", err)
	}
	for k, e := range r.Programs[0].Cases[0].ReferenceEvents {
		if !e.StdoutOmitted || e.Stdout != "" || e.StdoutSHA256 == "" {
			t.Errorf("reference event %d kept its output under the budget: %+v", k, e)
		}
	}
}

// TestWriterMatchesEncode guards the spooled report against the in-memory
// one: cases added as they are judged, then assembled from the spool, give
// the same bytes as Encode (the golden file), the spool is gone, and the
// summaries Commit returns cannot be encoded as the report.
func TestWriterMatchesEncode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	w, err := assemble.NewWriter(path, reportwrite.Options{MaxSize: reportwrite.DefaultMaxReportSize})
	if err != nil {
		t.Fatal(err)
	}
	in := reporttest.AddAll(w, reporttest.Input())
	sum, err := reporttest.Commit(t, w, assemble.Report(in))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "report.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the spooled report differs from the encoded one:\n%s", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("folder holds %d entries, want only the report", len(entries))
	}
	// A summary is never written as if it were the evidence.
	if err := report.Encode(&bytes.Buffer{}, sum); err == nil {
		t.Errorf("Encode wrote a report of summaries")
	}
}

// TestCheckedReport guards a checked case's checker runs in the report:
// each with its checker, run, stream, digests and event, its output kept
// as the case's; the spooled report is the encoded one (the golden file);
// it reads back; and under a budget too small for any output, the
// checkers' output is left out with the case's.
func TestCheckedReport(t *testing.T) {
	t.Parallel()
	write := func(max int64) []byte {
		path := filepath.Join(t.TempDir(), "report.json")
		w, err := assemble.NewWriter(path, reportwrite.Options{MaxSize: max})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		in := reporttest.AddAll(w, reporttest.CheckedInput())
		if _, err := reporttest.Commit(t, w, assemble.Report(in)); err != nil {
			t.Fatal(err)
		}
		return reporttest.Written(t, path)
	}
	got := write(reportwrite.DefaultMaxReportSize)
	goldentest.Check(t, "report_checked.golden.json", reporttest.Encoded(t, assemble.Report(reporttest.CheckedInput())))
	if want := reporttest.Encoded(t, assemble.Report(reporttest.CheckedInput())); !bytes.Equal(got, want) {
		t.Errorf("the spooled report differs from the encoded one:\n%s", got)
	}
	r, err := reportread.Read(bytes.NewReader(got), 1<<20)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	cs := r.Programs[0].Cases
	if c := cs[0]; c.Verdict != verdict.Undetermined || !c.Nondeterministic || len(c.CheckerRuns) != 2 ||
		c.Runs[1].Reason != "stdout: checker split: wrong answer 3 is not on a shortest path \ufffd" {
		t.Errorf("paths: %s nondeterministic %v, %d checker runs, run 2 %q", c.Verdict, c.Nondeterministic, len(c.CheckerRuns), c.Runs[1].Reason)
	}
	if cr := cs[0].CheckerRuns[1]; cr.Run != 1 || cr.Stream != "stdout" || cr.Checker != "split" || cr.ProgramSHA256 != reporttest.CheckerDigest ||
		string(cr.Event.StderrData()) != "wrong answer 3 is not on a shortest path \xff\n" || cr.Event.StderrBase64 == "" {
		t.Errorf("paths: checker run 2: %+v", cr)
	}
	if cr := cs[0].CheckerRuns[0]; string(cr.Event.StdoutData()) != "ok 3 nodes\n" {
		t.Errorf("paths: checker run 1's stdout %q", cr.Event.StdoutData())
	}
	if c := cs[1]; c.Verdict != verdict.Undetermined || c.Reason != "stdout: the checker split could not decide: it failed (exit 3): FAIL the answer is not a path" ||
		len(c.CheckerRuns) != 2 || c.CheckerRuns[1].Stream != "stderr" || c.Expect.Stdout.AnswerFile != "answers/1.txt" ||
		c.Expect.Stdout.Checker != "split" || c.Expect.Stdout.Value != "1 2 4\n" || c.Expect.Stderr.Matchers[1].Verdict != verdict.True {
		t.Errorf("both streams: %s %q, %+v", c.Verdict, c.Reason, c.Expect)
	}
	if c := cs[2]; c.Verdict != verdict.Undetermined || len(c.CheckerRuns) != 0 {
		t.Errorf("cut: %s, %d checker runs", c.Verdict, len(c.CheckerRuns))
	}
	if c := cs[3]; c.Verdict != verdict.True || len(c.CheckerRuns) != 0 {
		t.Errorf("plain: %s, %d checker runs", c.Verdict, len(c.CheckerRuns))
	}

	r, err = reportread.Read(bytes.NewReader(write(1)), 1<<20)
	if err != nil {
		t.Fatalf("Read of the budgeted report: %v", err)
	}
	for _, c := range r.Programs[0].Cases {
		for k, cr := range c.CheckerRuns {
			e := cr.Event
			if e.StderrKeptBytes > 0 && (!e.StderrOmitted || e.Stderr != "" || e.StderrBase64 != "") {
				t.Errorf("%s: checker run %d kept its output under the budget: %+v", c.Name, k, e)
			}
		}
	}
}
