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
		nondet    bool
		want      int
	}{
		{verdict.True, false, FailOnUndetermined, false, ExitTrue},
		{verdict.False, false, FailOnUndetermined, false, ExitFalse},
		{verdict.False, false, FailOnFalse, false, ExitFalse},
		{verdict.Undetermined, false, FailOnUndetermined, false, ExitUndetermined},
		{verdict.Undetermined, false, FailOnFalse, false, ExitTrue},
		// A nondeterministic case (some runs true, some false) is undetermined,
		// but --fail-on false does not pass it.
		{verdict.Undetermined, false, FailOnFalse, true, ExitUndetermined},
		{verdict.Undetermined, false, FailOnUndetermined, true, ExitUndetermined},
		{verdict.False, false, FailOnFalse, true, ExitFalse},
		// A failed run is never 0, 1 or 3, whatever the verdict or --fail-on.
		{verdict.True, true, FailOnFalse, false, ExitRunFailed},
		{verdict.False, true, FailOnUndetermined, false, ExitRunFailed},
		{verdict.Undetermined, true, FailOnFalse, false, ExitRunFailed},
	} {
		if got := exitCode(tc.v, tc.runFailed, tc.failOn, tc.nondet); got != tc.want {
			t.Errorf("exitCode(%v, runFailed=%v, %q, nondeterministic=%v) = %d, want %d", tc.v, tc.runFailed, tc.failOn, tc.nondet, got, tc.want)
		}
	}
}
