package cli

// behaves html: the HTML report, one self-contained page rendered from a
// JSON report (package htmlreport). The report is untrusted input (another
// workflow may have written it): reportread.File checks it first.

import (
	"flag"
	"fmt"

	"github.com/behaves-dev/behaves/internal/htmlreport"
	"github.com/behaves-dev/behaves/internal/reportread"
)

var htmlHelp = commandHelp{
	args: `[--report FILE] [-o FILE] [--max-report-size SIZE]`,
	about: `Renders a JSON report as one self-contained HTML page: the verdict counts,
filters by verdict and by program, expected next to actual output with the
differing lines marked, and pass@k tables. The page makes no request, and
its Content-Security-Policy admits only its own inline style and script.
The report is checked first, as publish checks it.`,
	exits: `0 written · 2 usage · 4 the report is unreadable or invalid, or
            the page could not be written`,
}

// htmlCommand is `behaves html`.
func htmlCommand(args []string, env Env) int {
	fs := flag.NewFlagSet("html", flag.ContinueOnError)
	reportPath := fs.String("report", "behaves-report.json", "the JSON report to render")
	out := fs.String("o", "behaves-report.html", "where to write the HTML page (atomically)")
	maxReport := int64(DefaultMaxReadReport)
	fs.Var((*sizeFlag)(&maxReport), "max-report-size", "the largest report read (KiB, MiB, GiB)")
	if !parse(fs, args, env) {
		return ExitUsage
	}
	if maxReport <= 0 {
		fmt.Fprintln(env.Stderr, "behaves html: --max-report-size must be positive")
		return ExitUsage
	}
	rep, err := reportread.File(*reportPath, maxReport)
	if err == nil {
		err = htmlreport.WriteFile(*out, rep)
	}
	if err != nil {
		printMessages(env.Stderr, env, "behaves html: "+err.Error())
		return ExitRunFailed
	}
	fmt.Fprintf(env.Stdout, "behaves: wrote %s\n", printable(*out))
	return ExitTrue
}
