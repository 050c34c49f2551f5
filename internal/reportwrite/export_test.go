package reportwrite

import "bytes"

// EntrySizes are the bytes of c's entry in a report, with its output and
// without it.
func EntrySizes(c Case) (full, bare int64, err error) {
	var buf bytes.Buffer
	if err := encodeEntry(&buf, c); err != nil {
		return 0, 0, err
	}
	full = int64(buf.Len())
	buf.Reset()
	if err := encodeEntry(&buf, omitted(Summarize(c))); err != nil {
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
