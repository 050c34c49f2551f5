// Package verdict owns judging: pure functions that compare an expectation
// with the evidence of one invocation (runner.Event) and fold case verdicts
// into a program verdict. No I/O, no Docker, no GitHub: it imports only the
// standard library and package runner's evidence types (a test asserts it).
//
// # Matchers
//
// equals, contains and regex (RE2, searched: a match anywhere). Output and
// literal expected values are normalised first (a regex pattern never is):
// trailing (the default: CRLF→LF, spaces and tabs stripped at each line end,
// then all trailing newlines stripped), exact (bytes as they are) or
// whitespace (every run of unicode.IsSpace runes collapsed to one space, ends
// trimmed). ignore_case puts (?i) in front of a regex and folds literals with
// simple Unicode case folding (each rune to the smallest rune of its
// unicode.SimpleFold orbit, so equals agrees with strings.EqualFold on valid
// UTF-8). Output may be invalid UTF-8: it is compared byte for byte, and an
// invalid byte is never replaced or dropped (unlike strings.EqualFold, which
// treats every invalid byte as U+FFFD).
//
// # Verdicts
//
// A case is undetermined when the sandbox reported an error. It is false
// when any part is a settled mismatch (timeout, memory or output limit, wrong
// exit code, output that cannot match), true when the exit code and every
// matcher agree on complete evidence, and undetermined otherwise. False
// dominates undetermined.
//
// # Cut streams
//
// A stream is cut when the program wrote more than was kept (Truncated, or
// Bytes beyond the kept data); the streams of a stopped run (timeout, limit,
// no exit code) may be incomplete too. Only what no continuation can change
// is used: the complete lines (whitespace: the words before the last
// whitespace), and of the cut line (word) its text before a trailing
// incomplete UTF-8 sequence and, for trailing, before its trailing spaces,
// tabs and CRs.
//
//   - contains: found there → true; else undetermined.
//   - equals: the expected value cannot continue what is certain → false;
//     otherwise undetermined ("the kept part agrees"). Under normalize exact
//     (without ignore_case), a total byte count that differs from the
//     expected value's length is false too.
//   - regex: a match there → true only if the pattern has no assertion that
//     looks past the match ($, \z, (?m)$, \b, \B), since other assertions
//     look only behind; every other outcome is undetermined. A regex is never
//     false on a cut stream.
//
// This is a little stricter than "the last kept line is unknown": a cut line
// that already differs ("Foo" where "Fizz" is expected) is false, so that
// one long line cut at the limit can still fail. Tests check on random and
// on targeted inputs that a prefix never settles what the whole output
// would not.
//
// # Messages
//
// Reasons are one line, values quoted with strconv.Quote and cut with "…".
// Sizes are printed by FormatSize, in exact binary units.
package verdict
