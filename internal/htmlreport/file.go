package htmlreport

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"

	"github.com/behaves-dev/behaves/internal/report"
)

// WriteFile writes the page of rep (read and checked by reportread.File)
// to out, through a temporary file in out's folder renamed into place.
func WriteFile(out string, rep report.Report) (err error) {
	f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriter(f)
	if err = Render(bw, rep, Limits{}); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	if err = f.Chmod(0o644); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	if err = os.Rename(f.Name(), out); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	return nil
}
