// Package engine runs a loaded spec. It owns what happens between a spec
// and a report: which programs a run (or a shard of it) holds, the record
// of each program and case (assemble.Program, assemble.Case) and the jobs
// that fill them, the reference runs of same_as cases (first, once per
// distinct input), and judging each case as soon as its runs are in. It
// reads no flags and writes no files: a Sink takes each judged case (the
// report's spool), and the caller takes the report built from the records.
//
// The default parallelism and the bounds on behaves' own memory and on
// the report's size live here too, since they are properties of a run.
package engine
