package assemble_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/goldentest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

func TestJSONGolden(t *testing.T) {
	t.Parallel()
	data := reporttest.Encoded(t, reporttest.Report())
	goldentest.Check(t, "report.golden.json", data)

	// The golden file decodes back into the same report.
	var back report.Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, reporttest.Report()) {
		t.Errorf("decoding the report does not give it back")
	}
}

func TestBuildFixture(t *testing.T) {
	t.Parallel()
	r := reporttest.Report()
	if r.Schema != report.Schema || r.Tool.Name != "behaves" || r.SpecFile != "behaves.yml" {
		t.Errorf("schema %q tool %+v spec_file %q", r.Schema, r.Tool, r.SpecFile)
	}
	if r.Verdict != verdict.False {
		t.Errorf("verdict = %v, want false", r.Verdict)
	}
	wantCounts := report.Counts{
		Programs: report.Tally{Total: 4, True: 1, False: 1, Undetermined: 2},
		Cases:    report.Tally{Total: 8, True: 2, False: 2, Undetermined: 4},
	}
	if r.Counts != wantCounts {
		t.Errorf("counts = %+v, want %+v", r.Counts, wantCounts)
	}
	var names []string
	for _, p := range r.Programs {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "fizzbuzz,samples/wrong.py,big-output,missing-image" {
		t.Errorf("program order = %s, want the spec's", got)
	}
	wrong := r.Programs[1].Cases[0]
	if wrong.Expect.Stdout == nil || wrong.Expect.Stdout.Verdict != verdict.False ||
		wrong.Expect.Stdout.Value != "1\n2\nFizz\n4\nBuzz\n" || wrong.Expect.Stdout.Reason != `stdout: expected "1\n2\nFizz\n4\nBuzz", got "1\n2\n3\n4\n5"` {
		t.Errorf("stdout outcome = %+v", wrong.Expect.Stdout)
	}
	if wrong.Line != 14 || wrong.Col != 11 || r.Programs[1].Line != 30 || r.Programs[1].Col != 5 {
		t.Errorf("positions lost: case %d:%d program %d:%d", wrong.Line, wrong.Col, r.Programs[1].Line, r.Programs[1].Col)
	}
	if got, want := r.Programs[0].ProgramSHA256, fmt.Sprintf("%x", sha256.Sum256([]byte("print(1)\n"))); got != want {
		t.Errorf("program_sha256 = %q, want %q", got, want)
	}
	if p := r.Programs[0]; p.DurationMS != 400 {
		t.Errorf("duration from the caller = %d, want 400", p.DurationMS)
	}
	if p := r.Programs[2]; p.DurationMS != 42 {
		t.Errorf("duration summed from events = %d, want 42", p.DurationMS)
	}
	big := r.Programs[2].Cases[0].Event
	if !big.StdoutTruncated || big.StdoutBytes != 1<<20 || big.Stdout != "line 1\nline 2\nline 3\nli" {
		t.Errorf("truncated stream = %+v", big)
	}
}

func TestBuildVerdict(t *testing.T) {
	t.Parallel()
	one := func(vs ...verdict.Verdict) assemble.Input {
		in := assemble.Input{Spec: &spec.Spec{Path: "behaves.yml"}}
		for i, v := range vs {
			p := reporttest.Program(string(rune('a'+i)), "p.py", 1, reporttest.Case("c", 2, verdict.Expectation{}))
			in.Spec.Programs = append(in.Spec.Programs, p)
			in.Programs = append(in.Programs, reporttest.Ran(p, runner.Observation{Acquisition: runner.AcquisitionComplete, Events: []runner.Event{{}}}, 0, verdict.CaseResult{Verdict: v, Reason: "r"}))
		}
		return in
	}
	T, F, U := verdict.True, verdict.False, verdict.Undetermined
	tests := []struct {
		name string
		in   assemble.Input
		want verdict.Verdict
	}{
		{"all true", one(T, T), T},
		{"false dominates", one(T, U, F), F},
		{"undetermined", one(T, U), U},
		{"no programs", one(), U},
		{"no spec", assemble.Input{}, U},
		{"run error", func() assemble.Input { in := one(T); in.Err = reporttest.ErrRun; return in }(), U},
		{"interrupted", func() assemble.Input { in := one(T); in.Interrupted = true; return in }(), U},
		{"false with run error", func() assemble.Input { in := one(F); in.Err = reporttest.ErrRun; return in }(), F},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := assemble.Report(tt.in)
			if r.Verdict != tt.want {
				t.Errorf("verdict = %v, want %v", r.Verdict, tt.want)
			}
			if tt.in.Err != nil && r.Error != tt.in.Err.Error() {
				t.Errorf("error = %q", r.Error)
			}
		})
	}
}

func TestBuildMissingEntries(t *testing.T) {
	t.Parallel()
	// An interrupted run: the second program never started, the first one
	// has an event for its first case only and no verdicts at all.
	pa := reporttest.Program("a", "a.py", 1, reporttest.Case("one", 2, verdict.Expectation{}), reporttest.Case("two", 3, verdict.Expectation{}))
	pb := reporttest.Program("b", "b.py", 4, reporttest.Case("one", 5, verdict.Expectation{Stdout: reporttest.Equals("x")}))
	in := assemble.Input{
		Spec: &spec.Spec{Path: "behaves.yml", Programs: []spec.Program{pa, pb}},
		Programs: []assemble.Program{
			{Spec: pa, Attempt: runner.Observation{Acquisition: runner.AcquisitionPartial}, Cases: []assemble.Case{
				{Spec: pa.Cases[0], Runs: []assemble.RunResult{{Event: runner.Event{SandboxError: "interrupted"}}}},
				{Spec: pa.Cases[1]},
			}},
			{Spec: pb, Cases: []assemble.Case{{Spec: pb.Cases[0]}}},
		},
		Interrupted: true,
	}
	r := assemble.Report(in)
	a, b := r.Programs[0], r.Programs[1]
	// Without a program verdict, the program's is what its cases fold
	// to (the first undetermined case's reason), as Read recomputes it.
	if a.Verdict != verdict.Undetermined || a.Reason != "interrupted" {
		t.Errorf("program a = %v %q", a.Verdict, a.Reason)
	}
	if c := a.Cases[0]; c.Verdict != verdict.Undetermined || c.Reason != "interrupted" {
		t.Errorf("case with a sandbox error = %v %q", c.Verdict, c.Reason)
	}
	if c := a.Cases[1]; c.Verdict != verdict.Undetermined || c.Reason != assemble.ReasonNotRun {
		t.Errorf("case without an event = %v %q", c.Verdict, c.Reason)
	}
	if b.Acquisition != runner.AcquisitionError || !reflect.DeepEqual(b.AcquisitionReasons, []string{assemble.ReasonNotRun}) {
		t.Errorf("program without an observation: %q %q", b.Acquisition, b.AcquisitionReasons)
	}
	if m := b.Cases[0].Expect.Stdout; m == nil || m.Verdict != verdict.Undetermined || m.Value != "x" {
		t.Errorf("unchecked matcher = %+v", m)
	}
	if r.Verdict != verdict.Undetermined || r.Counts.Cases.Undetermined != 3 {
		t.Errorf("verdict %v counts %+v", r.Verdict, r.Counts)
	}
}

func TestBuildDoesNotAlias(t *testing.T) {
	t.Parallel()
	in := reporttest.Input()
	r := assemble.Report(in)
	in.Programs[0].Cases[0].Runs[0].Event.Command[0] = "changed"
	in.Spec.Programs[0].Cases[0].Invocation.Args[0] = "changed"
	if r.Programs[0].Cases[0].Event.Command[0] != "python3" || r.Programs[0].Cases[0].Args[0] != "5" {
		t.Errorf("the report shares slices with its input")
	}
}

// TestRunsCeiling keeps what Read accepts of a case's runs
// (report.MaxRuns) equal to what a spec may ask for (spec.MaxRepeat):
// report cannot import spec, so the two are said apart, and the report
// must read back every case a run assembles, and no more runs than that.
func TestRunsCeiling(t *testing.T) {
	t.Parallel()
	if report.MaxRuns != spec.MaxRepeat {
		t.Errorf("report.MaxRuns = %d, spec.MaxRepeat = %d: a report must hold every run a spec may ask for, and no more", report.MaxRuns, spec.MaxRepeat)
	}
}
