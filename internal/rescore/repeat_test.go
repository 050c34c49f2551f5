package rescore

import (
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// repeated is testSpec(want) with case "two" repeated three times.
func repeated(want string) *spec.Spec {
	sp := testSpec(want)
	sp.Programs[0].Cases[0].Repeat = 3
	return sp
}

// storedRepeat is the report of a run of repeated("4") in which case "two"
// printed 4, 5 and 4: nondeterministic.
func storedRepeat() report.Report {
	sp := repeated("4")
	p := sp.Programs[0]
	var runs []assemble.RunResult
	var rs []verdict.CaseResult
	for _, out := range []string{"4\n", "5\n", "4\n"} {
		ev := event(sp, p.Cases[0], out)
		res := verdict.Judge(p.Cases[0].Expect, ev)
		runs, rs = append(runs, assemble.RunResult{Event: ev, Result: res}), append(rs, res)
	}
	other := event(sp, p.Cases[1], "6\n")
	res := []verdict.CaseResult{verdict.Fold(rs).CaseResult, verdict.Judge(p.Cases[1].Expect, other)}
	rec := reporttest.Ran(p, runner.Observation{ExecutionID: "exec-2", Acquisition: runner.AcquisitionComplete,
		Events: []runner.Event{runs[0].Event, other},
		Settings: runner.Settings{Image: profile.Image, ImageID: profile.Image, User: profile.User, Env: []string{"LANG=C.UTF-8"},
			TmpfsBytes: map[string]int64{"/tmp": 1 << 20}, Applied: runner.Apply(sp.Job(p).Profile)}}, 0, res...)
	rec.Cases[0].Runs = runs
	return assemble.Report(assemble.Input{Spec: sp, Programs: []assemble.Program{rec}, RunID: "run-2"})
}

// TestMatchJudgesEveryRun: rescoring judges every stored run of a
// repeated case against the new expectation and folds them.
func TestMatchJudgesEveryRun(t *testing.T) {
	t.Parallel()
	old := storedRepeat()
	if c := old.Programs[0].Cases[0]; !c.Nondeterministic || len(c.Runs) != 3 {
		t.Fatalf("stored case: nondeterministic=%v, %d runs", c.Nondeterministic, len(c.Runs))
	}
	for _, tt := range []struct {
		want    string
		verdict verdict.Verdict
		runs    []verdict.Verdict
		reason  string
	}{
		{"4", verdict.Undetermined, []verdict.Verdict{verdict.True, verdict.False, verdict.True}, "nondeterministic: 2 of 3 runs true"},
		{"5", verdict.Undetermined, []verdict.Verdict{verdict.False, verdict.True, verdict.False}, "nondeterministic: 1 of 3 runs true"},
		{"6", verdict.False, []verdict.Verdict{verdict.False, verdict.False, verdict.False}, `run 1 of 3: stdout: expected "6", got "4"`},
	} {
		ev, errs := Match(repeated(tt.want), old, "old.json")
		if errs != nil {
			t.Fatalf("Match: %v", errs)
		}
		got := ev[0].Cases[0].Result
		if got.Verdict != tt.verdict || !strings.HasPrefix(got.Reason, tt.reason) || len(ev[0].Cases[0].Runs) != 3 {
			t.Errorf("expect %s: %s %q (%d runs), want %s %q", tt.want, got.Verdict, got.Reason, len(ev[0].Cases[0].Runs), tt.verdict, tt.reason)
			continue
		}
		for r, want := range tt.runs {
			if v := ev[0].Cases[0].Runs[r].Result.Verdict; v != want {
				t.Errorf("expect %s: run %d %s, want %s", tt.want, r+1, v, want)
			}
		}
		if n := len(ev[0].Cases[1].Runs); n != 1 {
			t.Errorf("the case that ran once got %d runs", n)
		}
	}
}

// TestMatchRefusesRepeat: a stored case must hold as many runs as the
// spec's repeat asks for now, else an error at the case's position.
func TestMatchRefusesRepeat(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		sp   *spec.Spec
		old  report.Report
		want string
	}{
		{"fewer runs now", func() *spec.Spec { sp := repeated("4"); sp.Programs[0].Cases[0].Repeat = 2; return sp }(), storedRepeat(),
			`case "two" of program "double": repeat is 2, the stored case ran 3 times: run it again`},
		{"more runs now", repeated("4"), stored(), `case "two" of program "double": repeat is 3, the stored case ran 1 time: run it again`},
		{"repeat dropped", testSpec("4"), storedRepeat(), "repeat is 1, the stored case ran 3 times"},
	} {
		ev, errs := Match(tt.sp, tt.old, "old.json")
		if ev != nil || len(errs) != 1 || errs[0].Pos.Line != 14 || !strings.Contains(errs[0].Msg, tt.want) {
			t.Errorf("%s: Match = %v, %v; want one error at line 14 containing %q", tt.name, ev, errs, tt.want)
		}
	}
}
