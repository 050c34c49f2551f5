// Package yamledit edits a YAML file's bytes at the positions yaml.v3 gives
// its nodes (line and column), so that every byte outside an edit stays as
// it was: comments, key order, quoting, blank lines, line breaks. It never
// re-marshals a document.
//
// A caller parses the file (Parse), finds the byte ranges of the nodes it
// changes (Start, End, FlowClose, LineEnd), plans edits (Edit: a byte range
// and the text that replaces it), applies them (Apply), and parses the
// result again to check that it reads as the original with only the
// intended changes (Compare), then writes the file back in one step
// (WriteFile: atomically, and only over the bytes the edits were planned
// from). Scalars it writes are double-quoted (DoubleQuoted), checked by a
// round trip through yaml.v3.
//
// It knows nothing of behaves' spec: `behaves record` (package record)
// writes expectations with it and `behaves pin` (package pin) image
// references; any other command that rewrites a spec in place shares it.
package yamledit
