package engine

import "testing"

// TestMemoryBoundRepeat guards docs/security.md's figures: without repeat
// the bound is MemoryBound's, and repeat 100 at the defaults adds what the
// held runs may take.
func TestMemoryBoundRepeat(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	if a, b := MemoryBoundRepeat(2, mib, 10000, 1), MemoryBound(2, mib, 10000); a != b {
		t.Errorf("repeat 1: %d, MemoryBound %d", a, b)
	}
	base := MemoryBound(2, mib, 10000)
	if got := MemoryBoundRepeat(2, mib, 10000, 100) - base; got != 1188*mib {
		t.Errorf("repeat 100 adds %d MiB, docs/security.md says 1188", got/mib)
	}
}
