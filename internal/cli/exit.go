package cli

import "github.com/behaves-dev/behaves/internal/exitcode"

// Exit codes, the same for every subcommand: exitcode's, under the names
// the command line's callers and tests know.
const (
	ExitTrue         = exitcode.True
	ExitFalse        = exitcode.False
	ExitUsage        = exitcode.Usage
	ExitUndetermined = exitcode.Undetermined
	ExitRunFailed    = exitcode.RunFailed
)

// FailOn says which verdicts fail the command (exitcode.FailOn).
type FailOn = exitcode.FailOn

// The --fail-on values.
const (
	FailOnUndetermined = exitcode.FailOnUndetermined
	FailOnFalse        = exitcode.FailOnFalse
)
