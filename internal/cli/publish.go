package cli

// behaves publish: its flags and the GitHub target the environment names,
// over ghpublish.Publish, which publishes a report as the action does.

import (
	"context"
	"flag"
	"fmt"

	"github.com/behaves-dev/behaves/internal/exitcode"
	"github.com/behaves-dev/behaves/internal/ghpublish"
	gh "github.com/behaves-dev/behaves/internal/publish/github"
	"github.com/behaves-dev/behaves/internal/run"
)

// DefaultMaxReadReport is the default bound on the report publish reads:
// behaves' own default --max-report-size budget for case entries (256MiB)
// and reportReadSlack for everything else a report holds.
const DefaultMaxReadReport = 256<<20 + reportReadSlack

// reportReadSlack is what a report may hold beyond its case entries'
// budget (--max-report-size): programs, settings, counts.
const reportReadSlack = run.ReportReadSlack

// publishConfig is what publishing needs: publish's flags, or the action's
// inputs.
type publishConfig struct {
	ghpublish.Config
	// token is the GitHub token, the one credential publishing sends:
	// --github-token, or the github-token input, else GITHUB_TOKEN.
	token string
}

var publishHelp = commandHelp{
	args: `[--report FILE] [--github-token TOKEN] [--fail-on false|undetermined]
                       [--comment update|new|off] [--check-run] [--check-name NAME]
                       [--annotations=true|false] [--junit FILE]`,
	about: `Publishes a report as the GitHub Action does: workflow-command annotations on
stdout, the job summary (GITHUB_STEP_SUMMARY), the sticky pull request comment
(pull_request events, and workflow_run events of pull requests), the check run,
the step's outputs (GITHUB_OUTPUT) and the exit code. The report is checked
first (schema, keys, enums, verdicts recomputed from its cases); under a
workflow_run event it must be from that run (github.run_id, run_attempt,
head_sha), elsewhere under Actions from this run. A refusal of the GitHub API
(403, 404) is a notice: publishing never changes the exit code. --junit also
writes the report as JUnit XML; a report that is refused removes what is at
that path instead.

The token is --github-token, else INPUT_GITHUB-TOKEN, else GITHUB_TOKEN.`,
	exits: `as run's, from the report's verdicts and --fail-on · 2 usage, or
            a report of a spec with errors · 4 the report is unreadable, invalid,
            not from this run, or records a failed run`,
}

// publishCommand is `behaves publish`.
func publishCommand(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("publish", flag.ContinueOnError)
	cfg := publishConfig{Config: ghpublish.Config{MaxReportSize: DefaultMaxReadReport}}
	fs.StringVar(&cfg.ReportPath, "report", "behaves-report.json", "the report to publish")
	fs.StringVar(&cfg.token, "github-token", "", "the GitHub token (default: INPUT_GITHUB-TOKEN, else GITHUB_TOKEN)")
	failOn := fs.String("fail-on", string(FailOnUndetermined), "which verdicts fail the command: false or undetermined")
	comment := fs.String("comment", string(gh.CommentUpdate), "the pull request comment: update (one sticky comment), new, or off")
	fs.BoolVar(&cfg.CheckRun, "check-run", false, "create a check run on the pull request's head (needs checks: write)")
	fs.BoolVar(&cfg.AllowFiltered, "allow-filtered", false, "post the check run even from a report of a run filtered with --program (by default such a report is refused for a check run: it answers for part of the spec)")
	fs.StringVar(&cfg.CheckName, "check-name", ghpublish.DefaultCheckName, "the check run's name: not a job's name, so that it is never taken for the gate's status")
	// Its default depends on the environment (below), so the flag's own is
	// false: help prints the one default that holds.
	fs.BoolVar(&cfg.Annotations, "annotations", false, "print annotations as workflow commands (default: under GitHub Actions only)")
	fs.Var((*sizeFlag)(&cfg.MaxReportSize), "max-report-size", "the largest report read (KiB, MiB, GiB)")
	fs.StringVar(&cfg.JUnitPath, "junit", "", "also write the report as JUnit XML to this file")
	if !parse(fs, args, env) {
		return ExitUsage
	}
	// Outside Actions nobody reads workflow commands: on a terminal they
	// are noise. --annotations given says what to do either way.
	if !flagSet(fs, "annotations") {
		cfg.Annotations = env.Getenv("GITHUB_ACTIONS") == "true"
	}
	var err error
	if cfg.FailOn, err = exitcode.ParseFailOn(*failOn); err != nil {
		fmt.Fprintf(env.Stderr, "behaves publish: --fail-on: %v\n", err)
		return ExitUsage
	}
	if cfg.Comment, err = gh.ParseCommentMode(*comment); err != nil {
		fmt.Fprintf(env.Stderr, "behaves publish: --comment: %v\n", err)
		return ExitUsage
	}
	if cfg.MaxReportSize <= 0 {
		fmt.Fprintln(env.Stderr, "behaves publish: --max-report-size must be positive")
		return ExitUsage
	}
	if err := gh.ValidateCheckName(cfg.CheckName); err != nil {
		fmt.Fprintf(env.Stderr, "behaves publish: --check-name: %v\n", err)
		return ExitUsage
	}
	if cfg.token == "" {
		cfg.token = env.Getenv("INPUT_GITHUB-TOKEN")
	}
	if cfg.token == "" {
		cfg.token = env.Getenv("GITHUB_TOKEN")
	}
	return publishReport(ctx, env, cfg, ExitTrue)
}

// flagSet reports whether the named flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// publishReport publishes the report cfg names to the GitHub run the
// environment names (ghpublish.Publish) and returns the exit code.
func publishReport(ctx context.Context, env Env, cfg publishConfig, runCode int) int {
	return ghpublish.Publish(ctx, cfg.Config, publishTarget(env, cfg.token), runCode).Code
}

// publishTarget is where publishing writes: stdout, and the Actions run
// the environment describes (GITHUB_*), with token for the API.
func publishTarget(env Env, token string) ghpublish.Target {
	return ghpublish.Target{
		Log:         env.Stdout,
		Actions:     env.Getenv("GITHUB_ACTIONS") == "true",
		EventName:   env.Getenv("GITHUB_EVENT_NAME"),
		EventPath:   env.Getenv("GITHUB_EVENT_PATH"),
		RunID:       env.Getenv("GITHUB_RUN_ID"),
		Workspace:   workspace(env),
		ServerURL:   env.Getenv("GITHUB_SERVER_URL"),
		Repository:  env.Getenv("GITHUB_REPOSITORY"),
		APIURL:      env.Getenv("GITHUB_API_URL"),
		GraphQLURL:  env.Getenv("GITHUB_GRAPHQL_URL"),
		StepSummary: env.Getenv("GITHUB_STEP_SUMMARY"),
		Output:      env.Getenv("GITHUB_OUTPUT"),
		Token:       token,
	}
}

// workspace is GITHUB_WORKSPACE, the folder the action's paths are
// relative to ("" outside Actions).
func workspace(env Env) string { return env.Getenv("GITHUB_WORKSPACE") }
