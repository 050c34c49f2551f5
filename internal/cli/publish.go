package cli

// behaves publish: everything the GitHub Action shows (annotations, the job
// summary, the pull request comment, the check run, the step's outputs and
// its exit code), from a report alone. It is what the fork-safe pattern's
// workflow_run workflow runs, and what `behaves action` runs after the
// spec. The report is untrusted input here (a fork's pull request wrote
// it): reportread.File checks it before anything reads it, and every
// string of it reaches the log, the markdown and the API only through
// package publish's renderers.

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/behaves-dev/behaves/internal/escape"
	"github.com/behaves-dev/behaves/internal/publish"
	gh "github.com/behaves-dev/behaves/internal/publish/github"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// DefaultMaxReadReport is the default bound on the report publish reads:
// behaves' own default --max-report-size budget for case entries (256MiB)
// and reportReadSlack for everything else a report holds.
const DefaultMaxReadReport = 256<<20 + reportReadSlack

// reportReadSlack is what a report may hold beyond its case entries'
// budget (--max-report-size): programs, settings, counts.
const reportReadSlack = 64 << 20

// maxLineCountBytes bounds how much of a program file is read to count its
// lines (for clamping an annotation's line): a file larger than this gets
// its annotation unclamped at the line the output named, at least 1.
const maxLineCountBytes = 16 << 20

// maxDecidingLines is how many deciding programs the log's last lines name
// before counting the rest.
const maxDecidingLines = 10

// defaultCheckName is the check run's name when the workflow gives none
// (--check-name, the action's check-name): the report's text never names a
// check. It differs from the job names of the examples (behaves, publish,
// shard, merge), so that a published check run, which says what a report
// claims, is never mistaken for the status of the job that gates.
const defaultCheckName = "behaves / report"

// noticeLevel is the runner's notice command, for publishing's own notes.
const noticeLevel = publish.Level("notice")

// publishConfig is what publishing needs: publish's flags, or the action's
// inputs.
type publishConfig struct {
	// reportPath is the report to read (absolute, or relative to the
	// working directory).
	reportPath    string
	token         string
	failOn        FailOn
	comment       gh.CommentMode
	checkRun      bool
	checkName     string // the check run's, checked by gh.ValidateCheckName
	annotations   bool
	maxReportSize int64
	// junitPath is where to write the report as JUnit XML ("" for none).
	junitPath string
	// htmlPath is where the HTML report is written ("" for none): the
	// action's html input.
	htmlPath string
	// shard is set for the action's run of one shard (input shard): the
	// step sets its outputs and prints its annotations, but writes no job
	// summary, comment or check run; the merge job publishes those once
	// for the whole matrix.
	shard bool
}

const publishUsage = `usage: behaves publish [--report FILE] [--github-token TOKEN] [--fail-on false|undetermined]
                       [--comment update|new|off] [--check-run] [--check-name NAME]
                       [--annotations=true|false] [--junit FILE]

Publishes a report as the GitHub Action does: workflow-command annotations on
stdout, the job summary (GITHUB_STEP_SUMMARY), the sticky pull request comment
(pull_request events, and workflow_run events of pull requests), the check run,
the step's outputs (GITHUB_OUTPUT) and the exit code. The report is checked
first (schema, keys, enums, verdicts recomputed from its cases); under a
workflow_run event it must be from that run (github.run_id, run_attempt,
head_sha), elsewhere under Actions from this run. A refusal of the GitHub API
(403, 404) is a notice: publishing never changes the exit code. --junit also
writes the report as JUnit XML; a report that is refused removes what is at
that path instead.

The token is --github-token, else INPUT_GITHUB-TOKEN, else GITHUB_TOKEN.

exit codes: as run's, from the report's verdicts and --fail-on · 2 usage, or
            a report of a spec with errors · 4 the report is unreadable, invalid,
            not from this run, or records a failed run

flags:
`

// publishCommand is `behaves publish`.
func publishCommand(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("publish", flag.ContinueOnError)
	cfg := publishConfig{maxReportSize: DefaultMaxReadReport}
	fs.StringVar(&cfg.reportPath, "report", "behaves-report.json", "the report to publish")
	fs.StringVar(&cfg.token, "github-token", "", "the GitHub token (default: INPUT_GITHUB-TOKEN, else GITHUB_TOKEN)")
	failOn := fs.String("fail-on", string(FailOnUndetermined), "which verdicts fail the command: false or undetermined")
	comment := fs.String("comment", string(gh.CommentUpdate), "the pull request comment: update (one sticky comment), new, or off")
	fs.BoolVar(&cfg.checkRun, "check-run", false, "create a check run on the pull request's head (needs checks: write)")
	fs.StringVar(&cfg.checkName, "check-name", defaultCheckName, "the check run's name: not a job's name, so that it is never taken for the gate's status")
	fs.BoolVar(&cfg.annotations, "annotations", true, "print annotations as workflow commands (default: under GitHub Actions only)")
	fs.Var((*sizeFlag)(&cfg.maxReportSize), "max-report-size", "the largest report read (KiB, MiB, GiB)")
	fs.StringVar(&cfg.junitPath, "junit", "", "also write the report as JUnit XML to this file")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), publishUsage)
		fs.PrintDefaults()
	}
	if !parse(fs, args, env) {
		return ExitUsage
	}
	// Outside Actions nobody reads workflow commands: on a terminal they
	// are noise. --annotations given says what to do either way.
	if !flagSet(fs, "annotations") {
		cfg.annotations = env.Getenv("GITHUB_ACTIONS") == "true"
	}
	var err error
	if cfg.failOn, err = parseFailOn(*failOn); err != nil {
		fmt.Fprintf(env.Stderr, "behaves publish: --fail-on: %v\n", err)
		return ExitUsage
	}
	if cfg.comment, err = gh.ParseCommentMode(*comment); err != nil {
		fmt.Fprintf(env.Stderr, "behaves publish: --comment: %v\n", err)
		return ExitUsage
	}
	if cfg.maxReportSize <= 0 {
		fmt.Fprintln(env.Stderr, "behaves publish: --max-report-size must be positive")
		return ExitUsage
	}
	if err := gh.ValidateCheckName(cfg.checkName); err != nil {
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

// parseFailOn parses a --fail-on value (or the fail-on input).
func parseFailOn(s string) (FailOn, error) {
	switch f := FailOn(s); f {
	case FailOnFalse, FailOnUndetermined:
		return f, nil
	}
	return "", fmt.Errorf("want false or undetermined, not %q", s)
}

// publishReport publishes the report at cfg.reportPath and returns the exit
// code: the report's (its verdicts under cfg.failOn), made worse by
// runCode, the exit code of the run that wrote it in this process (ExitTrue
// when there was none). What GitHub refuses is a notice: reporting never
// fails the gate.
func publishReport(ctx context.Context, env Env, cfg publishConfig, runCode int) int {
	out := env.Stdout
	rep, err := reportread.File(cfg.reportPath, cfg.maxReportSize)
	if err != nil {
		printMessages(out, env, "behaves: nothing published: "+err.Error())
		refuseJUnit(env, cfg)
		return ExitRunFailed
	}
	ev, err := readEvent(env)
	if err != nil {
		if env.Getenv("GITHUB_EVENT_NAME") == "workflow_run" {
			printMessages(out, env, "behaves: nothing published: the report's run cannot be checked: "+err.Error())
			refuseJUnit(env, cfg)
			return ExitRunFailed
		}
		notice(out, "behaves: no pull request comment or check run: "+err.Error())
	}
	if err := checkOrigin(rep, ev, env); err != nil {
		printMessages(out, env, "behaves: nothing published: "+err.Error())
		refuseJUnit(env, cfg)
		return ExitRunFailed
	}
	code := worse(reportExitCode(rep, cfg.failOn), runCode)
	if cfg.htmlPath != "" {
		// Like the comment and the check run, the page is reporting: a
		// failure to write it is a warning, never the gate's result (the
		// upload step that wants the file fails on its own).
		if err := writeHTML(rep, cfg.htmlPath); err != nil {
			command(out, publish.LevelWarning, "behaves: the HTML report was not written: "+err.Error())
		}
	}
	if rep.SpecFile == "" {
		// A run stopped by spec errors never learned the repository root;
		// the action's paths are relative to the workspace, its checkout.
		rep.SpecFile = inside(workspace(env), rep.Spec)
	}
	if err := writeJUnit(cfg.junitPath, rep); err != nil {
		printMessages(out, env, "behaves: "+err.Error())
		code = worse(code, ExitRunFailed)
	}

	runURL, err := publish.RunURL(env.Getenv("GITHUB_SERVER_URL"), env.Getenv("GITHUB_REPOSITORY"), env.Getenv("GITHUB_RUN_ID"))
	if err != nil {
		runURL = "" // outside Actions: no link
	}
	opts := publish.Options{RunURL: runURL, Annotations: cfg.annotations, CheckRun: cfg.checkRun, CheckRunAnnotations: gh.MaxCheckRunAnnotations}
	anns := publish.Annotations(rep, publish.AnnotationOptions{LineCount: lineCounter(workspace(env))})
	if cfg.annotations {
		// Outside any stop-commands region: these are the only commands
		// behaves means the runner to read. Each is one line, escaped.
		lines, _ := publish.WorkflowCommands(anns)
		for _, l := range lines {
			fmt.Fprintln(out, l)
		}
	}
	if path := env.Getenv("GITHUB_STEP_SUMMARY"); path != "" && !cfg.shard {
		if err := appendFile(path, publish.Summary(rep, opts)); err != nil {
			notice(out, "behaves: the job summary was not written: "+err.Error())
		}
	}
	if path := env.Getenv("GITHUB_OUTPUT"); path != "" {
		if err := appendFile(path, outputs(rep, cfg.reportPath, cfg.htmlPath, workspace(env))); err != nil {
			printMessages(out, env, "behaves: the step's outputs were not written: "+err.Error())
			code = worse(code, ExitRunFailed)
		}
	}
	postToGitHub(ctx, env, cfg, rep, ev, anns, opts, code)
	printMessages(out, env, deciding(rep, code)...)
	return code
}

// refuseJUnit removes the JUnit file publishing would have written, for a
// report it refused.
func refuseJUnit(env Env, cfg publishConfig) {
	if err := removeJUnit(cfg.junitPath); err != nil {
		printMessages(env.Stdout, env, "behaves: "+err.Error())
	}
}

// readEvent reads the Actions event (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH);
// nil without one (outside Actions).
func readEvent(env Env) (*gh.Event, error) {
	path := env.Getenv("GITHUB_EVENT_PATH")
	if path == "" {
		return nil, nil
	}
	return gh.ReadEvent(env.Getenv("GITHUB_EVENT_NAME"), path)
}

// checkOrigin refuses a report that is not the run's being published: under
// a workflow_run event, the triggering run's (gh.CheckProvenance); elsewhere
// under Actions, this run's own (a report committed to the repository, or
// left by another run, names another run ID or none).
func checkOrigin(rep report.Report, ev *gh.Event, env Env) error {
	if ev != nil && ev.WorkflowRun != nil {
		return gh.CheckProvenance(gh.Provenance{RunID: rep.GitHub.RunID, RunAttempt: rep.GitHub.RunAttempt, HeadSHA: rep.GitHub.HeadSHA}, ev.WorkflowRun)
	}
	if env.Getenv("GITHUB_ACTIONS") != "true" {
		return nil
	}
	if own := env.Getenv("GITHUB_RUN_ID"); rep.GitHub.RunID != own {
		return fmt.Errorf("refusing the report: it is from workflow run %q, not this run (%s)", rep.GitHub.RunID, own)
	}
	return nil
}

// reportExitCode is the exit code a report stands for: 2 for spec errors
// (as run exits), 4 when the run failed, else its verdict under failOn.
func reportExitCode(rep report.Report, failOn FailOn) int {
	switch {
	case len(rep.SpecErrors) > 0:
		return ExitUsage
	case rep.Error != "":
		return ExitRunFailed
	}
	// A shard that never reported is a part of the suite nobody judged:
	// like a nondeterministic case, never a pass, whatever fail-on says.
	missing := rep.Shard != nil && len(rep.Shard.Missing) > 0
	return exitCode(rep.Verdict, false, failOn, rep.Counts.Cases.Nondeterministic > 0 || missing)
}

// worse returns the more severe of two exit codes: 4, then 2, then 1, then
// 3, then 0.
func worse(a, b int) int {
	rank := func(c int) int {
		switch c {
		case ExitRunFailed:
			return 4
		case ExitUsage:
			return 3
		case ExitFalse:
			return 2
		case ExitUndetermined:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// conclusion is the check run's conclusion for the step's exit code:
// failure whenever the step fails, neutral only for an undetermined result
// that does not fail it (fail-on false), success otherwise. Required checks
// count neutral as passing, so it never stands for a failing gate.
func conclusion(rep report.Report, code int) gh.Conclusion {
	switch {
	case code != ExitTrue:
		return gh.ConclusionFailure
	case rep.Verdict == verdict.Undetermined:
		return gh.ConclusionNeutral
	}
	return gh.ConclusionSuccess
}

// postToGitHub posts the comment and the check run, as cfg asks. Every
// failure is a notice or a warning, never the exit code.
func postToGitHub(ctx context.Context, env Env, cfg publishConfig, rep report.Report, ev *gh.Event, anns []publish.Annotation, opts publish.Options, code int) {
	wantComment := cfg.comment != gh.CommentOff
	if !wantComment && !cfg.checkRun || ev == nil || cfg.shard {
		return
	}
	client, err := gh.NewClient(gh.Env{
		APIURL:     env.Getenv("GITHUB_API_URL"),
		GraphQLURL: env.Getenv("GITHUB_GRAPHQL_URL"),
		Repository: env.Getenv("GITHUB_REPOSITORY"),
		Token:      cfg.token,
	})
	if err != nil {
		notice(env.Stdout, "behaves: no pull request comment or check run: "+err.Error())
		return
	}
	if wantComment {
		postComment(ctx, env, cfg, client, rep, ev, opts)
	}
	if cfg.checkRun {
		postCheckRun(ctx, env, cfg, client, rep, ev, anns, opts, code)
	}
}

func postComment(ctx context.Context, env Env, cfg publishConfig, client *gh.Client, rep report.Report, ev *gh.Event, opts publish.Options) {
	pr, err := client.PullRequestNumber(ctx, ev)
	switch {
	case err != nil:
		failedPost(env, "no pull request comment", err)
		return
	case pr == 0:
		return // not a pull request's run: nothing to comment on
	}
	res, err := client.PublishComment(ctx, gh.Comment{PR: pr, Marker: publish.Marker(rep), Body: publish.Comment(rep, opts), Mode: cfg.comment})
	if err != nil {
		failedPost(env, "no pull request comment", err)
		return
	}
	printMessages(env.Stdout, env, fmt.Sprintf("behaves: pull request comment %s: %s", res.Action, res.URL))
	if res.Others > 0 {
		others := fmt.Sprintf("%d newer comments on #%d also start", res.Others, pr)
		if res.Others == 1 {
			others = fmt.Sprintf("1 newer comment on #%d also starts", pr)
		}
		notice(env.Stdout, fmt.Sprintf("behaves: %s with this spec's marker; the oldest (%s) is the sticky comment and was the one published, and the newer were left as they are: delete them", others, res.URL))
	}
}

func postCheckRun(ctx context.Context, env Env, cfg publishConfig, client *gh.Client, rep report.Report, ev *gh.Event, anns []publish.Annotation, opts publish.Options, code int) {
	head := ev.HeadSHA()
	if head == "" {
		notice(env.Stdout, "behaves: no check run: the event names no head commit")
		return
	}
	run := gh.CheckRun{
		Name:        cfg.checkName,
		HeadSHA:     head,
		Conclusion:  conclusion(rep, code),
		Title:       publish.Headline(rep),
		Summary:     publish.CheckRunSummary(rep, opts),
		DetailsURL:  opts.RunURL,
		Annotations: make([]gh.Annotation, 0, len(anns)),
	}
	noFile := 0
	for _, a := range anns {
		if a.Path == "" {
			// The Checks API takes an annotation only on a file (it
			// refuses the whole run otherwise); the job's own
			// annotations carry these.
			noFile++
			continue
		}
		level := gh.LevelWarning
		if a.Level == publish.LevelError {
			level = gh.LevelFailure
		}
		run.Annotations = append(run.Annotations, gh.Annotation{
			Path: a.Path, StartLine: a.StartLine, EndLine: a.EndLine, StartColumn: a.Col, EndColumn: a.Col,
			Level: level, Title: a.Title, Message: a.Message, RawDetails: a.RawDetails,
		})
	}
	res, err := client.PublishCheckRun(ctx, run)
	if err != nil {
		failedPost(env, "the check run is incomplete", err)
		return
	}
	msg := fmt.Sprintf("behaves: check run %q (%s), %d annotation(s)", run.Name, run.Conclusion, res.AnnotationsSent)
	if res.AnnotationsNotSent > 0 {
		msg += fmt.Sprintf(", %d not sent (at most %d a check run)", res.AnnotationsNotSent, gh.MaxCheckRunAnnotations)
	}
	if noFile > 0 {
		msg += fmt.Sprintf(", %d on no file of the repository left out (the Checks API needs a path; the job's annotations and the summary have them)", noFile)
	}
	printMessages(env.Stdout, env, msg+": "+res.URL)
}

// failedPost logs a failed post: a notice for a refusal (a fork's read-only
// token), a warning for anything else. Neither changes the exit code.
func failedPost(env Env, what string, err error) {
	level := publish.LevelWarning
	if errors.Is(err, gh.ErrNotPermitted) {
		level = noticeLevel
	}
	command(env.Stdout, level, fmt.Sprintf("behaves: %s: %v", what, err))
}

// notice prints msg as a notice command.
func notice(w io.Writer, msg string) { command(w, noticeLevel, msg) }

// command prints msg as one workflow command of level, escaped to one line
// (escape.Text, then the runner's data escaping in Command).
func command(w io.Writer, level publish.Level, msg string) {
	fmt.Fprintln(w, publish.Annotation{Level: level, Message: escape.Text(msg)}.Command())
}

// deciding is the log's last lines: the result, the exit code, and which
// programs decided it.
func deciding(rep report.Report, code int) []string {
	lines := []string{fmt.Sprintf("behaves: %s (%s): exit %d", rep.Verdict, publish.Headline(rep), code)}
	if rep.Error != "" {
		lines = append(lines, "behaves: the run failed: "+rep.Error)
	}
	want := rep.Verdict
	if want == verdict.True {
		return append(lines, "behaves: decided by every program: all true")
	}
	n := 0
	for _, p := range rep.Programs {
		if p.Verdict != want {
			continue
		}
		n++
		if n <= maxDecidingLines {
			lines = append(lines, fmt.Sprintf("behaves: decided by %s (%s): %s: %s", p.Name, p.File, p.Verdict, p.Reason))
		}
	}
	if n > maxDecidingLines {
		lines = append(lines, fmt.Sprintf("behaves: and %d more %s program(s)", n-maxDecidingLines, want))
	}
	return lines
}

// outputs is the step's outputs in the GITHUB_OUTPUT file format: only
// enumerated values and counts, and the report's path (and the HTML
// report's, when one was asked for) relative to the workspace in a heredoc
// whose delimiter is random (the paths come from the workflow, but no
// value ever ends the heredoc early).
func outputs(rep report.Report, reportPath, htmlPath, ws string) string {
	c := rep.Counts.Programs
	rel := func(p string) string {
		if r := inside(ws, p); r != "" {
			return r
		}
		return p
	}
	delim := "behaves_" + randomHex(16)
	s := fmt.Sprintf("verdict=%s\ntotal=%d\ntrue=%d\nfalse=%d\nundetermined=%d\nreport<<%s\n%s\n%s\n",
		rep.Verdict, c.Total, c.True, c.False, c.Undetermined, delim, rel(reportPath), delim)
	if htmlPath != "" {
		s += fmt.Sprintf("html<<%s\n%s\n%s\n", delim, rel(htmlPath), delim)
	}
	return s
}

// inside returns p relative to ws, slash-separated, when p is inside ws;
// else "".
func inside(ws, p string) string {
	if ws == "" || p == "" {
		return ""
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	rel, err := filepath.Rel(ws, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// workspace is GITHUB_WORKSPACE, the folder the action's paths are
// relative to ("" outside Actions).
func workspace(env Env) string { return env.Getenv("GITHUB_WORKSPACE") }

// appendFile appends text to the runner's file at path.
func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// lineCounter returns the AnnotationOptions.LineCount for the repository
// checked out at root ("" for the working directory): it opens the
// report's path through an os.Root, so a path or symlink that leaves root
// is refused, reads regular files only, and at most maxLineCountBytes.
func lineCounter(root string) func(path string) int {
	if root == "" {
		root = "."
	}
	return func(path string) int {
		r, err := os.OpenRoot(root)
		if err != nil {
			return 0
		}
		defer r.Close()
		f, err := r.Open(filepath.FromSlash(path))
		if err != nil {
			return 0
		}
		defer f.Close()
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxLineCountBytes {
			return 0
		}
		n, last := 0, byte('\n')
		br := bufio.NewReader(io.LimitReader(f, maxLineCountBytes))
		for {
			b, err := br.ReadByte()
			if err != nil {
				break
			}
			if b == '\n' {
				n++
			}
			last = b
		}
		if last != '\n' {
			n++
		}
		return n
	}
}
