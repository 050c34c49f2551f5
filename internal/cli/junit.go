package cli

// JUnit XML: `behaves run --junit FILE`, `behaves publish --junit FILE`
// (and the action's junit input, which becomes one of them), and
// `behaves junit`, which converts a report made elsewhere. Each writes
// the file from the JSON report, read back and checked as publish reads
// it, so the JUnit file holds exactly what the report holds.

import (
	"flag"
	"fmt"

	"github.com/behaves-dev/behaves/internal/junit"
	"github.com/behaves-dev/behaves/internal/reportread"
)

var junitHelp = commandHelp{
	args: `[--report FILE] [-o FILE] [--max-report-size SIZE]`,
	about: `Converts a JSON report to JUnit XML: one testsuite per program, one testcase
per case; a false case is a failure, an undetermined one an error. The report
is checked first, as publish checks it. Without -o the XML goes to stdout.`,
	exits: `0 written · 2 usage · 4 the report is unreadable or invalid, or
            the XML could not be written`,
}

// junitCommand is `behaves junit`.
func junitCommand(args []string, env Env) int {
	fs := flag.NewFlagSet("junit", flag.ContinueOnError)
	reportPath := fs.String("report", "behaves-report.json", "the JSON report to convert")
	out := fs.String("o", "", "the JUnit file to write (default: stdout)")
	limit := sizeFlag(DefaultMaxReadReport)
	fs.Var(&limit, "max-report-size", "the largest report read (KiB, MiB, GiB)")
	if !parse(fs, args, env) {
		return ExitUsage
	}
	if limit <= 0 {
		fmt.Fprintln(env.Stderr, "behaves junit: --max-report-size must be positive")
		return ExitUsage
	}
	r, err := reportread.File(*reportPath, int64(limit))
	if err != nil {
		printMessages(env.Stderr, env, "behaves junit: "+err.Error())
		return ExitRunFailed
	}
	if *out == "" {
		err = junit.Write(env.Stdout, r, junit.Options{})
	} else {
		err = junit.WriteFile(*out, r, junit.Options{})
	}
	if err != nil {
		printMessages(env.Stderr, env, "behaves junit: "+err.Error())
		return ExitRunFailed
	}
	return ExitTrue
}
