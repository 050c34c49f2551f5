package yamledit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrChanged is WriteFile's refusal of a file that no longer holds what
// the edit was planned from.
var ErrChanged = errors.New("the file changed since it was read")

// WriteFile replaces the file at path (after symbolic links) with after,
// atomically: a temporary file in the same folder, with the old file's
// permissions, synced and renamed over it, so that the file is never half
// written. When before is not nil the file must still hold before
// (ErrChanged otherwise, and nothing is written): edits planned from bytes
// read earlier never land on a file someone changed since.
func WriteFile(path string, before, after []byte) (err error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return err
	}
	if before != nil {
		f, err := os.Open(real)
		if err != nil {
			return err
		}
		current, err := io.ReadAll(io.LimitReader(f, int64(len(before))+1))
		f.Close()
		if err != nil {
			return err
		}
		if !bytes.Equal(current, before) {
			return ErrChanged
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(real), "."+filepath.Base(real)+".behaves-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(after); err != nil {
		return err
	}
	if err = tmp.Chmod(fi.Mode().Perm()); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), real); err != nil {
		return fmt.Errorf("replacing %s: %w", real, err)
	}
	return nil
}
