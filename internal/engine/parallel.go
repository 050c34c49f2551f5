package engine

import (
	"runtime"

	"github.com/behaves-dev/behaves/internal/spec"
)

// DefaultParallel is run's default --parallel for profiles whose largest
// memory limit is largestMemory: the number of CPUs, lowered so that
// largestMemory × N stays within half the available memory. Exported for the
// benchmark, which must run behaves' own default.
func DefaultParallel(largestMemory int64) int {
	return fitParallel(runtime.NumCPU(), availableMemory(), largestMemory)
}

func fitParallel(cpus int, available, largestMemory int64) int {
	n := max(cpus, 1)
	if available > 0 && largestMemory > 0 {
		n = min(n, max(int(available/2/largestMemory), 1))
	}
	return n
}

// largestMemory is the largest memory limit a container of the spec may
// have: a profile's, or a build stage's (a build runs in a worker's place,
// with its own limit).
func largestMemory(sp *spec.Spec) int64 {
	var largest int64
	for _, p := range sp.Profiles {
		largest = max(largest, p.Runtime.Memory)
		if b := p.Runtime.Build; b != nil {
			largest = max(largest, b.Memory)
		}
	}
	return largest
}
