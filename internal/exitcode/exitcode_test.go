package exitcode

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/verdict"
)

func TestOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v         verdict.Verdict
		runFailed bool
		failOn    FailOn
		nondet    bool
		want      int
	}{
		{verdict.True, false, FailOnUndetermined, false, True},
		{verdict.False, false, FailOnUndetermined, false, False},
		{verdict.False, false, FailOnFalse, false, False},
		{verdict.Undetermined, false, FailOnUndetermined, false, Undetermined},
		{verdict.Undetermined, false, FailOnFalse, false, True},
		// A nondeterministic case (some runs true, some false) is undetermined,
		// but --fail-on false does not pass it.
		{verdict.Undetermined, false, FailOnFalse, true, Undetermined},
		{verdict.Undetermined, false, FailOnUndetermined, true, Undetermined},
		{verdict.False, false, FailOnFalse, true, False},
		// A failed run is never 0, 1 or 3, whatever the verdict or --fail-on.
		{verdict.True, true, FailOnFalse, false, RunFailed},
		{verdict.False, true, FailOnUndetermined, false, RunFailed},
		{verdict.Undetermined, true, FailOnFalse, false, RunFailed},
	} {
		if got := Of(tc.v, tc.runFailed, tc.failOn, tc.nondet); got != tc.want {
			t.Errorf("Of(%v, runFailed=%v, %q, nondeterministic=%v) = %d, want %d", tc.v, tc.runFailed, tc.failOn, tc.nondet, got, tc.want)
		}
	}
}
