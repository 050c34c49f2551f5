// Package report owns what behaves writes about a run: the versioned JSON
// report (the only thing a later GitHub publisher reads, so it carries spec
// positions, expectations and evidence side by side), the terminal rendering
// (a table plus expected-next-to-actual for every case that is not true) and
// the live progress line.
//
// Everything a program printed, and everything the spec says (the spec comes
// from a pull request), is untrusted text: the terminal renderer escapes it,
// prefixes each line of program output, and under GitHub Actions wraps the
// whole rendering in a stop-commands region so nothing in it becomes a
// workflow command.
//
// Build is a pure assembly of the spec, the observations and the verdicts;
// it runs nothing and judges nothing. A run writes its report through a
// Writer, which spools each case's entry next to the report as soon as it
// is judged, keeps only a bounded summary in memory, holds the case
// entries within a size budget (--max-report-size) and renames the
// assembled report into place at the end.
package report
