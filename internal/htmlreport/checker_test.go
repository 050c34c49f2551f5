package htmlreport

import (
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/reporttest"
)

// TestCheckerRunsShown: next to a checked stream, the page names the
// answer as what the checker was given, and says what the checker did on
// each run, its first line included.
func TestCheckerRunsShown(t *testing.T) {
	t.Parallel()
	page := renderString(t, roundTrip(t, assemble.Report(reporttest.CheckedInput())), Limits{})
	for _, want := range []string{
		"answer (given to the checker)",
		"checker split on stdout of run 2: exit 1: wrong answer 3 is not on a shortest path \ufffd",
		"checker split on stdout of run 1: exit 3: FAIL the answer is not a path",
		"checker split on stderr of run 1: exit 0",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
