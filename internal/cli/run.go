package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/engine"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reuse"
	"github.com/behaves-dev/behaves/internal/shard"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/terminal"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// runConfig is what a run is asked to do: behaves run's flags, or the
// action's inputs (readInputs), checked.
type runConfig struct {
	spec        specFlags
	pullTimeout time.Duration
	// runID is the run's ID; "" draws one.
	runID                           string
	reportPath, junitPath, htmlPath string
	// parallel is the invocations at once; 0: engine.DefaultParallel.
	parallel  int
	failOn    FailOn
	maxReport int64
	passAt    []int
	shard     *shard.Ref
	terminal  terminalFlags
	// reuse are the stored reports whose evidence may answer cases
	// (--reuse, in order: the first match wins); maxReuse bounds each.
	reuse    []string
	maxReuse int64
}

// newRunConfig is a run with every default.
func newRunConfig() runConfig {
	return runConfig{pullTimeout: DefaultPullTimeout, reportPath: "behaves-report.json", failOn: FailOnUndetermined,
		maxReport: report.DefaultMaxReportSize, passAt: []int{1}, terminal: terminalFlags{color: "auto"},
		maxReuse: DefaultMaxReadReport}
}

// runCommand is `behaves run`: its flags, then runSpec.
func runCommand(ctx context.Context, args []string, env Env) int {
	cfg := newRunConfig()
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	cfg.spec.register(fs)
	cfg.spec.registerPullImages(fs)
	pullTimeout := registerPullTimeout(fs)
	chosenID := registerRunID(fs)
	fs.StringVar(&cfg.reportPath, "report", cfg.reportPath, "where to write the JSON report")
	fs.StringVar(&cfg.junitPath, "junit", "", "also write the report as JUnit XML to this file")
	fs.StringVar(&cfg.htmlPath, "html", "", "also write the report as one self-contained HTML page to this file (as behaves html does)")
	fs.IntVar(&cfg.parallel, "parallel", 0, "invocations at once (default: fits the CPUs and the profiles' memory)")
	failOn := fs.String("fail-on", string(FailOnUndetermined), "which verdicts fail the command: false or undetermined")
	maxReport := sizeFlag(cfg.maxReport)
	fs.Var(&maxReport, "max-report-size", "the most bytes the report's cases take; past it, output is left out (true cases' first) (KiB, MiB, GiB)")
	passAt := fs.String("pass-at", "1", "K,…: the k of pass@k for each files: entry's samples, e.g. 1,5,10")
	shardFlag := fs.String("shard", "", "i/N: run only shard i of N (a deterministic, balanced slice of the programs; see behaves merge)")
	fs.Var((*pathsFlag)(&cfg.reuse), "reuse", "REPORT: answer the cases whose stored evidence in REPORT still holds (same program, input and settings) without running them; repeatable, the first match wins (docs/cli.md: only reuse reports you trust)")
	maxReuse := sizeFlag(cfg.maxReuse)
	fs.Var(&maxReuse, "max-reuse-size", "the largest --reuse report read (KiB, MiB, GiB)")
	cfg.terminal.register(fs)
	if !parse(fs, args, env) {
		return ExitUsage
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "behaves run: "+format+"\n", a...)
		return ExitUsage
	}
	if err := cfg.terminal.check(); err != nil {
		return usageErr("%v", err)
	}
	var err error
	if cfg.passAt, err = verdict.ParsePassAt(*passAt); err != nil {
		return usageErr("--pass-at: %v", err)
	}
	if *shardFlag != "" {
		ref, err := shard.Parse(*shardFlag)
		if err != nil {
			return usageErr("--shard: %v", err)
		}
		cfg.shard = &ref
	}
	if cfg.maxReuse = int64(maxReuse); cfg.maxReuse <= 0 {
		return usageErr("--max-reuse-size must be greater than 0")
	}
	if cfg.maxReport = int64(maxReport); cfg.maxReport <= 0 {
		return usageErr("--max-report-size must be greater than 0")
	}
	if cfg.failOn, err = parseFailOn(*failOn); err != nil {
		return usageErr("--fail-on must be false or undetermined, not %q", *failOn)
	}
	if cfg.parallel < 0 {
		return usageErr("--parallel must be 1 or more, not %d", cfg.parallel)
	}
	if msg := cfg.spec.checkPull("run", "--pull-images"); msg != "" {
		fmt.Fprintln(env.Stderr, msg)
		return ExitUsage
	}
	cfg.pullTimeout, cfg.runID = *pullTimeout, string(*chosenID)
	return runSpec(ctx, env, cfg)
}

// runSpec runs what cfg asks for: it replaces the report, loads the spec,
// connects the sandbox (and pulls, when asked), has the engine run and
// judge every case, writes the report and its side files, prints the
// summary and returns the exit code.
func runSpec(ctx context.Context, env Env, cfg runConfig) int {
	started := time.Now()
	runID := cfg.runID
	if runID == "" {
		runID = newRunID()
	}
	origin, warnings := githubOrigin(env.Getenv)
	if len(warnings) > 0 {
		printMessages(env.Stderr, env, warnings...)
	}
	// The stored reports are read before the report path is replaced: the
	// report being reused is often the one this run writes over.
	var store *reuse.Store
	var reuseErr error
	if len(cfg.reuse) > 0 {
		store, reuseErr = reuse.Load(cfg.reuse, cfg.maxReuse)
	}
	// Replace whatever is at the report path before reading anything a pull
	// request controls: a report committed to the repository, or left by an
	// earlier run, must not survive a spec error or a crash and be published
	// as this run's. Until the run ends, the report says it did not finish.
	early := func(err error, specErrs spec.Errors) report.Report {
		return assemble.Report(assemble.Input{SpecPath: cfg.spec.path, RunID: runID, StartedAt: started,
			Duration: time.Since(started), Err: err, SpecErrors: specErrs, Version: version(), GitHub: origin})
	}
	if err := report.WriteJSON(cfg.reportPath, early(errNotFinished, nil)); err != nil {
		fmt.Fprintf(env.Stderr, "behaves: writing the report: %v\n", err)
		return ExitRunFailed
	}
	// The JUnit file and the page too: a stale one must not pass for this
	// run's.
	if err := writeSideFiles(cfg.junitPath, cfg.htmlPath, early(errNotFinished, nil)); err != nil {
		fmt.Fprintf(env.Stderr, "behaves: %v\n", err)
		return ExitRunFailed
	}
	if reuseErr != nil {
		rep := early(fmt.Errorf("nothing ran: %w", reuseErr), nil)
		if err := report.WriteJSON(cfg.reportPath, rep); err != nil {
			fmt.Fprintf(env.Stderr, "behaves: writing the report: %v\n", err)
			return ExitRunFailed
		}
		if err := writeSideFiles(cfg.junitPath, cfg.htmlPath, rep); err != nil {
			fmt.Fprintf(env.Stderr, "behaves: %v\n", err)
			return ExitRunFailed
		}
		printMessages(env.Stderr, env, fmt.Sprintf("behaves run: %v (give a report behaves wrote, or leave --reuse out to run everything)", reuseErr))
		return ExitUsage
	}
	// specFailed writes the report of a run that stopped at a spec error
	// and prints the problems.
	specFailed := func(err error) int {
		var list spec.Errors
		why := fmt.Errorf("the spec could not be read; nothing ran: %w", err)
		if errors.As(err, &list) {
			why = fmt.Errorf("the spec has %d problem(s); nothing ran", len(list))
		}
		code := ExitUsage
		rep := early(why, list)
		if werr := report.WriteJSON(cfg.reportPath, rep); werr != nil {
			fmt.Fprintf(env.Stderr, "behaves: writing the report: %v\n", werr)
			code = ExitRunFailed
		} else if jerr := writeSideFiles(cfg.junitPath, cfg.htmlPath, rep); jerr != nil {
			fmt.Fprintf(env.Stderr, "behaves: %v\n", jerr)
			code = ExitRunFailed
		}
		printMessages(env.Stderr, env, specErrorLines(err)...)
		return code
	}

	sp, err := cfg.spec.load()
	if err != nil {
		return specFailed(err)
	}
	plan := engine.NewPlan(sp, cfg.shard, cfg.parallel)

	// Each case's evidence goes to the report's spool as soon as it is
	// judged; memory keeps a summary (see report.Writer).
	out, err := assemble.NewWriter(cfg.reportPath, report.WriterOptions{MaxSize: cfg.maxReport})
	if err != nil {
		fmt.Fprintf(env.Stderr, "behaves: writing the report: %v\n", err)
		return ExitRunFailed
	}
	defer func() {
		if err := out.Close(); err != nil {
			fmt.Fprintf(env.Stderr, "behaves: %v\n", err)
		}
	}()
	progress := terminal.NewProgress(env.Stderr, plan.Cases(), env.Terminal)
	opt := engine.Options{RunID: runID, StartedAt: started, Cleanup: env.Cleanup, OnCase: progress.Case,
		Version: version(), GitHub: origin, PassAt: cfg.passAt, Reuse: store}

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
	if err == nil && cfg.spec.pull {
		// The pull phase, before scoring: a failed pull is its image's
		// programs' reason, not the run's failure.
		if _, perr := pullImages(ctx, env, sb, plan.Spec, cfg.pullTimeout); errors.Is(perr, errCannotPull) {
			err = perr
			closeSandbox()
		}
	}
	var done engine.Outcome
	if err != nil {
		opt.SandboxErr = err
		done = plan.Run(ctx, nil, opt, out)
	} else {
		warnStaleRuns(ctx, env)
		done = plan.Run(ctx, sb, opt, out)
		closeSandbox()
	}
	progress.Done()

	rep, err := out.Commit(done.Report) // counts the nondeterministic cases, from their runs
	code := exitCode(rep.Verdict, done.Err != nil, cfg.failOn, rep.Counts.Cases.Nondeterministic > 0)
	wrote := ""
	if err != nil {
		fmt.Fprintf(env.Stderr, "behaves: writing the report: %v\n", err)
		code = ExitRunFailed
	} else if err := sideFilesFromReport(cfg.junitPath, cfg.htmlPath, cfg.reportPath, cfg.maxReport+reportReadSlack); err != nil {
		fmt.Fprintf(env.Stderr, "behaves: %v\n", err)
		code = ExitRunFailed
		wrote = wroteLine(cfg.reportPath, "", "")
	} else {
		wrote = wroteLine(cfg.reportPath, cfg.junitPath, cfg.htmlPath)
	}
	topts := cfg.terminal.options(env)
	if wrote != "" {
		topts.After = []string{wrote}
	}
	if err := terminal.Write(env.Stdout, rep, topts); err != nil {
		fmt.Fprintf(env.Stderr, "behaves: writing the summary: %v\n", err)
	}
	if done.Err != nil {
		printMessages(env.Stderr, env, fmt.Sprintf("behaves: the run failed: %v", done.Err))
	}
	return code
}
