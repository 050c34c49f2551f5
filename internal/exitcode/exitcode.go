// Package exitcode is behaves' exit-code policy: the codes every command
// exits with, and how a run's verdict (or a report's) and --fail-on become
// one. The command line exits with them; publishing (internal/ghpublish)
// turns them into a check run's conclusion.
package exitcode

import (
	"fmt"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// Exit codes, the same for every subcommand.
const (
	// True: every program is true (or the spec is valid, for validate).
	True = 0
	// False: some program is false.
	False = 1
	// Usage: a usage or spec error; nothing ran.
	Usage = 2
	// Undetermined: no program is false but some are undetermined
	// (0 instead with --fail-on false, unless a case was found
	// nondeterministic).
	Undetermined = 3
	// RunFailed: the run itself failed (daemon unreachable, interrupted,
	// report not written). It takes precedence over 1 and 3, and --fail-on
	// never turns it into 0.
	RunFailed = 4
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

// ParseFailOn parses a --fail-on value (or the fail-on input).
func ParseFailOn(s string) (FailOn, error) {
	switch f := FailOn(s); f {
	case FailOnFalse, FailOnUndetermined:
		return f, nil
	}
	return "", fmt.Errorf("want false or undetermined, not %q", s)
}

// Of maps the run's overall verdict to the exit code. nondet says a
// case was found nondeterministic: undetermined, but a program seen false
// on some run, which --fail-on false must not pass (it exits 3 then).
func Of(v verdict.Verdict, runFailed bool, failOn FailOn, nondet bool) int {
	switch {
	case runFailed:
		return RunFailed
	case v == verdict.False:
		return False
	case v == verdict.True:
		return True
	case failOn == FailOnFalse && !nondet:
		return True
	default:
		return Undetermined
	}
}

// OfReport is the exit code a report stands for: 2 for spec errors
// (as run exits), 4 when the run failed, else its verdict under failOn.
func OfReport(rep report.Report, failOn FailOn) int {
	switch {
	case len(rep.SpecErrors) > 0:
		return Usage
	case rep.Error != "":
		return RunFailed
	}
	// A shard that never reported is a part of the suite nobody judged:
	// like a nondeterministic case, never a pass, whatever fail-on says.
	missing := rep.Shard != nil && len(rep.Shard.Missing) > 0
	return Of(rep.Verdict, false, failOn, rep.Counts.Cases.Nondeterministic > 0 || missing)
}

// Worse returns the more severe of two exit codes: 4, then 2, then 1, then
// 3, then 0.
func Worse(a, b int) int {
	rank := func(c int) int {
		switch c {
		case RunFailed:
			return 4
		case Usage:
			return 3
		case False:
			return 2
		case Undetermined:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}
