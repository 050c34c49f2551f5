package record

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/behaves-dev/behaves/internal/linediff"
	"github.com/behaves-dev/behaves/internal/yamledit"
)

// diffContext is the lines of context around each hunk, as diff -u.
const diffContext = 3

// row is one line of a diff.
type row struct {
	kind linediff.Kind
	text string
}

// Diff is the change as a unified diff (three lines of context), one line
// a string without its line break: "--- NAME", "+++ NAME", then hunks.
// Only the lines the edits touch are compared, so that a change of many
// cases stays a diff of those cases. Its text is the file's and the
// programs' output: print it escaped.
func (c Change) Diff() []string {
	data := c.File.Data
	starts := []int{0}
	for i, b := range data {
		if b == '\n' && i+1 < len(data) {
			starts = append(starts, i+1)
		}
	}
	lineOf := func(off int) int {
		i, found := slices.BinarySearch(starts, off)
		if !found {
			i--
		}
		return i
	}
	lineEnd := func(l int) int {
		if l+1 < len(starts) {
			return starts[l+1]
		}
		return len(data)
	}
	edits := slices.Clone(c.Edits)
	slices.SortStableFunc(edits, func(a, b yamledit.Edit) int { return a.Start - b.Start })
	// Group the edits into regions of whole lines, merging those that
	// share a line or are on adjacent lines (so that a block of changed
	// lines reads as its old lines, then its new ones).
	type region struct {
		first, last int // lines
		edits       []yamledit.Edit
	}
	var regions []region
	for _, e := range edits {
		first, last := lineOf(e.Start), lineOf(max(e.End-1, e.Start))
		if n := len(regions); n > 0 && first <= regions[n-1].last+1 {
			regions[n-1].last = max(regions[n-1].last, last)
			regions[n-1].edits = append(regions[n-1].edits, e)
			continue
		}
		regions = append(regions, region{first, last, []yamledit.Edit{e}})
	}
	var rows []row
	at := 0 // the next line not yet in rows
	for _, r := range regions {
		for ; at < r.first; at++ {
			rows = append(rows, row{linediff.Equal, string(data[starts[at]:lineEnd(at)])})
		}
		from, to := starts[r.first], lineEnd(r.last)
		shifted := make([]yamledit.Edit, len(r.edits))
		for i, e := range r.edits {
			shifted[i] = yamledit.Edit{Start: e.Start - from, End: e.End - from, Text: e.Text}
		}
		after, err := yamledit.Apply(data[from:to], shifted)
		if err != nil {
			return []string{fmt.Sprintf("(no diff of %s: %v)", c.File.Name, err)}
		}
		a, b := splitLines(data[from:to]), splitLines(after)
		ai, bi := 0, 0
		for _, op := range linediff.Lines(a, b) {
			for range op.N {
				switch op.Kind {
				case linediff.Equal:
					rows = append(rows, row{op.Kind, a[ai]})
					ai, bi = ai+1, bi+1
				case linediff.Delete:
					rows = append(rows, row{op.Kind, a[ai]})
					ai++
				case linediff.Insert:
					rows = append(rows, row{op.Kind, b[bi]})
					bi++
				}
			}
		}
		at = r.last + 1
	}
	for ; at < len(starts) && starts[at] < len(data); at++ {
		rows = append(rows, row{linediff.Equal, string(data[starts[at]:lineEnd(at)])})
	}
	return unified(c.File.Name, rows)
}

// splitLines splits text into lines, each with its line break.
func splitLines(text []byte) []string {
	var lines []string
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n') + 1
		if i == 0 {
			i = len(text)
		}
		lines = append(lines, string(text[:i]))
		text = text[i:]
	}
	return lines
}

// unified writes rows as hunks of a unified diff.
func unified(name string, rows []row) []string {
	out := []string{"--- " + name, "+++ " + name}
	// aLine and bLine are each row's 1-based line in the old and new file.
	aLine, bLine := make([]int, len(rows)+1), make([]int, len(rows)+1)
	a, b := 1, 1
	for i, r := range rows {
		aLine[i], bLine[i] = a, b
		if r.kind != linediff.Insert {
			a++
		}
		if r.kind != linediff.Delete {
			b++
		}
	}
	aLine[len(rows)], bLine[len(rows)] = a, b
	for i := 0; i < len(rows); {
		if rows[i].kind == linediff.Equal {
			i++
			continue
		}
		start := max(0, i-diffContext)
		end := i // one past the last change of the hunk
		for j := i; j < len(rows) && j < end+2*diffContext+1; j++ {
			if rows[j].kind != linediff.Equal {
				end = j + 1
			}
		}
		stop := min(len(rows), end+diffContext)
		var na, nb int
		for _, r := range rows[start:stop] {
			if r.kind != linediff.Insert {
				na++
			}
			if r.kind != linediff.Delete {
				nb++
			}
		}
		as, bs := aLine[start], bLine[start]
		if na == 0 {
			as--
		}
		if nb == 0 {
			bs--
		}
		out = append(out, fmt.Sprintf("@@ -%d,%d +%d,%d @@", as, na, bs, nb))
		for _, r := range rows[start:stop] {
			mark := " "
			switch r.kind {
			case linediff.Delete:
				mark = "-"
			case linediff.Insert:
				mark = "+"
			}
			out = append(out, mark+strings.TrimSuffix(strings.TrimSuffix(r.text, "\n"), "\r"))
		}
		i = stop
	}
	return out
}
