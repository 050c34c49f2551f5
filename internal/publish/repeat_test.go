package publish

import (
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestSummaryNondeterministic guards that the summary, the comment and the
// headline count nondeterministic cases apart from the other undetermined
// ones, and that a case's block lists its runs.
func TestSummaryNondeterministic(t *testing.T) {
	t.Parallel()
	c := kase("parity", 14, verdict.Undetermined, `nondeterministic: 2 of 3 runs true (run 2 false: stdout: expected "0", got "1")`, intp(0), "0", "0\n", "")
	c.Nondeterministic = true
	odd := c.Event
	odd.Stdout = "1\n"
	c.Runs = []report.Run{
		{Verdict: verdict.True, Event: c.Event},
		{Verdict: verdict.False, Reason: `stdout: expected "0", got "1"`, Event: odd},
		{Verdict: verdict.True, Event: c.Event},
	}
	r := finish(report.Report{Verdict: verdict.Undetermined, Programs: []report.Program{program("coin", "coin.py", 10, c)}})
	r.Counts.Programs.Nondeterministic, r.Counts.Cases.Nondeterministic = 1, 1
	if h := Headline(r); h != "0 of 1 program false, 1 undetermined (1 nondeterministic)" {
		t.Errorf("headline %q", h)
	}
	for name, text := range map[string]string{"summary": Summary(r, Options{}), "comment": Comment(r, Options{})} {
		for _, want := range []string{
			"1 case: 0 true, 0 false, 1 undetermined (1 nondeterministic)",
			"- runs: 3 (2 true, 1 false, 0 undetermined); the exit code and output shown are run 1's",
			"  - run 2: ❌ false: `stdout: expected \"0\", got \"1\"`",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("the %s lacks %q:\n%s", name, want, text)
			}
		}
	}
}
