package junit

import (
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/reporttest"
)

// TestCheckerRuns: a checked case's text names its checker and, under
// the matcher, what the checker did on each run, its first line included.
func TestCheckerRuns(t *testing.T) {
	t.Parallel()
	out := string(render(t, roundTrip(t, assemble.Report(reporttest.CheckedInput())), Options{}))
	for _, want := range []string{
		"(checker split)",
		"checker split on stdout of run 1: exit 0: ok 3 nodes",
		"checker split on stdout of run 2: exit 1: wrong answer 3 is not on a shortest path \ufffd",
		"checker split on stdout of run 1: exit 3: FAIL the answer is not a path",
		"(checker split, answer from answers/1.txt)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the JUnit text lacks %q:\n%s", want, out)
		}
	}
}
