// Package assemble turns a run into its report: the record of each program
// (its attempt) and of each case (the spec's case, its runs and their
// verdicts, its reference runs, where its evidence came from) become the
// report's programs and cases (Report), and as a run goes each judged
// case's record becomes its entry in the report's spool (Writer). The run
// engine, reuse and rescore make the records.
//
// It sits between the spec and the report, so that the report stays a
// leaf that the renderers and readers take alone. It judges nothing (the
// verdicts come with its input, and what folds from them is
// report.Folded's), runs nothing and reads no files.
package assemble
