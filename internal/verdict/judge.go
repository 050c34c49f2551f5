package verdict

import "github.com/behaves-dev/behaves/internal/runner"

// Check is the outcome of one part of a case: the exit code, or the matcher
// on one stream.
type Check struct {
	// What is "exit_code", "stdout" or "stderr".
	What string `json:"what"`
	// Matcher is the stream's matcher (nil for the exit code).
	Matcher *Matcher `json:"-"`
	Verdict Verdict  `json:"verdict"`
	// Expected and Actual are short, human-readable forms for reports (the
	// actual side is the retained output, possibly cut for display).
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
	// Reason is one line a person can read when Verdict is not True.
	Reason string `json:"reason"`
}

// CaseResult is the verdict on one case with its reason and every check.
type CaseResult struct {
	Verdict Verdict
	// Reason is one line a person can read ("expected \"5\", got \"6\"",
	// "timed out after 5s", "killed: memory limit 128MiB", ...); empty
	// when the case is true.
	Reason string
	Checks []Check
}

// Judge compares one case's expectation with the evidence of its
// invocation. It is a pure function.
func Judge(exp Expectation, ev runner.Event) CaseResult {
	panic("not implemented")
}

// Program folds case results into the program's verdict: true when every
// case ran and passed; false when any case is false, even if others did not
// run; otherwise undetermined. The reason names the first deciding case
// result's reason.
func Program(cases []CaseResult) (Verdict, string) {
	panic("not implemented")
}
