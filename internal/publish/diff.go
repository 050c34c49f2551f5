package publish

import (
	"fmt"
	"strings"

	"github.com/behaves-dev/behaves/internal/linediff"
)

// diffContext is the number of unchanged lines a hunk shows around a
// change, as diff -u.
const diffContext = 3

// unifiedDiff is the unified diff of want (expected) against got
// (actual), by lines: "--- expected", "+++ actual" and hunks of changes
// with diffContext lines around them. Lines are compared as the matcher
// reads them when trimTrailing (trailing blanks ignored) and shown as
// they are; the text is raw, and the caller escapes it.
func unifiedDiff(want, got []byte, trimTrailing bool) []byte {
	a, b := splitLines(want), splitLines(got)
	key := func(lines []string) []string {
		if !trimTrailing {
			return lines
		}
		out := make([]string, len(lines))
		for i, l := range lines {
			out[i] = strings.TrimRight(l, " \t\r")
		}
		return out
	}
	// One entry a line: its kind and its line numbers in a and b.
	type entry struct {
		kind linediff.Kind
		i, j int
	}
	var es []entry
	i, j := 0, 0
	for _, o := range linediff.Lines(key(a), key(b)) {
		for range o.N {
			es = append(es, entry{o.Kind, i, j})
			switch o.Kind {
			case linediff.Equal:
				i, j = i+1, j+1
			case linediff.Delete:
				i++
			case linediff.Insert:
				j++
			}
		}
	}
	var sb strings.Builder
	sb.WriteString("--- expected\n+++ actual\n")
	for k := 0; k < len(es); {
		if es[k].kind == linediff.Equal {
			k++
			continue
		}
		// A hunk: from diffContext lines before this change to
		// diffContext lines after the last change that lies within
		// 2×diffContext unchanged lines of the one before it.
		start, end := max(k-diffContext, 0), k
		for end < len(es) {
			if es[end].kind != linediff.Equal {
				end++
				continue
			}
			run := end
			for run < len(es) && es[run].kind == linediff.Equal {
				run++
			}
			if run == len(es) || run-end > 2*diffContext {
				end = min(end+diffContext, len(es))
				break
			}
			end = run
		}
		na, nb := 0, 0
		for _, e := range es[start:end] {
			if e.kind != linediff.Insert {
				na++
			}
			if e.kind != linediff.Delete {
				nb++
			}
		}
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(es[start].i, na), hunkRange(es[start].j, nb))
		for _, e := range es[start:end] {
			switch e.kind {
			case linediff.Equal:
				sb.WriteString(" " + a[e.i] + "\n")
			case linediff.Delete:
				sb.WriteString("-" + a[e.i] + "\n")
			case linediff.Insert:
				sb.WriteString("+" + b[e.j] + "\n")
			}
		}
		k = end
	}
	return []byte(sb.String())
}

// hunkRange is a hunk header's "start,count" for a hunk at 0-based line
// at of n lines, as diff -u writes it: a range of no lines starts at the
// line before, and a count of 1 is left out.
func hunkRange(at, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", at)
	case 1:
		return fmt.Sprint(at + 1)
	}
	return fmt.Sprintf("%d,%d", at+1, n)
}

// splitLines is text's lines, without their newlines; none for "".
func splitLines(text []byte) []string {
	if len(text) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
}
