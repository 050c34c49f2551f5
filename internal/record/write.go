package record

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes c.Data over its file, when the file still holds what it
// held when Read read it (else an error, and nothing is written): through
// a temporary file beside it, with its mode, renamed over it, so that the
// file is never half written.
func (c Change) Write() (err error) {
	f := c.File
	fh, err := os.Open(f.Path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", f.Name, err)
	}
	current, err := io.ReadAll(io.LimitReader(fh, maxFileSize+1))
	fi, statErr := fh.Stat()
	fh.Close()
	if err = errors.Join(err, statErr); err != nil {
		return fmt.Errorf("writing %s: %w", f.Name, err)
	}
	if !bytes.Equal(current, f.Data) {
		return fmt.Errorf("%s changed while behaves record ran: not written (run behaves record again)", f.Name)
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.Path), "."+filepath.Base(f.Path)+".behaves-record-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", f.Name, err)
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	_, err = tmp.Write(c.Data)
	err = errors.Join(err, tmp.Chmod(fi.Mode().Perm()), tmp.Sync(), tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), f.Path)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", f.Name, err)
	}
	return nil
}
