package cli

import (
	"flag"
	"fmt"

	"github.com/behaves-dev/behaves/internal/terminal"
)

// terminalFlags are how run and rescore print their report on stdout:
// -v/--verbose and --color.
type terminalFlags struct {
	verbose bool
	color   string
}

func (tf *terminalFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&tf.verbose, "verbose", false, "also show the checks that passed in the cases described")
	fs.BoolVar(&tf.verbose, "v", false, "short for --verbose")
	fs.StringVar(&tf.color, "color", "auto", "auto, always or never: colour the verdicts and the expected and actual labels (auto: when stdout is a terminal and NO_COLOR is unset)")
}

// check refuses a --color other than auto, always or never.
func (tf *terminalFlags) check() error {
	switch tf.color {
	case "auto", "always", "never":
		return nil
	}
	return fmt.Errorf("--color %q: want auto, always or never", printable(tf.color))
}

// options are the terminal options for env: a fresh stop-commands token
// under Actions, and colour as --color says. auto colours only a terminal
// (never a redirected stdout or an Actions log) and honours NO_COLOR
// (no-color.org: any non-empty value); always is the user's explicit
// choice and wins over NO_COLOR.
func (tf *terminalFlags) options(env Env) terminal.Options {
	color := tf.color == "always" || tf.color == "auto" && env.StdoutTerminal && env.Getenv("NO_COLOR") == ""
	return terminal.Options{
		GitHubActions: env.Getenv("GITHUB_ACTIONS") == "true",
		Token:         terminal.NewToken(),
		Verbose:       tf.verbose,
		Color:         color,
	}
}

// wroteLine says where a command wrote its report and, for each path that
// is not "", its JUnit XML and its HTML page.
func wroteLine(reportPath, junit, html string) string {
	line := "behaves: wrote the report to " + reportPath
	if junit != "" {
		line += ", JUnit XML to " + junit
	}
	if html != "" {
		line += ", the HTML page to " + html
	}
	return line
}
