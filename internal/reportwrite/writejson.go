package reportwrite

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/behaves-dev/behaves/internal/report"
)

// WriteJSON writes r (as package assemble builds it, or reportmerge.Merge) to
// path atomically (see writeAtomic), with no bound on its size. A run writes
// through a Writer instead, which never holds every case's output at once.
func WriteJSON(path string, r report.Report) (err error) {
	w, err := NewWriter(path, Options{})
	if err != nil {
		return fmt.Errorf("writing report %s: %w", path, err)
	}
	defer func() { err = errors.Join(err, w.Close()) }()
	_, err = w.Commit(r)
	return err
}

// writeAtomic writes path atomically: a temporary file in the same folder,
// filled by write, synced and renamed over path, so that a reader sees the
// old file or the whole new one, never a part. The file's mode is 0644.
func writeAtomic(path string, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing report %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, ignoreNotExist(os.Remove(tmp.Name())))
		}
	}()
	if err := write(tmp); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("writing report %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("writing report %s: setting mode: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("writing report %s: syncing: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing report %s: closing: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing report %s: renaming: %w", path, err)
	}
	// Make the rename itself durable. Some file systems cannot sync a
	// folder; the report is already in place, so that is not an error.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

func ignoreNotExist(err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
