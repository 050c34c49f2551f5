package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/behaves-dev/behaves/internal/run"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/terminal"
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
	NewSweeper func() (runner.Sweeper, error)
	// help is set by Main for the command it runs: parseFlags records
	// there that the command printed its help.
	help *helpState
}

// Main runs the command line and returns the exit code.
func Main(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if env.Cleanup == nil {
		env.Cleanup = context.Background()
	}
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, usage())
		return ExitUsage
	}
	switch args[0] {
	case "-h", "--help":
		fmt.Fprint(env.Stdout, usage())
		return ExitTrue
	}
	c, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(env.Stderr, "behaves: unknown command %q\n\n%s", args[0], usage())
		return ExitUsage
	}
	env.help = &helpState{}
	code := c.run(ctx, args[1:], env)
	if env.help.shown {
		return ExitTrue // the command printed its help and stopped
	}
	return code
}

// specFlags are the flags run, validate and pull share.
type specFlags struct {
	path       string
	ceilings   spec.Ceilings
	images     imageFlag
	untracked  allowFlag
	nonGating  nonGatingFlag
	registries registryFlag
	// pull is set by --pull-images (run, validate) and by the pull command.
	pull bool
	// backend is the evidence key's backend ("" for Docker): rescore's
	// --backend, the backend its report's evidence came from.
	backend string
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
	fs.IntVar(&s.ceilings.MaxProgramFiles, "max-program-files", s.ceilings.MaxProgramFiles, "the most files (and links) a folder program (dir:) may hold")
	fs.Var((*positiveSizeFlag)(&s.ceilings.MaxProgramSize), "max-program-size", "the most bytes a folder program's files (dir:) may hold in all (KiB, MiB, GiB): behaves reads every program into memory before the run")
	fs.Var(s.images, "image", "PROFILE=REF: run PROFILE with image REF (sha256:<id> or name@sha256:<digest>); repeatable")
	fs.Var(&s.untracked, "allow-untracked", "GLOB: let the spec name files git does not track under GLOB (relative to the repository root, ** for any depth: gen/**); never .git; repeatable")
	fs.Var(&s.nonGating, "allow-non-gating", "NAME: let the program entries NAME names (a glob: compare-*) say gate: false, so that their verdict does not decide the run's; repeatable")
	fs.Var(&s.registries, "allow-registry", "HOST[:PORT]: a registry that pulling may fetch images from (docker.io, ghcr.io, 127.0.0.1:5000); none by default; repeatable")
}

func (s *specFlags) load() (*spec.Spec, error) {
	return spec.Load(s.path, spec.Options{Ceilings: s.ceilings, Images: s.images, AllowUntracked: s.untracked, AllowNonGating: s.nonGating,
		Pull: s.pull, AllowRegistries: s.registries, Backend: s.backend})
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
// --help prints the command's help (printHelp: what its table row says,
// then its flags) to env.Stdout, and the command then exits 0 (Main); any
// other error (a flag that does not exist, a bad value) prints the error
// and one line saying where the help is, so that the error does not
// scroll away under the flag list.
func parseFlags(fs *flag.FlagSet, args []string, env Env) error {
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {} // the flag package calls it after the error; printed below
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		printHelp(env.Stdout, fs)
		if env.help != nil {
			env.help.shown = true
		}
	case err != nil:
		fmt.Fprintf(env.Stderr, "behaves %s: the flags are listed by behaves %s --help\n", fs.Name(), fs.Name())
	}
	return err
}

// messageOptions is how behaves' own messages are printed: under GitHub
// Actions inside a stop-commands region, since they quote spec text.
func messageOptions(env Env) terminal.Options {
	return terminal.Options{GitHubActions: env.Getenv("GITHUB_ACTIONS") == "true"}
}

// printMessages prints behaves' own messages, which may quote spec text,
// to w as inert text (terminal.WriteMessages).
func printMessages(w io.Writer, env Env, lines ...string) {
	terminal.PrintMessages(w, messageOptions(env).GitHubActions, lines...)
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
		return append(lines, fmt.Sprintf("behaves: the spec has %s; nothing ran", verdict.Count(len(list), "problem", "problems")))
	}
	return []string{fmt.Sprintf("behaves: %v", err)}
}

// imagePresence is a sandbox that can say whether its engine has an image
// without pulling it (*docker.Sandbox).
type imagePresence interface {
	ImagePresent(ctx context.Context, ref string) (bool, error)
}

var validateHelp = commandHelp{
	args: "[--spec behaves.yml] [--check-images] [flags]",
	about: `Loads and checks the spec as run would, without Docker: every problem with
its file:line:col, the files it names (tracked by git, inside the
repository), the ceilings. With --check-images it also asks the Docker
engine whether it has every image, pulling nothing.`,
	exits: `0 valid · 2 usage or spec error (or, with --check-images, a missing image) ·
            4 the Docker engine cannot be asked`,
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
		images = fmt.Sprintf("the Docker engine has every image the spec names (%s)", verdict.Count(n, "image", "images"))
	}
	fmt.Fprintf(env.Stdout, "%s: valid: %s, %s; %s\n", sp.Path, verdict.Count(len(sp.Programs), "program", "programs"), verdict.Count(cases, "case", "cases"), images)
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

// newRunID draws a run ID (run.NewID).
func newRunID() string { return run.NewID() }

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

// programFlag is the repeatable --program NAME, checked as it is parsed.
type programFlag []string

func (f *programFlag) String() string {
	if f == nil {
		return ""
	}
	return strings.Join(*f, ",")
}

func (f *programFlag) Set(s string) error {
	if err := spec.CheckProgramPattern(s); err != nil {
		return err
	}
	*f = append(*f, s)
	return nil
}

// nonGatingFlag is the repeatable --allow-non-gating NAME, checked as it
// is parsed.
type nonGatingFlag []string

func (f *nonGatingFlag) String() string {
	if f == nil {
		return ""
	}
	return strings.Join(*f, ",")
}

func (f *nonGatingFlag) Set(s string) error {
	if err := spec.ParseNonGating(s); err != nil {
		return err
	}
	*f = append(*f, s)
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

// pathsFlag is a repeatable file path, in the order given.
type pathsFlag []string

func (f *pathsFlag) String() string {
	if f == nil {
		return ""
	}
	return strings.Join(*f, ",")
}

func (f *pathsFlag) Set(s string) error {
	if s == "" {
		return errors.New("a path, not \"\"")
	}
	*f = append(*f, s)
	return nil
}
