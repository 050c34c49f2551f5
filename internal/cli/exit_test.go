package cli

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/verdict"
)

func TestExitCode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v         verdict.Verdict
		runFailed bool
		failOn    FailOn
		want      int
	}{
		{verdict.True, false, FailOnUndetermined, ExitTrue},
		{verdict.False, false, FailOnUndetermined, ExitFalse},
		{verdict.False, false, FailOnFalse, ExitFalse},
		{verdict.Undetermined, false, FailOnUndetermined, ExitUndetermined},
		{verdict.Undetermined, false, FailOnFalse, ExitTrue},
		// A failed run is never 0, 1 or 3, whatever the verdict or --fail-on.
		{verdict.True, true, FailOnFalse, ExitRunFailed},
		{verdict.False, true, FailOnUndetermined, ExitRunFailed},
		{verdict.Undetermined, true, FailOnFalse, ExitRunFailed},
	} {
		if got := exitCode(tc.v, tc.runFailed, tc.failOn); got != tc.want {
			t.Errorf("exitCode(%v, runFailed=%v, %q) = %d, want %d", tc.v, tc.runFailed, tc.failOn, got, tc.want)
		}
	}
}
