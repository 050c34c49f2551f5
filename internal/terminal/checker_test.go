package terminal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/reporttest"
)

// TestCheckerCase: a checked stream names its checker and where its
// answer came from, calls the answer what it is, and gives the checker's
// reason.
func TestCheckerCase(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := Write(&buf, assemble.Report(reporttest.CheckedInput()), Options{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"stdout (checker split, answer from answers/1.txt) → undetermined: the checker split could not decide: it failed (exit 3): FAIL the answer is not a path",
		"answer:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, out)
		}
	}
}
