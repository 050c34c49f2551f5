// Package junit renders a behaves report as JUnit XML, the format test
// dashboards and CI systems read: one testsuite per program, one testcase
// per case. A true case passes; a false case has a <failure> with its
// reason; an undetermined case has an <error> with its reason, never a
// skip or a pass, so that nothing a dashboard counts as green was left
// unjudged. A run that failed as a whole (a spec with errors, a lost
// engine, an interrupted run) adds a testsuite "behaves" whose testcase
// "run" is an <error>, so that a report with no programs never reads as
// an empty, passing suite.
//
// It reads the report and nothing else (the same types a publisher reads),
// so `behaves junit` can convert a report made elsewhere. Every string in
// a report is untrusted (program output, and the spec's names, which a
// pull request writes), and XML 1.0 cannot carry most control characters
// at all, not even as character references: Text makes any string
// well-formed and visible, CDATA sections are split around "]]>", and
// output that is not UTF-8 is shown as base64. Output is bounded per
// stream (Options.MaxStreamBytes); the JSON report keeps the kept bytes.
package junit
