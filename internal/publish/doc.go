// Package publish owns what a user of the GitHub Action sees of a report:
// the annotations (as workflow command lines for the runner's log, and as
// data for a check run), the job summary, the pull-request comment body and
// the check run's summary text. Every function here is a pure function of a
// report.Report and a few options: it reads no environment, no file and no
// network. Posting is another package's job (internal/publish/github).
//
// # Untrusted text
//
// A report may come from another workflow (the fork-safe pattern) and
// quotes programs and a spec from a pull request, so every string in it is
// attacker text. It reaches the output only in these forms:
//
//   - escaped to one line by escape.Text (no control character, line
//     break or bidi control survives: they become visible \n, \x00,
//     \u202e);
//   - in markdown, inside a code span whose backtick delimiter is longer
//     than any backtick run in the text (padded with spaces when the text
//     starts or ends with a backtick), or inside a fenced block whose fence
//     is longer than any backtick run in the block. In a table cell every
//     '|' is written as '\|', because GFM splits a row on pipes before it
//     sees code spans. Nothing of the report is ever written outside code,
//     so it cannot make a heading, a link, an image, an HTML element, a
//     mention (@user) or an issue reference (#123): GitHub links neither
//     inside code;
//   - in the <summary> line of a <details> block (raw HTML, where markdown
//     is not parsed), HTML-escaped inside <code>;
//   - in workflow commands, percent-escaped as the runner expects (data:
//     %, CR, LF; properties also ':' and ',').
//
// The comment's hidden marker is the body's first line, which never holds
// report text, and ParseMarker reads nothing else. The marker also holds
// two raw tabs, which escape.Text never lets through: no report text can
// hold a copy of it anywhere in the body.
//
// # Annotations
//
// Annotations returns every annotation, the most useful first (spec
// errors, then an error at each false program's file, then the false cases
// round by round across programs, then the undetermined ones); the runner
// shows only 10 of each level a step, so WorkflowCommands writes those and
// counts the rest, and the markdown says how many there are. A check run
// sends the first Options.CheckRunAnnotations of the list (a ceiling on
// its requests), and the markdown counts the rest too.
//
// # Budgets
//
// GitHub rejects a step summary of 1 MiB or more, and cuts a comment at
// 65,536 characters and a check run's summary at 65,535. The markdown is
// rendered in stages until it fits: everything; then only the programs that
// are not true in the table; then shortened output excerpts. In every stage
// a block that would pass the budget is left out and counted. Whenever
// anything is left out, the text says so near its top. Sizes are counted in
// bytes, which is never less than characters in any counting GitHub may use.
package publish
