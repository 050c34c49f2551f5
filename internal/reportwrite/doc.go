// Package reportwrite writes a run's report to disk. A run writes it
// through a Writer, which spools each case's entry next to the report as
// soon as it is judged, keeps only a bounded summary in memory
// (report.Summarize), holds the case entries within a size budget
// (--max-report-size) and renames the assembled report into place at the
// end; WriteJSON writes a whole report (a merge, a rescore) the same way.
// Package assemble wraps the Writer to take the spec's cases.
package reportwrite
