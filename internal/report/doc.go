// Package report owns the versioned JSON report behaves writes about a run
// (behaves.report/v1): its types (the only thing a later GitHub publisher
// reads, so it carries spec positions, expectations and evidence side by
// side), their encoding (Encode), and the fold that turns cases into
// program verdicts, counts, groups with pass@k and the run's verdict
// (Folded, and its pieces CountsOf, ProgramVerdict, GroupsOf, ReuseOf,
// Overall).
//
// It knows nothing of the spec: package assemble turns the spec, the
// observations and the verdicts into a report's entries, and a test keeps
// this package from importing spec. What is done with a report lives
// beside it, each in a package of its own that imports this one:
// reportwrite writes a run's report through a spooling Writer,
// reportread reads one back from untrusted input and checks it against
// the fold, reportmerge merges the reports of a sharded run, and escape
// makes the untrusted text in a report inert for the renderers.
package report
