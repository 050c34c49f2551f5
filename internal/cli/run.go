package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/behaves-dev/behaves/internal/exitcode"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/run"
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
	// programs are the --program patterns (none: every program).
	programs []string
	terminal terminalFlags
	// reuse are the stored reports whose evidence may answer cases
	// (--reuse, in order: the first match wins); maxReuse bounds each.
	reuse    []string
	maxReuse int64
	// backend is where the programs run: docker (the default) or
	// kubernetes, with the cluster's kubeconfig and namespace.
	backend    string
	kubeconfig string
	namespace  string
}

// The backends behaves run runs programs on.
const (
	BackendDocker     = "docker"
	BackendKubernetes = "kubernetes"
)

// KubeDefaultParallel is --parallel's default on a Kubernetes cluster:
// the local CPUs say nothing of a cluster's nodes, so a fixed number of
// pods at once, which the API server and a small cluster take (see
// docs/kubernetes.md); give --parallel for a larger cluster.
const KubeDefaultParallel = 8

// backendFlag is --backend: docker or kubernetes.
type backendFlag string

func (b *backendFlag) String() string { return string(*b) }

func (b *backendFlag) Set(v string) error {
	switch v {
	case BackendDocker, BackendKubernetes:
		*b = backendFlag(v)
		return nil
	}
	return fmt.Errorf("want %s or %s, not %q", BackendDocker, BackendKubernetes, v)
}

// newRunConfig is a run with every default.
func newRunConfig() runConfig {
	return runConfig{pullTimeout: DefaultPullTimeout, reportPath: "behaves-report.json", failOn: FailOnUndetermined,
		maxReport: reportwrite.DefaultMaxReportSize, passAt: []int{1}, terminal: terminalFlags{color: "auto"},
		maxReuse: DefaultMaxReadReport, backend: BackendDocker}
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
	fs.Var((*programFlag)(&cfg.programs), "program", "NAME: run only the programs NAME names (a program's name, its files:/dirs: entry's name, or a glob over them; repeatable); the report says it was filtered, and publish posts no check run from it")
	fs.Var(shardFlag{&cfg.shard}, "shard", "i/N: run only shard i of N (a deterministic, balanced slice of the programs; see behaves merge)")
	fs.Var((*pathsFlag)(&cfg.reuse), "reuse", "REPORT: answer the cases whose stored evidence in REPORT still holds (same program, input and settings) without running them; repeatable, the first match wins (docs/cli.md: only reuse reports you trust)")
	fs.Var((*positiveSizeFlag)(&cfg.maxReuse), "max-reuse-size", "the largest --reuse report read (KiB, MiB, GiB)")
	fs.Var((*backendFlag)(&cfg.backend), "backend", "where programs run: docker (the engine DOCKER_HOST names) or kubernetes (one pod per invocation; docs/kubernetes.md)")
	fs.StringVar(&cfg.kubeconfig, "kubeconfig", "", "with --backend kubernetes: the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&cfg.namespace, "namespace", "", "with --backend kubernetes: the namespace of behaves' pods (default behaves; created when missing)")
}

var runHelp = commandHelp{
	args: "[--spec behaves.yml] [--report FILE] [--junit FILE] [--html FILE] [flags]",
	about: `Runs every program's cases, each in a fresh hardened container, judges what
each did against the spec, prints what did not behave and a table, and writes
the JSON report (and with --junit and --html, the JUnit XML and the HTML page).
No image is pulled unless --pull-images (with --allow-registry) says so.`,
	exits: runExits,
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
	cfg.pullTimeout, cfg.runID = *pullTimeout, string(*chosenID)
	if err := cfg.checkBackend(); err != nil {
		return usageErr("%v", err)
	}
	if err := cfg.library().Validate(); err != nil {
		if errors.Is(err, run.ErrPullNeedsRegistry) {
			fmt.Fprintln(env.Stderr, cfg.spec.checkPull("run", "--pull-images"))
			return ExitUsage
		}
		return usageErr("%v", err)
	}
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
	v, err := exitcode.ParseFailOn(s)
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

// library is the run cfg asks for, as package run takes it.
func (cfg runConfig) library() run.Config {
	return run.Config{
		SpecPath: cfg.spec.path,
		Spec: spec.Options{Ceilings: cfg.spec.ceilings, Images: cfg.spec.images, AllowUntracked: cfg.spec.untracked, AllowNonGating: cfg.spec.nonGating,
			Pull: cfg.spec.pull, AllowRegistries: cfg.spec.registries, Backend: keyBackend(cfg.backend)},
		PullTimeout: cfg.pullTimeout,
		RunID:       cfg.runID,
		ReportPath:  cfg.reportPath, JUnitPath: cfg.junitPath, HTMLPath: cfg.htmlPath,
		Parallel:  cfg.parallel,
		MaxReport: cfg.maxReport,
		PassAt:    cfg.passAt,
		Shard:     cfg.shard,
		Programs:  cfg.programs,
		Reuse:     cfg.reuse,
		MaxReuse:  cfg.maxReuse,
	}
}

// keyBackend is a backend as the evidence key names it: "" for Docker
// (as every report before a second backend), else the backend's name.
func keyBackend(backend string) string {
	if backend == BackendDocker {
		return ""
	}
	return backend
}

// checkBackend refuses the cluster's settings without the cluster: the
// one check for run's flags and the action's inputs.
func (cfg runConfig) checkBackend() error {
	if cfg.backend != BackendKubernetes && (cfg.kubeconfig != "" || cfg.namespace != "") {
		return errors.New("kubeconfig and namespace need the kubernetes backend (--backend kubernetes, or the input backend: kubernetes)")
	}
	return nil
}

// runEnv is what package run takes from env.
func runEnv(env Env) run.Env {
	return run.Env{Stderr: env.Stderr, Actions: env.Getenv("GITHUB_ACTIONS") == "true", Terminal: env.Terminal,
		NewSandbox: env.NewSandbox, Cleanup: env.Cleanup, Version: version(),
		StaleCheck: func(ctx context.Context) { warnStaleRuns(ctx, env) }}
}

// runSpec runs what cfg asks for (run.Run), prints the summary and
// returns the exit code.
func runSpec(ctx context.Context, env Env, cfg runConfig) int {
	origin, warnings := githubOrigin(env.Getenv)
	if len(warnings) > 0 {
		printMessages(env.Stderr, env, warnings...)
	}
	if cfg.backend == BackendKubernetes { // the stale check looks at the cluster
		env.NewSweeper = KubeSweeper(cfg.kubeconfig, cfg.namespace)
	}
	renv := runEnv(env)
	renv.GitHub, renv.Verbose = origin, cfg.terminal.verbose
	lib := cfg.library()
	if cfg.backend == BackendKubernetes {
		cleanup := env.Cleanup
		if cleanup == nil {
			cleanup = context.Background()
		}
		renv.NewSandbox = KubeSandbox(cleanup, cfg.kubeconfig, cfg.namespace)
		if lib.Parallel == 0 {
			lib.Parallel = KubeDefaultParallel
		}
	}
	res, err := run.Run(ctx, lib, renv)
	defer func() {
		if res.CloseErr != nil {
			fmt.Fprintf(env.Stderr, "behaves: %v\n", res.CloseErr)
		}
	}()
	switch {
	case res.ReuseErr != nil:
		if err != nil {
			fmt.Fprintf(env.Stderr, "behaves: %v\n", err)
			return ExitRunFailed
		}
		printMessages(env.Stderr, env, fmt.Sprintf("behaves run: %v (give a report behaves wrote, or leave --reuse out to run everything)", res.ReuseErr))
		return ExitUsage
	case res.SpecErr != nil:
		code := ExitUsage
		if err != nil {
			fmt.Fprintf(env.Stderr, "behaves: %v\n", err)
			code = ExitRunFailed
		}
		printMessages(env.Stderr, env, specErrorLines(res.SpecErr)...)
		return code
	case !res.Ran:
		fmt.Fprintf(env.Stderr, "behaves: %v\n", err)
		return ExitRunFailed
	}
	rep := res.Report
	code := exitcode.Of(rep.Verdict, res.RunErr != nil, cfg.failOn, rep.Counts.Cases.Nondeterministic > 0)
	if err != nil {
		fmt.Fprintf(env.Stderr, "behaves: %v\n", err)
		code = ExitRunFailed
	}
	topts := cfg.terminal.options(env)
	if w := res.Wrote; w.Report != "" {
		topts.After = []string{wroteLine(w.Report, w.JUnit, w.HTML)}
	}
	if err := terminal.Write(env.Stdout, rep, topts); err != nil {
		fmt.Fprintf(env.Stderr, "behaves: writing the summary: %v\n", err)
	}
	if res.RunErr != nil {
		printMessages(env.Stderr, env, fmt.Sprintf("behaves: the run failed: %v", res.RunErr))
	}
	return code
}
