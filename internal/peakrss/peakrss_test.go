package peakrss

import (
	"os"
	"testing"
)

// TestReadHWM guards the parsing: the test's own VmHWM is there, in bytes,
// and a process that does not exist has none.
func TestReadHWM(t *testing.T) {
	t.Parallel()
	buf := make([]byte, 32<<20)
	for i := range buf {
		buf[i] = 1 // touch every page
	}
	if got := ReadHWM("/proc/self/status"); got < int64(len(buf)) {
		t.Errorf("VmHWM %d bytes, less than the %d just touched", got, len(buf))
	}
	if got := ReadHWM("/proc/0/status"); got != 0 {
		t.Errorf("no process: %d, want 0", got)
	}
	stop := make(chan struct{})
	close(stop)
	if got := Poll(os.Getpid(), stop); got < int64(len(buf)) {
		t.Errorf("Poll: %d bytes", got)
	}
	_ = buf[len(buf)-1]
}
