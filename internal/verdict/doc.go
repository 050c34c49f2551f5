// Package verdict owns judging: pure functions that compare an expectation
// with the evidence of one invocation (runner.Event) and fold case verdicts
// into a program verdict. No I/O, no Docker, no GitHub.
package verdict
