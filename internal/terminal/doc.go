// Package terminal renders a report for a person at a terminal or in a CI
// log: a table plus expected-next-to-actual for every case that is not
// true (Write), behaves' own messages that quote untrusted text
// (WriteMessages), and the live progress line of a run (Progress).
//
// Everything a program printed, and everything the spec says (the spec
// comes from a pull request), is untrusted text: the rendering escapes it
// (escape.Text), prefixes each line of program output, and under GitHub
// Actions wraps the whole rendering in a stop-commands region so nothing in
// it becomes a workflow command.
//
// It renders a report and nothing else, like the other renderers
// (publish, junit, htmlreport): a test keeps its imports to report,
// verdict and the standard library.
package terminal
