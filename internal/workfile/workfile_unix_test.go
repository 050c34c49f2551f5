//go:build unix

package workfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpen: a regular file opens; a symlink (even to a regular file) is
// not followed, a FIFO is refused without blocking, a directory is no
// regular file, and a path that names another file than the one checked
// is ErrReplaced.
func TestOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	checked, err := os.Lstat(file)
	if err != nil {
		t.Fatal(err)
	}
	f, fi, err := Open(file, checked)
	if err != nil || fi.Size() != 1 {
		t.Fatalf("Open(file) = %v, %v", fi, err)
	}
	f.Close()

	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Open(link, nil); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("Open(symlink) = %v, want ELOOP (not followed)", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if _, _, err := Open(fifo, nil); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Open(FIFO) = %v, want ErrNotRegular", err)
	}
	if _, _, err := Open(dir, nil); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Open(dir) = %v, want ErrNotRegular", err)
	}

	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, file); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Open(file, checked); !errors.Is(err, ErrReplaced) {
		t.Errorf("Open(replaced) = %v, want ErrReplaced", err)
	}
}
