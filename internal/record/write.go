package record

import (
	"errors"
	"fmt"

	"github.com/behaves-dev/behaves/internal/yamledit"
)

// Write writes c.Data over its file, when the file still holds what it
// held when Read read it (else an error, and nothing is written), through
// yamledit.WriteFile: atomically, with the file's mode.
func (c Change) Write() error {
	err := yamledit.WriteFile(c.File.Path, c.File.Data, c.Data)
	switch {
	case errors.Is(err, yamledit.ErrChanged):
		return fmt.Errorf("%s changed while behaves record ran: not written (run behaves record again)", c.File.Name)
	case err != nil:
		return fmt.Errorf("writing %s: %w", c.File.Name, err)
	}
	return nil
}
