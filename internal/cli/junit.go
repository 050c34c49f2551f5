package cli

// JUnit XML: `behaves run --junit FILE`, `behaves publish --junit FILE`
// (and the action's junit input, which becomes one of them), and
// `behaves junit`, which converts a report made elsewhere. Each writes
// the file from the JSON report, read back and checked as publish reads
// it, so the JUnit file holds exactly what the report holds.

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/behaves-dev/behaves/internal/junit"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
)

// writeJUnit writes r as JUnit XML to path ("" writes nothing).
func writeJUnit(path string, r report.Report) error {
	if path == "" {
		return nil
	}
	return junit.WriteFile(path, r, junit.Options{})
}

// writeSideFiles writes r as JUnit XML to junitPath and as the HTML page
// (behaves html's) to htmlPath; "" writes nothing.
func writeSideFiles(junitPath, htmlPath string, r report.Report) error {
	if err := writeJUnit(junitPath, r); err != nil {
		return err
	}
	if htmlPath == "" {
		return nil
	}
	return writeHTML(r, htmlPath)
}

// sideFilesFromReport reads the report at reportPath (at most limit bytes,
// checked, as behaves junit and behaves html read it) and writes it as
// JUnit XML to junitPath and as the HTML page to htmlPath ("" for none).
func sideFilesFromReport(junitPath, htmlPath, reportPath string, limit int64) error {
	if junitPath == "" && htmlPath == "" {
		return nil
	}
	r, err := reportread.File(reportPath, limit)
	if err != nil {
		what := "JUnit " + junitPath
		if junitPath == "" {
			what = "the HTML report " + htmlPath
		}
		return fmt.Errorf("writing %s: %w", what, err)
	}
	return writeSideFiles(junitPath, htmlPath, r)
}

// removeJUnit removes what is at path, so that a JUnit file left there
// (by an earlier run, or committed by a pull request) never stands for a
// report that could not be published.
func removeJUnit(path string) error {
	if path == "" {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing the JUnit file %s: %w", path, err)
	}
	return nil
}

const junitUsage = `usage: behaves junit [--report FILE] [-o FILE] [--max-report-size SIZE]

Converts a JSON report to JUnit XML: one testsuite per program, one testcase
per case; a false case is a failure, an undetermined one an error. The report
is checked first, as publish checks it. Without -o the XML goes to stdout.

exit codes: 0 written · 2 usage · 4 the report is unreadable or invalid, or
            the XML could not be written

flags:
`

// junitCommand is `behaves junit`.
func junitCommand(args []string, env Env) int {
	fs := flag.NewFlagSet("junit", flag.ContinueOnError)
	reportPath := fs.String("report", "behaves-report.json", "the JSON report to convert")
	out := fs.String("o", "", "the JUnit file to write (default: stdout)")
	limit := sizeFlag(DefaultMaxReadReport)
	fs.Var(&limit, "max-report-size", "the largest report read (KiB, MiB, GiB)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), junitUsage)
		fs.PrintDefaults()
	}
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
		err = writeJUnit(*out, r)
	}
	if err != nil {
		printMessages(env.Stderr, env, "behaves junit: "+err.Error())
		return ExitRunFailed
	}
	return ExitTrue
}
