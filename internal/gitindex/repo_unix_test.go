//go:build unix

package gitindex

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/behaves-dev/behaves/internal/gittest"
)

// An index that is a FIFO is refused by type before it is opened (opening
// it would block until a writer comes, so a hang here is the failure).
func TestOpenIndexFIFO(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t)
	if err := syscall.Mkfifo(filepath.Join(repo, ".git", "index"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r, err := Open(repo)
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Open = %v, %v; want a not-a-regular-file error", r, err)
	}
}
