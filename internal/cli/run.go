package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/engine"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportwrite"
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
		maxReport: reportwrite.DefaultMaxReportSize, passAt: []int{1}, terminal: terminalFlags{color: "auto"},
		maxReuse: DefaultMaxReadReport}
}

// registerRun registers behaves run's own flags on fs, writing into cfg.
// Each parses and checks its value as it is set, and the action's inputs
// are set through the very same flags (readInputs), so a value is accepted
// or refused alike whether it comes as a flag or as an input.
func (cfg *runConfig) registerRun(fs *flag.FlagSet) {
	fs.StringVar(&cfg.reportPath, "report", cfg.reportPath, "where to write the JSON report")
	fs.StringVar(&cfg.junitPath, "junit", cfg.junitPath, "also write the report as JUnit XML to this file")
	fs.StringVar(&cfg.htmlPath, "html", cfg.htmlPath, "also write the report as one self-contained HTML page to this file (as behaves html does)")
	fs.Var((*parallelFlag)(&cfg.parallel), "parallel", "invocations at once (0, the default: fits the CPUs and the profiles' memory)")
	fs.Var((*failOnFlag)(&cfg.failOn), "fail-on", "which verdicts fail the command: false or undetermined")
	fs.Var((*positiveSizeFlag)(&cfg.maxReport), "max-report-size", "the most bytes the report's cases take; past it, output is left out (true cases' first) (KiB, MiB, GiB)")
	fs.Var((*passAtFlag)(&cfg.passAt), "pass-at", "K,…: the k of pass@k for each files: entry's samples, e.g. 1,5,10")
	fs.Var(shardFlag{&cfg.shard}, "shard", "i/N: run only shard i of N (a deterministic, balanced slice of the programs; see behaves merge)")
	fs.Var((*pathsFlag)(&cfg.reuse), "reuse", "REPORT: answer the cases whose stored evidence in REPORT still holds (same program, input and settings) without running them; repeatable, the first match wins (docs/cli.md: only reuse reports you trust)")
	fs.Var((*positiveSizeFlag)(&cfg.maxReuse), "max-reuse-size", "the largest --reuse report read (KiB, MiB, GiB)")
}

// runCommand is `behaves run`: its flags, then runSpec.
func runCommand(ctx context.Context, args []string, env Env) int {
	cfg := newRunConfig()
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	cfg.spec.register(fs)
	cfg.spec.registerPullImages(fs)
	pullTimeout := registerPullTimeout(fs)
	chosenID := registerRunID(fs)
	cfg.registerRun(fs)
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
	if msg := cfg.spec.checkPull("run", "--pull-images"); msg != "" {
		fmt.Fprintln(env.Stderr, msg)
		return ExitUsage
	}
	cfg.pullTimeout, cfg.runID = *pullTimeout, string(*chosenID)
	return runSpec(ctx, env, cfg)
}

// parallelFlag is --parallel: 0 (the engine's default) or more.
type parallelFlag int

func (f *parallelFlag) String() string { return strconv.Itoa(int(*f)) }

func (f *parallelFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("want a number of 0 (the default: fits the CPUs and the profiles' memory) or more, not %q", s)
	}
	*f = parallelFlag(n)
	return nil
}

// failOnFlag is --fail-on: false or undetermined.
type failOnFlag FailOn

func (f *failOnFlag) String() string { return string(*f) }

func (f *failOnFlag) Set(s string) error {
	v, err := parseFailOn(s)
	*f = failOnFlag(v)
	return err
}

// positiveSizeFlag is a sizeFlag greater than 0.
type positiveSizeFlag int64

func (f *positiveSizeFlag) String() string { return (*sizeFlag)(f).String() }

func (f *positiveSizeFlag) Set(s string) error {
	var n sizeFlag
	if err := n.Set(s); err != nil {
		return err
	}
	if n <= 0 {
		return fmt.Errorf("must be greater than 0, not %s", s)
	}
	*f = positiveSizeFlag(n)
	return nil
}

// passAtFlag is --pass-at: K,… (verdict.ParsePassAt).
type passAtFlag []int

func (f *passAtFlag) String() string {
	if f == nil {
		return ""
	}
	parts := make([]string, len(*f))
	for i, k := range *f {
		parts[i] = strconv.Itoa(k)
	}
	return strings.Join(parts, ",")
}

func (f *passAtFlag) Set(s string) error {
	ks, err := verdict.ParsePassAt(s)
	if err != nil {
		return err
	}
	*f = ks
	return nil
}

// shardFlag is --shard: i/N (shard.Parse); unset, every program runs.
type shardFlag struct{ ref **shard.Ref }

func (f shardFlag) String() string {
	if f.ref == nil || *f.ref == nil {
		return ""
	}
	return (*f.ref).String()
}

func (f shardFlag) Set(s string) error {
	ref, err := shard.Parse(s)
	if err != nil {
		return err
	}
	*f.ref = &ref
	return nil
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
	if err := reportwrite.WriteJSON(cfg.reportPath, early(errNotFinished, nil)); err != nil {
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
		if err := reportwrite.WriteJSON(cfg.reportPath, rep); err != nil {
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
		if werr := reportwrite.WriteJSON(cfg.reportPath, rep); werr != nil {
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
	// judged; memory keeps a summary (see reportwrite.Writer).
	out, err := assemble.NewWriter(cfg.reportPath, reportwrite.Options{MaxSize: cfg.maxReport})
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
