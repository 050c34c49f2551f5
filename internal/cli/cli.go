package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/shard"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// Env is what the command may use from its surroundings. Nothing else is
// read from the process: no package-level state.
type Env struct {
	Stdout, Stderr io.Writer
	// Getenv reads behaves' own environment (never passed to programs).
	Getenv func(string) string
	// Terminal says stderr is a terminal (enables the live progress line).
	Terminal bool
	// StdoutTerminal says stdout is a terminal (--color auto colours it).
	StdoutTerminal bool
	// Cleanup is the parent of cleanup contexts; main cancels it on a
	// second signal so that behaves exits right after writing the report.
	Cleanup context.Context
	// NewSandbox connects to the sandbox for a run (Docker in main).
	NewSandbox func(ctx context.Context, runID string) (runner.Sandbox, io.Closer, error)
	// NewSweeper connects to what behaves gc sweeps, and what run checks
	// for stale leftovers at its start (Docker in main). Nil: gc fails and
	// run does not check.
	NewSweeper func() (Sweeper, error)
}

const usage = `usage: behaves <command> [flags]

commands:
  run       run every program's cases and judge them
  validate  check the spec without Docker (--check-images: and that Docker has its images)
  rescore   judge an earlier report's stored events against the spec, running nothing
  pull      pull the spec's images that Docker lacks, by digest
  gc        remove the containers and volumes that dead runs left behind
  merge     merge the reports of the shards of one run (run --shard i/N) into one
  publish   publish a report to GitHub: annotations, summary, comment, check run
  html      render a report as one self-contained HTML page
  action    the GitHub Action's entry point: inputs from INPUT_*, run, then publish
  action-post  the action's post step: remove this job's run's containers and volumes
  junit     convert a JSON report to JUnit XML
  schema    print the spec's JSON Schema (for editors)
  version   print the version

exit codes: 0 all true · 1 some false · 2 usage or spec error ·
            3 none false, some undetermined · 4 the run itself failed
`

// Main runs the command line and returns the exit code.
func Main(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if env.Cleanup == nil {
		env.Cleanup = context.Background()
	}
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, usage)
		return ExitUsage
	}
	switch args[0] {
	case "run":
		return runCommand(ctx, args[1:], env)
	case "validate":
		return validateCommand(ctx, args[1:], env)
	case "rescore":
		return rescoreCommand(args[1:], env)
	case "gc":
		return gcCommand(ctx, args[1:], env)
	case "pull":
		return pullCommand(ctx, args[1:], env)
	case "merge":
		return mergeCommand(args[1:], env)
	case "publish":
		return publishCommand(ctx, args[1:], env)
	case "html":
		return htmlCommand(args[1:], env)
	case "action":
		return actionCommand(ctx, args[1:], env)
	case "action-post":
		return actionPostCommand(ctx, args[1:], env)
	case "junit":
		return junitCommand(args[1:], env)
	case "schema":
		return schemaCommand(args[1:], env)
	case "version":
		fmt.Fprintf(env.Stdout, "behaves %s\n", version())
		return ExitTrue
	case "help", "-h", "--help":
		fmt.Fprint(env.Stdout, usage)
		return ExitTrue
	default:
		fmt.Fprintf(env.Stderr, "behaves: unknown command %q\n\n%s", args[0], usage)
		return ExitUsage
	}
}

// specFlags are the flags run, validate and pull share.
type specFlags struct {
	path       string
	ceilings   spec.Ceilings
	images     imageFlag
	untracked  allowFlag
	registries registryFlag
	// pull is set by --pull-images (run, validate) and by the pull command.
	pull bool
}

func (s *specFlags) register(fs *flag.FlagSet) {
	s.ceilings = spec.DefaultCeilings
	s.images = imageFlag{}
	fs.StringVar(&s.path, "spec", "behaves.yml", "the spec file")
	fs.DurationVar(&s.ceilings.MaxTimeout, "max-timeout", s.ceilings.MaxTimeout, "the largest timeout a profile may ask for")
	fs.Var((*sizeFlag)(&s.ceilings.MaxMemory), "max-memory", "the largest memory limit a profile may ask for (KiB, MiB, GiB)")
	fs.Var((*sizeFlag)(&s.ceilings.MaxOutput), "max-output", "the largest output_ceiling a profile may ask for (KiB, MiB, GiB)")
	fs.Var((*sizeFlag)(&s.ceilings.MaxOutputLimit), "max-output-limit", "the largest output_limit (bytes kept per stream) a profile may ask for (KiB, MiB, GiB)")
	fs.IntVar(&s.ceilings.MaxCases, "max-cases", s.ceilings.MaxCases, "the most invocations (programs × cases) a run may hold")
	fs.Int64Var(&s.ceilings.MaxPids, "max-pids", s.ceilings.MaxPids, "the largest pids (process limit) a profile may ask for")
	fs.IntVar(&s.ceilings.MaxRepeat, "max-repeat", s.ceilings.MaxRepeat, "the largest repeat a case or profile may ask for (at most 100): behaves holds a case's runs in memory until the last is in")
	fs.Var((*sizeFlag)(&s.ceilings.MaxReferenceOutput), "max-reference-output", "the most output of reference programs' runs (runs × 2 streams × output_limit) a spec's same_as cases may make behaves hold in memory (KiB, MiB, GiB)")
	fs.Var(s.images, "image", "PROFILE=REF: run PROFILE with image REF (sha256:<id> or name@sha256:<digest>); repeatable")
	fs.Var(&s.untracked, "allow-untracked", "GLOB: let the spec name files git does not track under GLOB (relative to the repository root, ** for any depth: gen/**); never .git; repeatable")
	fs.Var(&s.registries, "allow-registry", "HOST[:PORT]: a registry that pulling may fetch images from (docker.io, ghcr.io, 127.0.0.1:5000); none by default; repeatable")
}

func (s *specFlags) load() (*spec.Spec, error) {
	return spec.Load(s.path, spec.Options{Ceilings: s.ceilings, Images: s.images, AllowUntracked: s.untracked,
		Pull: s.pull, AllowRegistries: s.registries})
}

// parse parses flags; it returns false (after printing why) on a usage error.
func parse(fs *flag.FlagSet, args []string, env Env) bool {
	if err := parseFlags(fs, args, env); err != nil {
		return false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "behaves %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return false
	}
	return true
}

// parseFlags parses args into fs, printing usage errors to env.Stderr.
// --help prints the command's whole usage (fs.Usage, or the flags when it
// has none); any other error (a flag that does not exist, a bad value)
// prints the error and one line saying where the usage is, so that the
// error does not scroll away under the flag list.
func parseFlags(fs *flag.FlagSet, args []string, env Env) error {
	fs.SetOutput(env.Stderr)
	full := fs.Usage
	if full == nil {
		full = func() {
			fmt.Fprintf(fs.Output(), "usage: behaves %s [flags]\n\nflags:\n", fs.Name())
			fs.PrintDefaults()
		}
	}
	fs.Usage = func() {} // the flag package calls it after the error; printed below
	defer func() { fs.Usage = full }()
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		full()
	case err != nil:
		fmt.Fprintf(env.Stderr, "behaves %s: the flags are listed by behaves %s --help\n", fs.Name(), fs.Name())
	}
	return err
}

// messageOptions is how behaves' own messages are printed: under GitHub
// Actions inside a stop-commands region, since they quote spec text.
func messageOptions(env Env) report.TerminalOptions {
	return report.TerminalOptions{GitHubActions: env.Getenv("GITHUB_ACTIONS") == "true"}
}

// printMessages prints behaves' own messages, which may quote spec text,
// to w as inert text (report.WriteMessages).
func printMessages(w io.Writer, env Env, lines ...string) {
	if err := report.WriteMessages(w, lines, messageOptions(env)); err != nil {
		fmt.Fprintf(w, "behaves: %v\n", err) // the options are fixed: does not happen
	}
}

// specErrorLines is a spec problem list (or a read error) as lines for
// printMessages.
func specErrorLines(err error) []string {
	var list spec.Errors
	if errors.As(err, &list) {
		lines := make([]string, 0, len(list)+1)
		for _, e := range list {
			lines = append(lines, e.Error())
		}
		return append(lines, fmt.Sprintf("behaves: the spec has %d problem(s); nothing ran", len(list)))
	}
	return []string{fmt.Sprintf("behaves: %v", err)}
}

// imagePresence is a sandbox that can say whether its engine has an image
// without pulling it (*docker.Sandbox).
type imagePresence interface {
	ImagePresent(ctx context.Context, ref string) (bool, error)
}

func validateCommand(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	var sf specFlags
	sf.register(fs)
	sf.registerPullImages(fs)
	checkImages := fs.Bool("check-images", false, "also ask the Docker engine whether it has every profile's image (and build image); pulls nothing")
	sp := sf.parseAndLoad(fs, args, env, "--pull-images")
	if sp == nil {
		return ExitUsage
	}
	cases := 0
	for _, p := range sp.Programs {
		cases += len(p.Cases)
	}
	images := "images not checked (validate --check-images asks the Docker engine for them)"
	if *checkImages {
		n, code := validateImages(ctx, env, sp)
		if code != ExitTrue {
			return code
		}
		images = fmt.Sprintf("the Docker engine has all %d image(s)", n)
	}
	fmt.Fprintf(env.Stdout, "%s: valid: %d program(s), %d case(s); %s\n", sp.Path, len(sp.Programs), cases, images)
	return ExitTrue
}

// validateImages is validate --check-images: it asks the engine whether it
// has every profile's image, pulling nothing, and returns how many distinct
// images it asked about and the exit code: 2, with each missing image's
// problem at its image: value, or 4 when the engine cannot say.
func validateImages(ctx context.Context, env Env, sp *spec.Spec) (int, int) {
	if env.NewSandbox == nil {
		fmt.Fprintln(env.Stderr, "behaves validate: --check-images: no Docker connection is configured")
		return 0, ExitRunFailed
	}
	sb, closer, err := env.NewSandbox(ctx, newRunID())
	if err != nil {
		printMessages(env.Stderr, env, fmt.Sprintf("behaves validate: --check-images: sandbox unavailable: %v", err))
		return 0, ExitRunFailed
	}
	defer func() {
		if err := closer.Close(); err != nil {
			fmt.Fprintf(env.Stderr, "behaves: closing the Docker client: %v\n", err)
		}
	}()
	ip, ok := sb.(imagePresence)
	if !ok {
		fmt.Fprintln(env.Stderr, "behaves validate: --check-images: this sandbox cannot say which images it has")
		return 0, ExitRunFailed
	}
	asked := map[string]bool{} // each distinct image is asked once
	err = sp.CheckImages(func(ref string) (bool, error) {
		if ok, seen := asked[ref]; seen {
			return ok, nil
		}
		ok, err := ip.ImagePresent(ctx, ref)
		asked[ref] = ok
		return ok, err
	})
	var list spec.Errors
	switch {
	case errors.As(err, &list):
		printMessages(env.Stderr, env, specErrorLines(list)...)
		return len(asked), ExitUsage
	case err != nil:
		printMessages(env.Stderr, env, fmt.Sprintf("behaves validate: --check-images: %v", err))
		return len(asked), ExitRunFailed
	}
	return len(asked), ExitTrue
}

func runCommand(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var sf specFlags
	sf.register(fs)
	sf.registerPullImages(fs)
	pullTimeout := registerPullTimeout(fs)
	chosenID := registerRunID(fs)
	reportPath := fs.String("report", "behaves-report.json", "where to write the JSON report")
	junitPath := fs.String("junit", "", "also write the report as JUnit XML to this file")
	htmlPath := fs.String("html", "", "also write the report as one self-contained HTML page to this file (as behaves html does)")
	parallel := fs.Int("parallel", 0, "invocations at once (default: fits the CPUs and the profiles' memory)")
	failOn := fs.String("fail-on", string(FailOnUndetermined), "which verdicts fail the command: false or undetermined")
	maxReport := sizeFlag(report.DefaultMaxReportSize)
	fs.Var(&maxReport, "max-report-size", "the most bytes the report's cases take; past it, output is left out (true cases' first) (KiB, MiB, GiB)")
	passAt := fs.String("pass-at", "1", "K,…: the k of pass@k for each files: entry's samples, e.g. 1,5,10")
	shardFlag := fs.String("shard", "", "i/N: run only shard i of N (a deterministic, balanced slice of the programs; see behaves merge)")
	var tf terminalFlags
	tf.register(fs)
	if !parse(fs, args, env) {
		return ExitUsage
	}
	if err := tf.check(); err != nil {
		fmt.Fprintf(env.Stderr, "behaves run: %v\n", err)
		return ExitUsage
	}
	ks, err := verdict.ParsePassAt(*passAt)
	if err != nil {
		fmt.Fprintf(env.Stderr, "behaves run: --pass-at: %v\n", err)
		return ExitUsage
	}
	var part *shard.Ref
	if *shardFlag != "" {
		ref, err := shard.Parse(*shardFlag)
		if err != nil {
			fmt.Fprintf(env.Stderr, "behaves run: --shard: %v\n", err)
			return ExitUsage
		}
		part = &ref
	}
	if maxReport <= 0 {
		fmt.Fprintf(env.Stderr, "behaves run: --max-report-size must be greater than 0\n")
		return ExitUsage
	}
	if *failOn != string(FailOnFalse) && *failOn != string(FailOnUndetermined) {
		fmt.Fprintf(env.Stderr, "behaves run: --fail-on must be false or undetermined, not %q\n", *failOn)
		return ExitUsage
	}
	if *parallel < 0 {
		fmt.Fprintf(env.Stderr, "behaves run: --parallel must be 1 or more, not %d\n", *parallel)
		return ExitUsage
	}
	if msg := sf.checkPull("run", "--pull-images"); msg != "" {
		fmt.Fprintln(env.Stderr, msg)
		return ExitUsage
	}

	started := time.Now()
	runID := newRunID()
	if *chosenID != "" {
		runID = string(*chosenID) // behaves action saved it as state first
	}
	origin, warnings := githubOrigin(env.Getenv)
	if len(warnings) > 0 {
		printMessages(env.Stderr, env, warnings...)
	}
	// Replace whatever is at the report path before reading anything a pull
	// request controls: a report committed to the repository, or left by an
	// earlier run, must not survive a spec error or a crash and be published
	// as this run's. Until the run ends, the report says it did not finish.
	early := func(err error, specErrs spec.Errors) report.Report {
		return report.Build(report.Input{SpecPath: sf.path, RunID: runID, StartedAt: started,
			Duration: time.Since(started), Err: err, SpecErrors: specErrs, Version: version(), GitHub: origin})
	}
	if err := report.WriteJSON(*reportPath, early(errNotFinished, nil)); err != nil {
		fmt.Fprintf(env.Stderr, "behaves: writing the report: %v\n", err)
		return ExitRunFailed
	}
	// The JUnit file and the page too: a stale one must not pass for this
	// run's.
	if err := writeSideFiles(*junitPath, *htmlPath, early(errNotFinished, nil)); err != nil {
		fmt.Fprintf(env.Stderr, "behaves: %v\n", err)
		return ExitRunFailed
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
		if werr := report.WriteJSON(*reportPath, rep); werr != nil {
			fmt.Fprintf(env.Stderr, "behaves: writing the report: %v\n", werr)
			code = ExitRunFailed
		} else if jerr := writeSideFiles(*junitPath, *htmlPath, rep); jerr != nil {
			fmt.Fprintf(env.Stderr, "behaves: %v\n", jerr)
			code = ExitRunFailed
		}
		printMessages(env.Stderr, env, specErrorLines(err)...)
		return code
	}

	sp, err := sf.load()
	if err != nil {
		return specFailed(err)
	}
	var shardInfo *report.Shard
	allPrograms := sp.Programs // a shard's same_as cases find their reference here
	if part != nil {
		// Every shard loads the whole spec and computes the same table;
		// this one then runs only its own programs.
		digest, table := shard.Plan(sp, part.Count)
		sp.Programs = shard.Select(sp, table, part.Index)
		shardInfo = &report.Shard{Index: part.Index, Count: part.Count, SpecDigest: digest, Programs: table}
	}
	if *parallel == 0 {
		*parallel = DefaultParallel(largestMemory(sp))
	}

	// Each case's evidence goes to the report's spool as soon as it is
	// judged; memory keeps a summary (see report.Writer).
	out, err := report.NewWriter(*reportPath, report.WriterOptions{MaxSize: int64(maxReport)})
	if err != nil {
		fmt.Fprintf(env.Stderr, "behaves: writing the report: %v\n", err)
		return ExitRunFailed
	}
	defer func() {
		if err := out.Close(); err != nil {
			fmt.Fprintf(env.Stderr, "behaves: %v\n", err)
		}
	}()
	jobs := Jobs(sp)
	// Each job's invocations are its cases' runs, one case's runs in a row
	// (spec.Runs maps them back); progress counts cases.
	layouts := make([]spec.Runs, len(jobs))
	total := 0
	for i, p := range sp.Programs {
		layouts[i] = p.Runs()
		total += len(p.Cases)
	}
	progress := report.NewProgress(env.Stderr, total, env.Terminal)

	// results[p][c] is judged once every run of the case is in (for the
	// progress line) and, for cases whose runs did not all come in, after
	// the run. A case that runs more than once holds its runs' events, with
	// their output, until its last run is in: its runs are consecutive
	// invocations, so only the cases in flight (about --parallel) are held.
	results := make([][]verdict.CaseResult, len(jobs))
	judged := make([][]bool, len(jobs))
	for i, p := range sp.Programs {
		results[i] = make([]verdict.CaseResult, len(p.Cases))
		judged[i] = make([]bool, len(p.Cases))
	}
	held := newHeldRuns()
	var runErr error
	var obs []runner.Observation
	// The reference runs of same_as cases: refEvents[k] holds input k's
	// runs (with their output, until the run ends: --max-reference-output
	// bounds it), refOf[p][c] the input of program p's case c (-1: none).
	refInputs, refOf := sp.References(allPrograms)
	var refEvents [][]runner.Event
	var refObs []runner.Observation
	refsOf := func(p, c int) []runner.Event {
		if k := refOf[p][c]; k >= 0 && k < len(refEvents) {
			return refEvents[k]
		}
		return nil
	}
	judge := func(p, c int, ev runner.Event) verdict.CaseResult {
		sc := sp.Programs[p].Cases[c]
		if sa := sc.Expect.SameAs; sa != nil {
			return verdict.JudgeSameAs(*sa, refsOf(p, c), ev)
		}
		return verdict.Judge(sc.Expect, ev)
	}
	sb, closer, err := env.NewSandbox(ctx, runID)
	if err == nil {
		if cerr := checkCPUs(ctx, sb, sp); cerr != nil {
			if err := closer.Close(); err != nil {
				fmt.Fprintf(env.Stderr, "behaves: closing the Docker client: %v\n", err)
			}
			var list spec.Errors
			if errors.As(cerr, &list) {
				progress.Done()
				return specFailed(list)
			}
			err = cerr
		}
	}
	if err == nil && sf.pull {
		// The pull phase, before scoring: a failed pull is its image's
		// programs' reason, not the run's failure.
		if _, perr := pullImages(ctx, env, sb, sp, *pullTimeout); errors.Is(perr, errCannotPull) {
			err = perr
			if cerr := closer.Close(); cerr != nil {
				fmt.Fprintf(env.Stderr, "behaves: closing the Docker client: %v\n", cerr)
			}
		}
	}
	if err != nil {
		runErr = fmt.Errorf("sandbox unavailable: %w", err)
		obs = unobserved(jobs, runErr.Error())
	} else {
		warnStaleRuns(ctx, env)
		// The reference programs run first, once per distinct invocation
		// of their candidates' same_as cases: a candidate's case is judged
		// against them as soon as its own runs are in.
		var lost error
		refEvents, refObs, lost = runReferences(ctx, sb, sp, refInputs, runner.Options{Parallel: *parallel, Cleanup: env.Cleanup, DropOutput: true})
		if lost != nil {
			runErr = fmt.Errorf("sandbox lost: %w", lost)
			obs = unobserved(jobs, runErr.Error())
		} else {
			// A lost sandbox (the engine became unreachable mid-run) fails the
			// run, like one that was never reachable.
			obs, lost = runner.Run(ctx, sb, jobs, runner.Options{
				Parallel:   *parallel,
				Cleanup:    env.Cleanup,
				DropOutput: true, // out holds it, on disk
				OnEvent: func(job, inv int, ev runner.Event) {
					// Each (job, inv) arrives once, from one worker; Run returns
					// only after every worker is done.
					c, run := layouts[job].Case(inv)
					sc := sp.Programs[job].Cases[c]
					runs := held.put(job, c, run, layouts[job].Count(c), report.RunResult{Event: ev, Result: judge(job, c, ev)})
					if runs == nil {
						return // more runs of the case to come
					}
					res := foldRuns(runs)
					out.AddCase(job, c, sc, runs, res, refsOf(job, c))
					results[job][c] = res
					judged[job][c] = true
					progress.Case(res.Verdict)
				},
			})
			if lost != nil {
				runErr = fmt.Errorf("sandbox lost: %w", lost)
			}
		}
		if err := closer.Close(); err != nil {
			fmt.Fprintf(env.Stderr, "behaves: closing the Docker client: %v\n", err)
		}
	}
	progress.Done()
	interrupted := ctx.Err() != nil
	if interrupted && runErr == nil {
		runErr = errors.New("interrupted")
	}

	mergeReferenceObservations(obs, refObs, sp, refInputs)

	// The cases whose runs did not all come in are judged on what did,
	// and on the runner's record of the rest (why they did not run).
	programs := make([]report.ProgramResult, len(jobs))
	for i, p := range sp.Programs {
		var spent time.Duration
		for _, ev := range obs[i].Events {
			spent += ev.Duration
		}
		for c, sc := range p.Cases {
			if judged[i][c] {
				continue
			}
			first, k := layouts[i].First(c), layouts[i].Count(c)
			runs, have := held.take(i, c, k)
			for r := range runs {
				if have[r] {
					continue
				}
				ev := runner.Event{SandboxError: "not run"}
				if first+r < len(obs[i].Events) {
					ev = obs[i].Events[first+r]
				}
				runs[r] = report.RunResult{Event: ev, Result: judge(i, c, ev)}
			}
			results[i][c] = foldRuns(runs)
			out.AddCase(i, c, sc, runs, results[i][c], refsOf(i, c))
		}
		programs[i] = report.ProgramResult{Duration: spent}
		// The report's event of a case is its first run's.
		events := make([]runner.Event, len(p.Cases))
		for c := range p.Cases {
			if f := layouts[i].First(c); f < len(obs[i].Events) {
				events[c] = obs[i].Events[f]
			}
		}
		obs[i].Events = events
	}

	rep := report.Build(report.Input{
		Spec:         sp,
		Observations: obs,
		Results:      results,
		Programs:     programs,
		RunID:        runID,
		StartedAt:    started,
		Duration:     time.Since(started),
		Interrupted:  interrupted,
		Err:          runErr,
		Version:      version(),
		GitHub:       origin,
		PassAt:       ks,
		Shard:        shardInfo,
	})
	rep, err = out.Commit(rep) // counts the nondeterministic cases, from their runs
	code := exitCode(rep.Verdict, runErr != nil, FailOn(*failOn), rep.Counts.Cases.Nondeterministic > 0)
	wrote := ""
	if err != nil {
		fmt.Fprintf(env.Stderr, "behaves: writing the report: %v\n", err)
		code = ExitRunFailed
	} else if err := sideFilesFromReport(*junitPath, *htmlPath, *reportPath, int64(maxReport)+reportReadSlack); err != nil {
		fmt.Fprintf(env.Stderr, "behaves: %v\n", err)
		code = ExitRunFailed
		wrote = wroteLine(*reportPath, "", "")
	} else {
		wrote = wroteLine(*reportPath, *junitPath, *htmlPath)
	}
	topts := tf.options(env)
	if wrote != "" {
		topts.After = []string{wrote}
	}
	if err := report.WriteTerminal(env.Stdout, rep, topts); err != nil {
		fmt.Fprintf(env.Stderr, "behaves: writing the summary: %v\n", err)
	}
	if runErr != nil {
		printMessages(env.Stderr, env, fmt.Sprintf("behaves: the run failed: %v", runErr))
	}
	return code
}

// heldRuns holds the runs of the cases that run more than once until the
// last of a case's runs is in. It is safe for concurrent use.
type heldRuns struct {
	mu   sync.Mutex
	runs map[[2]int]*heldCase
}

type heldCase struct {
	runs []report.RunResult
	have []bool // which runs are in
	left int
}

func newHeldRuns() *heldRuns { return &heldRuns{runs: map[[2]int]*heldCase{}} }

// put records run of case c of job (which has k runs) and returns every
// run of the case once all k are in (then it holds them no more), else
// nil.
func (h *heldRuns) put(job, c, run, k int, r report.RunResult) []report.RunResult {
	if k <= 1 {
		return []report.RunResult{r}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	key := [2]int{job, c}
	hc := h.runs[key]
	if hc == nil {
		hc = &heldCase{runs: make([]report.RunResult, k), have: make([]bool, k), left: k}
		h.runs[key] = hc
	}
	hc.runs[run], hc.have[run] = r, true
	hc.left--
	if hc.left > 0 {
		return nil
	}
	delete(h.runs, key)
	return hc.runs
}

// take returns the k runs of case c of job held so far and which of them
// are in (the others are zero), and holds them no more.
func (h *heldRuns) take(job, c, k int) ([]report.RunResult, []bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	key := [2]int{job, c}
	hc := h.runs[key]
	delete(h.runs, key)
	if hc == nil {
		return make([]report.RunResult, k), make([]bool, k)
	}
	return hc.runs, hc.have
}

// foldRuns is a case's verdict from its runs' (verdict.Fold).
func foldRuns(runs []report.RunResult) verdict.CaseResult {
	rs := make([]verdict.CaseResult, len(runs))
	for i, r := range runs {
		rs[i] = r.Result
	}
	return verdict.Fold(rs).CaseResult
}

// runReferences runs the reference inputs of same_as cases (spec.References)
// and returns each input's runs, in order, with their output: the event the
// runner delivered, else its own record of why the run did not happen. It
// returns the reference jobs' observations (one per reference program that
// has inputs) and the error of a lost sandbox.
func runReferences(ctx context.Context, sb runner.Sandbox, sp *spec.Spec, inputs []spec.ReferenceInput, opt runner.Options) ([][]runner.Event, []runner.Observation, error) {
	if len(inputs) == 0 {
		return nil, nil, nil
	}
	jobs, at := sp.ReferenceJobs(inputs)
	events := make([][]runner.Event, len(inputs))
	have := make([][]bool, len(inputs))
	back := make([][][2]int, len(jobs)) // (job, inv) → (input, run)
	for j := range jobs {
		back[j] = make([][2]int, len(jobs[j].Invocations))
	}
	for k, in := range inputs {
		events[k] = make([]runner.Event, max(in.Repeat, 1))
		have[k] = make([]bool, len(events[k]))
		for r := range events[k] {
			back[at[k][0]][at[k][1]+r] = [2]int{k, r}
		}
	}
	var mu sync.Mutex
	opt.OnEvent = func(job, inv int, ev runner.Event) {
		mu.Lock()
		defer mu.Unlock()
		kr := back[job][inv]
		events[kr[0]][kr[1]], have[kr[0]][kr[1]] = ev, true
	}
	obs, lost := runner.Run(ctx, sb, jobs, opt)
	for k := range inputs {
		for r := range events[k] {
			if have[k][r] {
				continue
			}
			events[k][r] = runner.Event{SandboxError: "not run"}
			if j, inv := at[k][0], at[k][1]+r; j < len(obs) && inv < len(obs[j].Events) {
				events[k][r] = obs[j].Events[inv]
			}
		}
	}
	return events, obs, lost
}

// mergeReferenceObservations adds what the reference jobs' observations say
// about the sandbox (containers or volumes that could not be removed, an
// acquisition that was not complete) to their reference programs' own.
func mergeReferenceObservations(obs, refObs []runner.Observation, sp *spec.Spec, inputs []spec.ReferenceInput) {
	index := map[string]int{}
	for i, p := range sp.Programs {
		index[p.Name] = i
	}
	var programs []string // reference job j's program, in the order of ReferenceJobs
	seen := map[string]bool{}
	for _, in := range inputs {
		if !seen[in.Reference.Name] {
			seen[in.Reference.Name] = true
			programs = append(programs, in.Reference.Name)
		}
	}
	for j, ro := range refObs {
		if j >= len(programs) {
			continue
		}
		i, ok := index[programs[j]]
		if !ok || i >= len(obs) {
			continue // the reference is another shard's program: its cases' reference_events hold the evidence
		}
		o := &obs[i]
		o.SandboxWarnings = append(o.SandboxWarnings, ro.SandboxWarnings...)
		for _, r := range ro.Reasons {
			o.Reasons = append(o.Reasons, "reference runs: "+r)
		}
		if ro.Acquisition != runner.AcquisitionComplete && o.Acquisition == runner.AcquisitionComplete {
			o.Acquisition = runner.AcquisitionPartial
		}
	}
}

// errNotFinished is the report's error from the start of a run until its
// end: what a crash leaves at the report path.
var errNotFinished = errors.New("the run did not finish: behaves stopped before writing its report")

// engineCPUs is a sandbox that can say how many CPUs its engine has.
type engineCPUs interface {
	CPUs(ctx context.Context) (int, error)
}

// checkCPUs checks the spec's cpus against the engine's CPU count, once,
// before any container: above it, the engine refuses every create, and each
// case would come back undetermined one by one. It returns spec.Errors for
// a spec above the count, another error when the engine cannot say.
func checkCPUs(ctx context.Context, sb runner.Sandbox, sp *spec.Spec) error {
	c, ok := sb.(engineCPUs)
	if !ok {
		return nil
	}
	n, err := c.CPUs(ctx)
	if err != nil {
		return err
	}
	return sp.CheckCPUs(n)
}

// Jobs splits the spec's stimuli from its expectations: a job carries only
// the program, its profile and the invocations.
func Jobs(sp *spec.Spec) []runner.Job {
	jobs := make([]runner.Job, len(sp.Programs))
	for i, p := range sp.Programs {
		jobs[i] = sp.Job(p)
	}
	return jobs
}

// largestMemory is the largest memory limit a container of the spec may
// have: a profile's, or a build stage's (a build runs in a worker's place,
// with its own limit).
func largestMemory(sp *spec.Spec) int64 {
	var largest int64
	for _, p := range sp.Profiles {
		largest = max(largest, p.Runtime.Memory)
		if b := p.Runtime.Build; b != nil {
			largest = max(largest, b.Memory)
		}
	}
	return largest
}

// unobserved is the observation of jobs that could not run at all.
func unobserved(jobs []runner.Job, reason string) []runner.Observation {
	obs := make([]runner.Observation, len(jobs))
	for i, j := range jobs {
		events := make([]runner.Event, len(j.Invocations))
		for k := range events {
			events[k].SandboxError = reason
		}
		obs[i] = runner.Observation{
			ExecutionID:     uuid.NewString(),
			Acquisition:     runner.AcquisitionError,
			Reasons:         []string{reason},
			SandboxWarnings: []string{},
			Events:          events,
		}
	}
	return obs
}

// DefaultParallel is run's default --parallel for profiles whose largest
// memory limit is largestMemory: the number of CPUs, lowered so that
// largestMemory × N stays within half the available memory. Exported for the
// benchmark, which must run behaves' own default.
func DefaultParallel(largestMemory int64) int {
	return fitParallel(runtime.NumCPU(), availableMemory(), largestMemory)
}

func fitParallel(cpus int, available, largestMemory int64) int {
	n := max(cpus, 1)
	if available > 0 && largestMemory > 0 {
		n = min(n, max(int(available/2/largestMemory), 1))
	}
	return n
}

func newRunID() string { return randomHex(8) }

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return hex.EncodeToString(b)
}

// imageFlag collects --image PROFILE=REF.
type imageFlag map[string]string

func (f imageFlag) String() string {
	keys := make([]string, 0, len(f))
	for k, v := range f {
		keys = append(keys, k+"="+v)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func (f imageFlag) Set(s string) error {
	name, ref, ok := strings.Cut(s, "=")
	if !ok || name == "" || ref == "" {
		return fmt.Errorf("want PROFILE=REF, got %q", s)
	}
	f[name] = ref
	return nil
}

// allowFlag is the repeatable --allow-untracked GLOB, checked as it is
// parsed (a bad pattern is a usage error).
type allowFlag []spec.AllowGlob

func (f *allowFlag) String() string {
	if f == nil {
		return ""
	}
	s := make([]string, len(*f))
	for i, g := range *f {
		s[i] = g.String()
	}
	return strings.Join(s, ",")
}

func (f *allowFlag) Set(s string) error {
	g, err := spec.ParseAllowGlob(s)
	if err != nil {
		return err
	}
	*f = append(*f, g)
	return nil
}

// sizeFlag is a size in binary units (64KiB, 4GiB).
type sizeFlag int64

func (f *sizeFlag) String() string { return verdict.FormatSize(int64(*f)) }

func (f *sizeFlag) Set(s string) error {
	n, err := spec.ParseSize(s)
	if err != nil {
		return err
	}
	*f = sizeFlag(n)
	return nil
}
