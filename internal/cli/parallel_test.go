package cli

import "testing"

func TestFitParallel(t *testing.T) {
	t.Parallel()
	const gib = 1 << 30
	for _, tc := range []struct {
		cpus             int
		available, limit int64
		want             int
	}{
		{4, 16 * gib, gib, 4}, // memory is plenty: the CPUs decide
		{8, 4 * gib, gib, 2},  // half of 4 GiB fits two 1 GiB limits
		{8, gib, 4 * gib, 1},  // never below one
		{0, 0, 0, 1},          // nothing known: one
		{3, 0, gib, 3},        // available unknown: the CPUs decide
	} {
		if got := fitParallel(tc.cpus, tc.available, tc.limit); got != tc.want {
			t.Errorf("fitParallel(%d, %d, %d) = %d, want %d", tc.cpus, tc.available, tc.limit, got, tc.want)
		}
	}
}
