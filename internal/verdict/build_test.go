package verdict

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/runner"
)

// A case whose program's build failed did not run: false, with the build's
// reason, whatever it expected; a sandbox error still wins (incomplete).
func TestJudgeBuildFailure(t *testing.T) {
	t.Parallel()
	exp := Expectation{ExitCode: 0, Stdout: &Matcher{Kind: Equals, Value: "5", Normalize: NormalizeTrailing}}
	why := "build failed: exit 1: main.c:3: error: x"
	res := Judge(exp, runner.Event{BuildFailure: why})
	if res.Verdict != False || res.Reason != why {
		t.Errorf("Judge = %s (%q), want false (%q)", res.Verdict, res.Reason, why)
	}
	if len(res.Checks) != 2 || res.Checks[0].Verdict != False || res.Checks[1].What != "stdout" {
		t.Errorf("checks %+v, want a false exit code check and the stdout check", res.Checks)
	}
	res = Judge(exp, runner.Event{BuildFailure: why, SandboxError: "interrupted"})
	if res.Verdict != Undetermined {
		t.Errorf("with a sandbox error: %s, want undetermined", res.Verdict)
	}
	if v, _ := Program([]CaseResult{Judge(exp, runner.Event{BuildFailure: why})}); v != False {
		t.Errorf("Program = %s, want false", v)
	}
}
