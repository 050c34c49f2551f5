package publish

import (
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/reporttest"
)

// TestCheckerCase: the summary names a checked stream's checker, gives
// its reason and calls the answer what it is.
func TestCheckerCase(t *testing.T) {
	t.Parallel()
	out := Summary(assemble.Report(reporttest.CheckedInput()), Options{})
	for _, want := range []string{"checker split, answer from answers/1.txt", "FAIL the answer is not a path", "answer:\n\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
}
