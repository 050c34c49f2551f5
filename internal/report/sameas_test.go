package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestSameAsReport guards a same_as case in the report: its reference's
// runs in reference_events with their output (text and base64), the
// expectation the reference stands for (its exit code and output) beside
// same_as, and the report reads back; a written case has neither.
func TestSameAsReport(t *testing.T) {
	t.Parallel()
	r, err := report.Read(bytes.NewReader(reporttest.SameAs(t, report.DefaultMaxReportSize)), 1<<20)
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
	r, err = report.Read(bytes.NewReader(reporttest.SameAs(t, 1)), 1<<20)
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
	good := reporttest.SameAs(t, report.DefaultMaxReportSize)
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
	if _, err := report.Read(bytes.NewReader(old), 1<<20); err != nil {
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
		if _, err := report.Read(bytes.NewReader(edit(f)), 1<<20); err == nil {
			t.Errorf("%s: Read accepted it", name)
		}
	}
}

// TestExpectedExitCode: a same_as case whose reference could not answer
// expects no known exit code, and the renderings say so instead of 0.
func TestExpectedExitCode(t *testing.T) {
	t.Parallel()
	c := report.Case{Expect: report.Expect{ExitCode: 0, SameAs: &report.SameAs{Reference: "ref", Streams: []string{"stdout"}}}}
	if got := c.ExpectedExitCode(); got != "the reference's (unknown)" {
		t.Errorf("unanswered same_as: %q", got)
	}
	c.Expect.ExitCode, c.Expect.Stdout = 3, &report.MatcherOutcome{Kind: verdict.Equals}
	if got := c.ExpectedExitCode(); got != "3" {
		t.Errorf("answered same_as: %q", got)
	}
	if got := (&report.Case{Expect: report.Expect{ExitCode: 2}}).ExpectedExitCode(); got != "2" {
		t.Errorf("written: %q", got)
	}
}
