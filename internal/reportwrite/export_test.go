package reportwrite

import (
	"bytes"

	"github.com/behaves-dev/behaves/internal/report"
)

// What the external tests (package reportwrite_test) need of the
// package's insides.

// EntrySizes are the bytes of c's entry in a report, with its output and
// without it.
func EntrySizes(c report.Case) (full, bare int64, err error) {
	var buf bytes.Buffer
	if err := encodeEntry(&buf, c); err != nil {
		return 0, 0, err
	}
	full = int64(buf.Len())
	buf.Reset()
	if err := encodeEntry(&buf, omitted(report.Summarize(c))); err != nil {
		return 0, 0, err
	}
	return full, int64(buf.Len()), nil
}

// SpoolDir is w's spool folder.
func (w *Writer) SpoolDir() string { return w.spool }

// Omitted counts the cases whose output w left out.
func (w *Writer) Omitted() int { return w.omitted }

// Used is the bytes of w's entries as they stand.
func (w *Writer) Used() int64 { return w.used }
