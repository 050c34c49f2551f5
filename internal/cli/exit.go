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
	// (0 instead with --fail-on false).
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
	// FailOnFalse: only false fails; undetermined exits 0.
	FailOnFalse FailOn = "false"
)

// exitCode maps the run's overall verdict to the exit code.
func exitCode(v verdict.Verdict, runFailed bool, failOn FailOn) int {
	switch {
	case runFailed:
		return ExitRunFailed
	case v == verdict.False:
		return ExitFalse
	case v == verdict.True:
		return ExitTrue
	case failOn == FailOnFalse:
		return ExitTrue
	default:
		return ExitUndetermined
	}
}
