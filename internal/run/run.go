// Package run is one run of behaves as a library call: Config says what to
// run (behaves run's flags, or the action's inputs, validated by
// Config.Validate alone), and Run replaces the report, loads the spec,
// connects the sandbox (and pulls, when asked), has the engine run and
// judge every case, and writes the report and its side files. The command
// line only fills Config and Env, prints the terminal summary and maps the
// Result to an exit code.
//
// # Security
//
// Run replaces whatever is at the report path (and the JUnit and HTML
// paths) before it reads anything a pull request controls: a report
// committed to the repository, or left by an earlier run, must not survive
// a spec error or a crash and be published as this run's. Until the run
// ends the report says it did not finish. The stored reports of Reuse are
// read before that, since the report being reused is often the one this
// run writes over; they are untrusted input, read bounded and checked by
// package reuse. Run reads no environment: the GitHub run it records
// (Env.GitHub) and everything else it uses from its surroundings are given.
package run

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/engine"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/reuse"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/shard"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/terminal"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// ReportReadSlack is what a report may hold beyond its case entries'
// budget (--max-report-size): programs, settings, counts.
const ReportReadSlack = 64 << 20

// IDPattern is a run ID behaves draws (NewID: 16 lowercase hex digits);
// a run takes nothing else, since the ID goes into container and volume
// names and labels.
var IDPattern = regexp.MustCompile(`^[0-9a-f]{16}$`)

// NewID draws a run ID.
func NewID() string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return hex.EncodeToString(b)
}

// ErrNotFinished is the report's error from the start of a run until its
// end: what a crash leaves at the report path.
var ErrNotFinished = errors.New("the run did not finish: behaves stopped before writing its report")

// Config is what a run is asked to do: behaves run's flags, or the
// action's inputs. Validate checks it.
type Config struct {
	// SpecPath is the spec to load, with Spec's ceilings, images, allowed
	// untracked files and registries, and whether to pull.
	SpecPath string
	Spec     spec.Options
	// PullTimeout bounds the pull of one image (Spec.Pull).
	PullTimeout time.Duration
	// RunID is the run's ID; "" draws one.
	RunID                           string
	ReportPath, JUnitPath, HTMLPath string
	// Parallel is the invocations at once; 0: engine.DefaultParallel.
	Parallel  int
	MaxReport int64
	PassAt    []int
	Shard     *shard.Ref
	// Programs, when not empty, are --program patterns: only the programs
	// they name run (spec.Select), and the report says it was filtered.
	Programs []string
	// Reuse are the stored reports whose evidence may answer cases
	// (--reuse, in order: the first match wins); MaxReuse bounds each.
	Reuse    []string
	MaxReuse int64
}

// Env is what a run uses from its surroundings; the command line fills it.
type Env struct {
	// Stderr takes behaves' own lines and the progress line.
	Stderr io.Writer
	// Actions says the run is under GitHub Actions: lines that quote spec
	// text are written inside a stop-commands region.
	Actions bool
	// Terminal says Stderr is a terminal (the live progress line).
	Terminal bool
	// Verbose names the files a folder program left out (untracked), not
	// only their count.
	Verbose bool
	// NewSandbox connects to the sandbox for a run.
	NewSandbox func(ctx context.Context, runID string) (runner.Sandbox, io.Closer, error)
	// StaleCheck, when set, is called once the sandbox is connected and
	// before the engine runs (the warning about earlier runs' leftovers).
	StaleCheck func(ctx context.Context)
	// Cleanup is the parent of cleanup contexts (engine.Options.Cleanup).
	Cleanup context.Context
	// Version is behaves' version, and GitHub the Actions run behaves runs
	// in (the zero value outside Actions), both for the report.
	Version string
	GitHub  report.GitHub
}

// messages prints behaves' own lines, which may quote spec text, to
// Stderr as inert text.
func (env Env) messages(lines ...string) { terminal.PrintMessages(env.Stderr, env.Actions, lines...) }

// Result is what a run came to. Exactly one of ReuseErr, SpecErr and Ran
// is set, unless the report could not be written at all.
type Result struct {
	// ReuseErr: the stored reports were refused; nothing ran (a usage
	// error: the report says so).
	ReuseErr error
	// SpecErr: the spec could not be read, has problems (spec.Errors), or
	// asks for more CPUs than the sandbox has; nothing ran.
	SpecErr error
	// Ran: the engine ran and Report is its report, as committed.
	Ran    bool
	Report report.Report
	// RunErr is why the run failed (the sandbox, an interruption).
	RunErr error
	// Wrote are the paths written with the run's report ("" for none).
	Wrote Wrote
	// CloseErr is the failure to remove the report's spool, after
	// everything else.
	CloseErr error
}

// Wrote are the files a run wrote its report to.
type Wrote struct{ Report, JUnit, HTML string }

// Run runs what cfg asks for (checked by cfg.Validate) and says what came
// of it. Its error is a report or side file it could not write; the
// Result then still says how far the run got.
func Run(ctx context.Context, cfg Config, env Env) (res Result, err error) {
	started := time.Now()
	runID := cfg.RunID
	if runID == "" {
		runID = NewID()
	}
	origin := env.GitHub
	// The stored reports are read before the report path is replaced: the
	// report being reused is often the one this run writes over.
	var store *reuse.Store
	var reuseErr error
	if len(cfg.Reuse) > 0 {
		store, reuseErr = reuse.Load(cfg.Reuse, cfg.MaxReuse)
	}
	// Replace whatever is at the report path before reading anything a pull
	// request controls: a report committed to the repository, or left by an
	// earlier run, must not survive a spec error or a crash and be published
	// as this run's. Until the run ends, the report says it did not finish.
	early := func(err error, specErrs spec.Errors) report.Report {
		return assemble.Report(assemble.Input{SpecPath: cfg.SpecPath, RunID: runID, StartedAt: started,
			Duration: time.Since(started), Err: err, SpecErrors: specErrs, Version: env.Version, GitHub: origin})
	}
	// writeEarly writes a report of a run that did not run, and its side
	// files.
	writeEarly := func(rep report.Report) error {
		if err := reportwrite.WriteJSON(cfg.ReportPath, rep); err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
		return writeSideFiles(cfg.JUnitPath, cfg.HTMLPath, rep)
	}
	// The JUnit file and the page too: a stale one must not pass for this
	// run's.
	if err := writeEarly(early(ErrNotFinished, nil)); err != nil {
		return Result{}, err
	}
	if reuseErr != nil {
		return Result{ReuseErr: reuseErr}, writeEarly(early(fmt.Errorf("nothing ran: %w", reuseErr), nil))
	}
	// specFailed writes the report of a run that stopped at a spec error.
	specFailed := func(err error) (Result, error) {
		var list spec.Errors
		why := fmt.Errorf("the spec could not be read; nothing ran: %w", err)
		if errors.As(err, &list) {
			why = fmt.Errorf("the spec has %s; nothing ran", verdict.Count(len(list), "problem", "problems"))
		}
		return Result{SpecErr: err}, writeEarly(early(why, list))
	}

	sp, err := spec.Load(cfg.SpecPath, cfg.Spec)
	if err != nil {
		return specFailed(err)
	}
	env.messages(leftOut(sp, env.Verbose)...)
	if len(cfg.Programs) > 0 {
		if _, err := sp.Select(cfg.Programs); err != nil {
			return specFailed(err)
		}
	}
	plan := engine.NewPlan(sp, engine.Selection{Programs: cfg.Programs, Shard: cfg.Shard}, cfg.Parallel)

	// Each case's evidence goes to the report's spool as soon as it is
	// judged; memory keeps a summary (see report.Writer).
	out, err := assemble.NewWriter(cfg.ReportPath, reportwrite.Options{MaxSize: cfg.MaxReport})
	if err != nil {
		return Result{}, fmt.Errorf("writing the report: %w", err)
	}
	defer func() { res.CloseErr = out.Close() }()
	progress := terminal.NewProgress(env.Stderr, plan.Cases(), env.Terminal)
	opt := engine.Options{RunID: runID, StartedAt: started, Cleanup: env.Cleanup, OnCase: progress.Case,
		Version: env.Version, GitHub: origin, PassAt: cfg.PassAt, Reuse: store}

	sb, closer, err := env.NewSandbox(ctx, runID)
	closeSandbox := func() {
		if err := closer.Close(); err != nil {
			fmt.Fprintf(env.Stderr, "behaves: closing the Docker client: %v\n", err)
		}
	}
	if err == nil {
		if cerr := engine.CheckCPUs(ctx, sb, plan.Spec); cerr != nil {
			closeSandbox()
			var list spec.Errors
			if errors.As(cerr, &list) {
				progress.Done()
				return specFailed(list)
			}
			err = cerr
		}
	}
	if err == nil && cfg.Spec.Pull {
		// The pull phase, before scoring: a failed pull is its image's
		// programs' reason, not the run's failure.
		if _, perr := Pull(ctx, env, sb, plan.Spec, cfg.PullTimeout); errors.Is(perr, ErrCannotPull) {
			err = perr
			closeSandbox()
		}
	}
	var done engine.Outcome
	if err != nil {
		opt.SandboxErr = err
		done = plan.Run(ctx, nil, opt, out)
	} else {
		if env.StaleCheck != nil {
			env.StaleCheck(ctx)
		}
		done = plan.Run(ctx, sb, opt, out)
		closeSandbox()
	}
	progress.Done()

	res = Result{Ran: true, RunErr: done.Err}
	res.Report, err = out.Commit(done.Report) // counts the nondeterministic cases, from their runs
	if err != nil {
		return res, fmt.Errorf("writing the report: %w", err)
	}
	res.Wrote.Report = cfg.ReportPath
	if err := sideFilesFromReport(cfg.JUnitPath, cfg.HTMLPath, cfg.ReportPath, cfg.MaxReport+ReportReadSlack); err != nil {
		return res, err
	}
	res.Wrote.JUnit, res.Wrote.HTML = cfg.JUnitPath, cfg.HTMLPath
	return res, nil
}

// leftOut says, for each folder program, how many files in its folder
// are not part of it because git does not track them, so that none is
// left out silently; verbose names them.
func leftOut(sp *spec.Spec, verbose bool) []string {
	var lines []string
	for _, p := range sp.Programs {
		if len(p.Untracked) == 0 {
			continue
		}
		line := fmt.Sprintf("behaves: program %q (dir %s): %s in its folder %s not part of it, since git does not track %s (git add %s, or admit %s with --allow-untracked GLOB)",
			p.Name, p.File, verdict.Count(len(p.Untracked), "file", "files"), verdict.Plural(len(p.Untracked), "is", "are"),
			verdict.Plural(len(p.Untracked), "it", "them"), verdict.Plural(len(p.Untracked), "it", "them"), verdict.Plural(len(p.Untracked), "it", "them"))
		if !verbose {
			line += "; -v names them"
		}
		lines = append(lines, line)
		if verbose {
			for _, u := range p.Untracked {
				lines = append(lines, "  left out: "+u)
			}
		}
	}
	return lines
}
