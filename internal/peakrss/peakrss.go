// Package peakrss measures the peak resident memory of a child process
// from outside, for the benchmark and the tests that bound behaves' memory.
//
// wait4's ru_maxrss is not enough: Go starts a child with
// CLONE_VFORK|CLONE_VM, and the kernel's exec folds the high-water mark of
// the memory the child shared until then (the parent's) into the child's
// maxrss, so a large parent (a test binary built with -race) hides the
// child's own figure. VmHWM in /proc/<pid>/status is the high-water mark of
// the memory the process got at exec: polling it misses no peak, only growth
// in the last interval before the process exits.
package peakrss

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Interval is how often Poll reads VmHWM.
const Interval = 5 * time.Millisecond

// Poll reads the VmHWM of pid every Interval until stop is closed, and
// returns the largest value in bytes (0 if none could be read).
func Poll(pid int, stop <-chan struct{}) int64 {
	path := fmt.Sprintf("/proc/%d/status", pid)
	var peak int64
	t := time.NewTicker(Interval)
	defer t.Stop()
	for {
		peak = max(peak, ReadHWM(path))
		select {
		case <-stop:
			return peak
		case <-t.C:
		}
	}
}

// ReadHWM is the VmHWM line of a /proc/<pid>/status file, in bytes (0 when
// absent: a zombie has none).
func ReadHWM(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n << 10 // kB
			}
		}
	}
	return 0
}
