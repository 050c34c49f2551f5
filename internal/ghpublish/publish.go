// Package ghpublish publishes a report to GitHub: everything the GitHub
// Action shows (annotations, the job summary, the pull request comment, the
// check run, the step's outputs) and the exit code the report stands for,
// from a report alone. It is the library call behind `behaves publish`
// (what the fork-safe pattern's workflow_run workflow runs) and behind
// `behaves action` after the spec; the command line only fills its Config
// and Target, from flags or inputs and the environment. The report is
// untrusted input here (a fork's pull request wrote it): reportread.File
// checks it before anything reads it, and every string of it reaches the
// log, the markdown and the API only through package publish's renderers.
// Before anything is published the report's provenance is checked: under a
// workflow_run event it must be the triggering run's, elsewhere under
// Actions this run's own. The only credential it uses is Target.Token,
// sent to Target.APIURL.
package ghpublish

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/behaves-dev/behaves/internal/escape"
	"github.com/behaves-dev/behaves/internal/exitcode"
	"github.com/behaves-dev/behaves/internal/htmlreport"
	"github.com/behaves-dev/behaves/internal/junit"
	"github.com/behaves-dev/behaves/internal/publish"
	gh "github.com/behaves-dev/behaves/internal/publish/github"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/terminal"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// maxLineCountBytes bounds how much of a program file is read to count its
// lines (for clamping an annotation's line): a file larger than this gets
// its annotation unclamped at the line the output named, at least 1.
const maxLineCountBytes = 16 << 20

// maxDecidingLines is how many deciding programs the log's last lines name
// before counting the rest.
const maxDecidingLines = 10

// DefaultCheckName is the check run's name when the workflow gives none
// (--check-name, the action's check-name): the report's text never names a
// check. It differs from the job names of the examples (behaves, publish,
// shard, merge), so that a published check run, which says what a report
// claims, is never mistaken for the status of the job that gates.
const DefaultCheckName = "behaves / report"

// noticeLevel is the runner's notice command, for publishing's own notes.
const noticeLevel = publish.Level("notice")

// Config is what to publish and how: behaves publish's flags, or the
// action's inputs.
type Config struct {
	// ReportPath is the report to read (absolute, or relative to the
	// working directory).
	ReportPath string
	FailOn     exitcode.FailOn
	Comment    gh.CommentMode
	CheckRun   bool
	// AllowFiltered lets a check run be posted from a report of a run
	// filtered with --program (report.Filter), which answers for part of
	// the spec only.
	AllowFiltered bool
	CheckName     string // the check run's, checked by gh.ValidateCheckName
	Annotations   bool
	MaxReportSize int64
	// JUnitPath is where to write the report as JUnit XML ("" for none).
	JUnitPath string
	// HTMLPath is where the HTML report is written ("" for none): the
	// action's html input.
	HTMLPath string
	// Shard is set for the action's run of one shard (input shard): the
	// step sets its outputs and prints its annotations, but writes no job
	// summary, comment or check run; the merge job publishes those once
	// for the whole matrix.
	Shard bool
}

// Target is where a report is published: the step's log, the runner's
// files, the Actions event and run, and the GitHub API. The command line
// fills it from the environment (Actions' GITHUB_* variables); a field
// left "" is not published to.
type Target struct {
	// Log is the step's log (stdout): the annotations as workflow
	// commands, and publishing's own lines.
	Log io.Writer
	// Actions says the step runs under GitHub Actions (GITHUB_ACTIONS):
	// the report must then be this run's, and behaves' own lines go
	// inside a stop-commands region.
	Actions bool
	// EventName and EventPath are the Actions event (GITHUB_EVENT_NAME,
	// GITHUB_EVENT_PATH); no path: none (outside Actions).
	EventName, EventPath string
	// RunID is the Actions run publishing (GITHUB_RUN_ID).
	RunID string
	// Workspace is the folder the action's paths are relative to, its
	// checkout (GITHUB_WORKSPACE; "" outside Actions).
	Workspace string
	// ServerURL and Repository make the link to the run
	// (GITHUB_SERVER_URL, GITHUB_REPOSITORY).
	ServerURL, Repository string
	// APIURL and GraphQLURL are the API the comment and the check run
	// are posted to (GITHUB_API_URL, GITHUB_GRAPHQL_URL).
	APIURL, GraphQLURL string
	// StepSummary and Output are the runner's job summary and step
	// outputs files (GITHUB_STEP_SUMMARY, GITHUB_OUTPUT).
	StepSummary, Output string
	// Token is the GitHub token the API calls send, and the only
	// credential publishing uses.
	Token string
}

// messages prints behaves' own lines, which may quote report text, to the
// log as inert text.
func (t Target) messages(lines ...string) { terminal.PrintMessages(t.Log, t.Actions, lines...) }

// Posted is what publishing did.
type Posted struct {
	// Code is the exit code: the report's, made worse by the run's.
	Code int
	// Refused is why nothing was published (the report is unreadable,
	// invalid or not the run's); nil when it was.
	Refused error
	// Comment is the pull request comment posted, or nil.
	Comment *gh.CommentResult
	// CheckRun is the check run posted, or nil.
	CheckRun *gh.CheckRunResult
}

// Publish publishes the report at cfg.ReportPath to t and says what it
// posted, with the exit code: the report's (its verdicts under
// cfg.FailOn), made worse by runCode, the exit code of the run that wrote
// it in this process (exitcode.True when there was none). What GitHub
// refuses is a notice: reporting never fails the gate.
func Publish(ctx context.Context, cfg Config, t Target, runCode int) Posted {
	out := t.Log
	rep, err := reportread.File(cfg.ReportPath, cfg.MaxReportSize)
	if err != nil {
		t.messages("behaves: nothing published: " + err.Error())
		refuseJUnit(t, cfg)
		return Posted{Code: exitcode.RunFailed, Refused: err}
	}
	ev, err := readEvent(t)
	if err != nil {
		if t.EventName == "workflow_run" {
			t.messages("behaves: nothing published: the report's run cannot be checked: " + err.Error())
			refuseJUnit(t, cfg)
			return Posted{Code: exitcode.RunFailed, Refused: err}
		}
		notice(out, "behaves: no pull request comment or check run: "+err.Error())
	}
	if err := checkOrigin(rep, ev, t); err != nil {
		t.messages("behaves: nothing published: " + err.Error())
		refuseJUnit(t, cfg)
		return Posted{Code: exitcode.RunFailed, Refused: err}
	}
	if len(rep.Filter) > 0 && cfg.CheckRun && !cfg.AllowFiltered {
		// A check run is a gate: one from a run of some programs would
		// pass it on part of the spec.
		err := fmt.Errorf("the report is of a run filtered with --program %s: a check run from it would pass the gate on part of the spec; publish it without --check-run, or with --allow-filtered", strings.Join(rep.Filter, " --program "))
		t.messages("behaves: nothing published: " + err.Error())
		refuseJUnit(t, cfg)
		return Posted{Code: exitcode.Usage, Refused: err}
	}
	code := exitcode.Worse(exitcode.OfReport(rep, cfg.FailOn), runCode)
	if cfg.HTMLPath != "" {
		// Like the comment and the check run, the page is reporting: a
		// failure to write it is a warning, never the gate's result (the
		// upload step that wants the file fails on its own).
		if err := htmlreport.WriteFile(cfg.HTMLPath, rep); err != nil {
			Command(out, publish.LevelWarning, "behaves: the HTML report was not written: "+err.Error())
		} else {
			// Named, as run --html names it: the log says where to look.
			t.messages("behaves: wrote the HTML page to " + shownPath(t.Workspace, cfg.HTMLPath))
		}
	}
	if rep.SpecFile == "" {
		// A run stopped by spec errors never learned the repository root;
		// the action's paths are relative to the workspace, its checkout.
		rep.SpecFile = inside(t.Workspace, rep.Spec)
	}
	if err := writeJUnit(cfg.JUnitPath, rep); err != nil {
		t.messages("behaves: " + err.Error())
		code = exitcode.Worse(code, exitcode.RunFailed)
	} else if cfg.JUnitPath != "" {
		t.messages("behaves: wrote JUnit XML to " + shownPath(t.Workspace, cfg.JUnitPath))
	}

	runURL, err := publish.RunURL(t.ServerURL, t.Repository, t.RunID)
	if err != nil {
		runURL = "" // outside Actions: no link
	}
	opts := publish.Options{RunURL: runURL, Annotations: cfg.Annotations, CheckRun: cfg.CheckRun, CheckRunAnnotations: gh.MaxCheckRunAnnotations}
	anns := publish.Annotations(rep, publish.AnnotationOptions{LineCount: LineCounter(t.Workspace)})
	if cfg.Annotations {
		// Outside any stop-commands region: these are the only commands
		// behaves means the runner to read. Each is one line, escaped.
		lines, _ := publish.WorkflowCommands(anns)
		for _, l := range lines {
			fmt.Fprintln(out, l)
		}
	}
	if path := t.StepSummary; path != "" && !cfg.Shard {
		if err := AppendFile(path, publish.Summary(rep, opts)); err != nil {
			notice(out, "behaves: the job summary was not written: "+err.Error())
		}
	}
	if path := t.Output; path != "" {
		if err := AppendFile(path, outputs(rep, cfg.ReportPath, cfg.HTMLPath, t.Workspace)); err != nil {
			t.messages("behaves: the step's outputs were not written: " + err.Error())
			code = exitcode.Worse(code, exitcode.RunFailed)
		}
	}
	posted := Posted{Code: code}
	postToGitHub(ctx, t, cfg, rep, ev, anns, opts, &posted)
	t.messages(deciding(rep, code)...)
	return posted
}

// writeJUnit writes r as JUnit XML to path ("" writes nothing).
func writeJUnit(path string, r report.Report) error {
	if path == "" {
		return nil
	}
	return junit.WriteFile(path, r, junit.Options{})
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

// refuseJUnit removes the JUnit file publishing would have written, for a
// report it refused.
func refuseJUnit(t Target, cfg Config) {
	if err := removeJUnit(cfg.JUnitPath); err != nil {
		t.messages("behaves: " + err.Error())
	}
}

// readEvent reads the Actions event (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH);
// nil without one (outside Actions).
func readEvent(t Target) (*gh.Event, error) {
	path := t.EventPath
	if path == "" {
		return nil, nil
	}
	return gh.ReadEvent(t.EventName, path)
}

// checkOrigin refuses a report that is not the run's being published: under
// a workflow_run event, the triggering run's (gh.CheckProvenance); elsewhere
// under Actions, this run's own (a report committed to the repository, or
// left by another run, names another run ID or none).
func checkOrigin(rep report.Report, ev *gh.Event, t Target) error {
	if ev != nil && ev.WorkflowRun != nil {
		return gh.CheckProvenance(gh.Provenance{RunID: rep.GitHub.RunID, RunAttempt: rep.GitHub.RunAttempt, HeadSHA: rep.GitHub.HeadSHA}, ev.WorkflowRun)
	}
	if !t.Actions {
		return nil
	}
	if own := t.RunID; rep.GitHub.RunID != own {
		return fmt.Errorf("refusing the report: it is from workflow run %q, not this run (%s)", rep.GitHub.RunID, own)
	}
	return nil
}

// conclusion is the check run's conclusion for the step's exit code:
// failure whenever the step fails, neutral only for an undetermined result
// that does not fail it (fail-on false), success otherwise. Required checks
// count neutral as passing, so it never stands for a failing gate.
func conclusion(rep report.Report, code int) gh.Conclusion {
	switch {
	case code != exitcode.True:
		return gh.ConclusionFailure
	case rep.Verdict == verdict.Undetermined:
		return gh.ConclusionNeutral
	}
	return gh.ConclusionSuccess
}

// postToGitHub posts the comment and the check run, as cfg asks. Every
// failure is a notice or a warning, never the exit code.
func postToGitHub(ctx context.Context, t Target, cfg Config, rep report.Report, ev *gh.Event, anns []publish.Annotation, opts publish.Options, posted *Posted) {
	wantComment := cfg.Comment != gh.CommentOff
	if !wantComment && !cfg.CheckRun || ev == nil || cfg.Shard {
		return
	}
	client, err := gh.NewClient(gh.Env{
		APIURL:     t.APIURL,
		GraphQLURL: t.GraphQLURL,
		Repository: t.Repository,
		Token:      t.Token,
	})
	if err != nil {
		notice(t.Log, "behaves: no pull request comment or check run: "+err.Error())
		return
	}
	if wantComment {
		posted.Comment = postComment(ctx, t, cfg, client, rep, ev, opts)
	}
	if cfg.CheckRun {
		posted.CheckRun = postCheckRun(ctx, t, cfg, client, rep, ev, anns, opts, posted.Code)
	}
}

// postComment posts the sticky comment; nil when none was posted.
func postComment(ctx context.Context, t Target, cfg Config, client *gh.Client, rep report.Report, ev *gh.Event, opts publish.Options) *gh.CommentResult {
	pr, err := client.PullRequestNumber(ctx, ev)
	switch {
	case err != nil:
		failedPost(t, "no pull request comment", err)
		return nil
	case pr == 0:
		return nil // not a pull request's run: nothing to comment on
	}
	res, err := client.PublishComment(ctx, gh.Comment{PR: pr, Marker: publish.Marker(rep), Body: publish.Comment(rep, opts), Mode: cfg.Comment})
	if err != nil {
		failedPost(t, "no pull request comment", err)
		return nil
	}
	t.messages(fmt.Sprintf("behaves: pull request comment %s: %s", res.Action, res.URL))
	if res.Others > 0 {
		others := fmt.Sprintf("%d newer comments on #%d also start", res.Others, pr)
		if res.Others == 1 {
			others = fmt.Sprintf("1 newer comment on #%d also starts", pr)
		}
		notice(t.Log, fmt.Sprintf("behaves: %s with this spec's marker; the oldest (%s) is the sticky comment and was the one published, and the newer were left as they are: delete them", others, res.URL))
	}
	return &res
}

// postCheckRun posts the check run; nil when none was posted.
func postCheckRun(ctx context.Context, t Target, cfg Config, client *gh.Client, rep report.Report, ev *gh.Event, anns []publish.Annotation, opts publish.Options, code int) *gh.CheckRunResult {
	head := ev.HeadSHA()
	if head == "" {
		notice(t.Log, "behaves: no check run: the event names no head commit")
		return nil
	}
	run := gh.CheckRun{
		Name:        cfg.CheckName,
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
		failedPost(t, "the check run is incomplete", err)
		return nil
	}
	msg := fmt.Sprintf("behaves: check run %q (%s), %s", run.Name, run.Conclusion, verdict.Count(res.AnnotationsSent, "annotation", "annotations"))
	if res.AnnotationsNotSent > 0 {
		msg += fmt.Sprintf(", %d not sent (at most %d a check run)", res.AnnotationsNotSent, gh.MaxCheckRunAnnotations)
	}
	if noFile > 0 {
		msg += fmt.Sprintf(", %d on no file of the repository left out (the Checks API needs a path; the job's annotations and the summary have them)", noFile)
	}
	t.messages(msg + ": " + res.URL)
	return &res
}

// failedPost logs a failed post: a notice for a refusal (a fork's read-only
// token), a warning for anything else. Neither changes the exit code.
func failedPost(t Target, what string, err error) {
	level := publish.LevelWarning
	if errors.Is(err, gh.ErrNotPermitted) {
		level = noticeLevel
	}
	Command(t.Log, level, fmt.Sprintf("behaves: %s: %v", what, err))
}

// notice prints msg as a notice command.
func notice(w io.Writer, msg string) { Command(w, noticeLevel, msg) }

// Command prints msg as one workflow command of level, escaped to one line
// (escape.Text, then the runner's data escaping in Command).
func Command(w io.Writer, level publish.Level, msg string) {
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
		lines = append(lines, fmt.Sprintf("behaves: and %d more %s %s", n-maxDecidingLines, want, verdict.Plural(n-maxDecidingLines, "program", "programs")))
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
	random := make([]byte, 16)
	rand.Read(random) // crypto/rand never fails on Linux
	delim := "behaves_" + hex.EncodeToString(random)
	s := fmt.Sprintf("verdict=%s\ntotal=%d\ntrue=%d\nfalse=%d\nundetermined=%d\nreport<<%s\n%s\n%s\n",
		rep.Verdict, c.Total, c.True, c.False, c.Undetermined, delim, shownPath(ws, reportPath), delim)
	if htmlPath != "" {
		s += fmt.Sprintf("html<<%s\n%s\n%s\n", delim, shownPath(ws, htmlPath), delim)
	}
	return s
}

// shownPath is p as the workflow names it: relative to the workspace ws
// when it is inside it, else as it is.
func shownPath(ws, p string) string {
	if r := inside(ws, p); r != "" {
		return r
	}
	return p
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

// AppendFile appends text to the runner's file at path (GITHUB_OUTPUT,
// GITHUB_STEP_SUMMARY, GITHUB_STATE).
func AppendFile(path, text string) error {
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

// LineCounter returns the AnnotationOptions.LineCount for the repository
// checked out at root ("" for the working directory): it opens the
// report's path through an os.Root, so a path or symlink that leaves root
// is refused, reads regular files only, and at most maxLineCountBytes.
func LineCounter(root string) func(path string) int {
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
