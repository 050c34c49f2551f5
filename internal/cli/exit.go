package cli

import "github.com/behaves-dev/behaves/internal/verdict"

// Exit codes, the same for every subcommand.
const (
	// ExitTrue: every program is true (or the spec is valid, for validate).
	ExitTrue = 0
	// ExitFalse: some program is false.
	ExitFalse = 1
	// ExitUsage: a usage or spec error; nothing ran.
	ExitUsage = 2
	// ExitUndetermined: no program is false but some are undetermined
	// (0 instead with --fail-on false, unless a case was found
	// nondeterministic).
	ExitUndetermined = 3
	// ExitRunFailed: the run itself failed (daemon unreachable, interrupted,
	// report not written). It takes precedence over 1 and 3, and --fail-on
	// never turns it into 0.
	ExitRunFailed = 4
)

// FailOn says which verdicts fail the command.
type FailOn string

// The --fail-on values.
const (
	// FailOnUndetermined (the default): false exits 1, undetermined exits 3.
	FailOnUndetermined FailOn = "undetermined"
	// FailOnFalse: only false fails; undetermined exits 0, unless a case
	// was found nondeterministic (some runs true, some false): then 3.
	FailOnFalse FailOn = "false"
)

// exitCode maps the run's overall verdict to the exit code. nondet says a
// case was found nondeterministic: undetermined, but a program seen false
// on some run, which --fail-on false must not pass (it exits 3 then).
func exitCode(v verdict.Verdict, runFailed bool, failOn FailOn, nondet bool) int {
	switch {
	case runFailed:
		return ExitRunFailed
	case v == verdict.False:
		return ExitFalse
	case v == verdict.True:
		return ExitTrue
	case failOn == FailOnFalse && !nondet:
		return ExitTrue
	default:
		return ExitUndetermined
	}
}
