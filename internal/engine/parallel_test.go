package engine

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
)

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

// A build stage's memory counts towards the default parallelism: a build
// runs in a worker's place.
func TestLargestMemory(t *testing.T) {
	t.Parallel()
	sp := &spec.Spec{Profiles: map[string]spec.Profile{
		"py": {Runtime: runner.Profile{Memory: 128 << 20}},
		"c":  {Runtime: runner.Profile{Memory: 64 << 20, Build: &runner.Build{Memory: 512 << 20}}},
	}}
	if got := largestMemory(sp); got != 512<<20 {
		t.Errorf("largestMemory = %d, want the build's 512MiB", got)
	}
}
