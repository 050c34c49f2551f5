package cli

// The command table and help. Every command is a row of commandTable: its
// name, its line in behaves' usage, its help (what it takes, what it does,
// its exit codes) and its entry point. A command parses its flags with
// parse or parseFlags, which print its help, with its flags, for --help:
// so `behaves CMD --help` and `behaves help CMD` (which runs CMD --help)
// print the same, to stdout, and exit 0, and a new row gets all of that.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
)

// command is one subcommand of behaves.
type command struct {
	name string
	// summary is the command's line in behaves' usage.
	summary string
	help    commandHelp
	run     func(ctx context.Context, args []string, env Env) int
}

// commandHelp is what `behaves CMD --help` prints above the flags.
type commandHelp struct {
	// args follows "usage: behaves CMD ": the flags and operands it takes
	// (continuation lines indented to stand under them).
	args string
	// about says what the command does, in paragraphs.
	about string
	// exits says what each exit code means (continuation lines indented
	// to stand under the first, after "exit codes: ").
	exits string
}

// runExits are the exit codes of a command that judges (run, rescore):
// the same for every such command.
const runExits = `0 all true · 1 some false · 2 usage or spec error ·
            3 none false, some undetermined (0 under --fail-on false, unless a
            case was found nondeterministic) · 4 the run itself failed`

// commandTable is every command, in the order behaves' usage lists them.
// A function, not a variable: help's entry point reads the table.
func commandTable() []command {
	return []command{
		{"run", "run every program's cases and judge them", runHelp, runCommand},
		{"validate", "check the spec without Docker (--check-images: and that Docker has its images)", validateHelp,
			validateCommand},
		{"rescore", "judge an earlier report's stored events against the spec, running nothing", rescoreHelp,
			func(_ context.Context, args []string, env Env) int { return rescoreCommand(args, env) }},
		{"pull", "pull the spec's images that Docker lacks, by digest", pullHelp, pullCommand},
		{"pin", "pin the spec's image tags to their registry digests (--check: say which are stale)", pinHelp, pinCommand},
		{"init", "write a starting behaves.yml for this git repository", initHelp, initCommand},
		{"gc", "remove the containers and volumes that dead runs left behind", gcHelp, gcCommand},
		{"merge", "merge the reports of the shards of one run (run --shard i/N) into one", mergeHelp,
			func(_ context.Context, args []string, env Env) int { return mergeCommand(args, env) }},
		{"publish", "publish a report to GitHub: annotations, summary, comment, check run", publishHelp, publishCommand},
		{"html", "render a report as one self-contained HTML page", htmlHelp,
			func(_ context.Context, args []string, env Env) int { return htmlCommand(args, env) }},
		{"action", "the GitHub Action's entry point: inputs from INPUT_*, run, then publish", actionHelp, actionCommand},
		{"action-post", "the action's post step: remove this job's run's containers and volumes", actionPostHelp,
			actionPostCommand},
		{"junit", "convert a JSON report to JUnit XML", junitHelp,
			func(_ context.Context, args []string, env Env) int { return junitCommand(args, env) }},
		{"schema", "print the spec's JSON Schema (for editors)", schemaHelp,
			func(_ context.Context, args []string, env Env) int { return schemaCommand(args, env) }},
		{"version", "print the version", versionHelp,
			func(_ context.Context, args []string, env Env) int { return versionCommand(args, env) }},
		{"help", "print this, or a command's help (behaves help CMD, the same as CMD --help)", helpHelp, helpCommand},
	}
}

// lookup returns the command named name.
func lookup(name string) (command, bool) {
	for _, c := range commandTable() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// usage is behaves' own usage: the commands and the exit codes.
func usage() string {
	var b strings.Builder
	b.WriteString("usage: behaves <command> [flags]\n\ncommands:\n")
	width := 0
	table := commandTable()
	for _, c := range table {
		width = max(width, len(c.name))
	}
	for _, c := range table {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, c.name, c.summary)
	}
	b.WriteString(`
behaves CMD --help (or behaves help CMD) prints a command's flags and exit codes.

exit codes: 0 all true · 1 some false · 2 usage or spec error ·
            3 none false, some undetermined · 4 the run itself failed
`)
	return b.String()
}

// printHelp prints the help of the command fs parses: its table row's
// help, then its flags. A flag set no row names (none should) gets its
// flags alone.
func printHelp(w io.Writer, fs *flag.FlagSet) {
	c, ok := lookup(fs.Name())
	if !ok {
		fmt.Fprintf(w, "usage: behaves %s [flags]\n\n", fs.Name())
	} else {
		fmt.Fprintf(w, "%s\n\n%s\n\nexit codes: %s\n\n", strings.TrimSpace("usage: behaves "+c.name+" "+c.help.args), c.help.about, c.help.exits)
	}
	flags := false
	fs.VisitAll(func(*flag.Flag) { flags = true })
	if !flags {
		fmt.Fprintln(w, "flags: none")
		return
	}
	fmt.Fprintln(w, "flags:")
	out := fs.Output()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(out)
}

// helpState records that a command printed its help (parseFlags sets
// it), so that Main exits 0 whatever the command returned after parse
// said stop.
type helpState struct{ shown bool }

var helpHelp = commandHelp{
	args:  "[COMMAND]",
	about: "Prints behaves' commands, or with COMMAND that command's help: what it does,\nits exit codes and its flags (the same as behaves COMMAND --help).",
	exits: "0 printed · 2 usage (a command that does not exist)",
}

// helpCommand is `behaves help [COMMAND]`.
func helpCommand(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("help", flag.ContinueOnError)
	if err := parseFlags(fs, args, env); err != nil {
		return ExitUsage
	}
	switch fs.NArg() {
	case 0:
		fmt.Fprint(env.Stdout, usage())
		return ExitTrue
	case 1:
		if _, ok := lookup(fs.Arg(0)); ok {
			return Main(ctx, []string{fs.Arg(0), "--help"}, env)
		}
		fmt.Fprintf(env.Stderr, "behaves help: unknown command %q; behaves help lists them\n", fs.Arg(0))
	default:
		fmt.Fprintf(env.Stderr, "behaves help: one command at most, got %q\n", fs.Args())
	}
	return ExitUsage
}

var versionHelp = commandHelp{
	args:  "",
	about: "Prints behaves' version and the commit it was built from.",
	exits: "0 printed · 2 usage",
}

// versionCommand is `behaves version`.
func versionCommand(args []string, env Env) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if !parse(fs, args, env) {
		return ExitUsage
	}
	fmt.Fprintf(env.Stdout, "behaves %s (commit %s)\n", version(), commit())
	return ExitTrue
}
