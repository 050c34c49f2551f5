// Package assemble turns a run into its report: the spec (positions,
// expectations, stdin), the runner's observations and the judge's
// verdicts become the report's programs and cases (Report), and as a run
// goes each judged case becomes its entry in the report's spool (Writer).
//
// It sits between the spec and the report, so that the report stays a
// leaf that the renderers and readers take alone. It judges nothing (the
// verdicts come with its input, and what folds from them is
// report.Folded's), runs nothing and reads no files.
package assemble
