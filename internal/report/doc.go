// Package report owns what behaves writes about a run: the versioned JSON
// report (the only thing a later GitHub publisher reads, so it carries spec
// positions, expectations and evidence side by side), reading it back from
// untrusted input, and merging the reports of a sharded run.
//
// Everything a program printed, and everything the spec says (the spec comes
// from a pull request), is untrusted text: the renderers (terminal, publish,
// junit, htmlreport) take a report alone, and Escape is the one-line inert
// form they build on.
//
// It knows nothing of the spec: package assemble turns the spec, the
// observations and the verdicts into a report's entries, and a test keeps
// this package from importing spec. A run writes its report through a
// Writer, which spools each case's entry next to the report as soon as it
// is judged, keeps only a bounded summary in memory, holds the case
// entries within a size budget (--max-report-size) and renames the
// assembled report into place at the end.
package report
