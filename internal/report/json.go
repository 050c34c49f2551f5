package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Encode writes r as indented JSON followed by a newline. Nil slices are
// written as [] (see Report).
func Encode(w io.Writer, r Report) error {
	for i := range r.Programs {
		for j := range r.Programs[i].Cases {
			if r.Programs[i].Cases[j].summary {
				return errors.New("encoding report: it holds case summaries without their output; the Writer that made them writes the report")
			}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(Normalize(r)); err != nil {
		return fmt.Errorf("encoding report: %w", err)
	}
	return nil
}
