package cli

// behaves record: the spec's programs run (run.Run, into a report of its
// own in a temporary folder), and what each did is written into the
// cases that have no expectation (package record plans and writes it).

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/behaves-dev/behaves/internal/record"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/run"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

var recordHelp = commandHelp{
	args: `[--spec behaves.yml] [--program NAME]... [--update] [--force]
                      [--image PROFILE=REF]... [--allow-untracked GLOB]... [--allow-non-gating NAME]...
                      [--pull-images --allow-registry HOST[:PORT]... [--pull-timeout 10m]]
                      [--parallel N] [--max-report-size SIZE] [--max-…]`,
	about: `Runs the spec's programs (or those --program names) and writes what each
did into every case that has no expect (such a case checks only exit 0):
expect: {exit_code: N, stdout: {equals: "…"}}, and a stderr equals when the
program wrote any. With --update it also rewrites the expectations the run
disproved (false cases). It prints a unified diff of each file it changes
(the spec, its cases files) and then writes it; every other byte of the
file (comments, order, quoting) stays as it was. Review the diff as you
would a snapshot test's: what the program does now becomes what it must do.

It never records an undetermined case, a timeout, a memory kill, output
cut at the profile's output_limit, runs of a case that differ, or output
a spec cannot hold exactly (not UTF-8, a NUL byte): each is named with its
file and line. It leaves alone same_as cases (their reference is the
expectation), cases a checker judges (the checker is), the cases an
inputs_file makes, gate: false entries unless --program names them, and a case the samples of a files:/dirs: entry
disagree on (one case serves every sample: it is recorded only when all
of them ran and agree).

Under GitHub Actions (GITHUB_ACTIONS=true) it refuses unless given --force:
recording from a pull request's code would accept whatever it does.`,
	exits: `0 everything asked for was written (or nothing needed writing) ·
            1 some case could not be recorded (each named) ·
            2 usage or spec error, or under GitHub Actions without --force ·
            4 the run itself failed (nothing is written), or a file could not be written`,
}

// recordCommand is `behaves record`.
func recordCommand(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	var sf specFlags
	sf.register(fs)
	sf.registerPullImages(fs)
	pullTimeout := registerPullTimeout(fs)
	var programs programFlag
	fs.Var(&programs, "program", "NAME: record only the programs NAME names (a program's name, its files:/dirs: entry's name, or a glob over them; repeatable); a gate: false entry it names is recorded too")
	update := fs.Bool("update", false, "also rewrite the expectations the run disproved (false cases), in their own style")
	force := fs.Bool("force", false, "record under GitHub Actions (GITHUB_ACTIONS=true) too")
	var parallel int
	fs.Var((*parallelFlag)(&parallel), "parallel", "invocations at once (0, the default: fits the CPUs and the profiles' memory)")
	runID := registerRunID(fs)
	maxReport := int64(reportwrite.DefaultMaxReportSize)
	fs.Var((*positiveSizeFlag)(&maxReport), "max-report-size", "the most bytes the run's report keeps of the cases' output; output left out past it is not recorded (KiB, MiB, GiB)")
	if !parse(fs, args, env) {
		return ExitUsage
	}
	if env.Getenv("GITHUB_ACTIONS") == "true" && !*force {
		fmt.Fprintln(env.Stderr, "behaves record: refused under GitHub Actions (GITHUB_ACTIONS=true): recording from a pull request's code would accept whatever it does; record where you trust the code, or pass --force")
		return ExitUsage
	}
	if msg := sf.checkPull("record", "--pull-images"); msg != "" {
		fmt.Fprintln(env.Stderr, msg)
		return ExitUsage
	}
	sp, err := sf.load()
	if err != nil {
		printMessages(env.Stderr, env, specErrorLines(err)...)
		return ExitUsage
	}
	src, err := record.Read(sp)
	if err != nil {
		printMessages(env.Stderr, env, "behaves record: "+err.Error())
		return ExitRunFailed
	}
	opt := record.Options{Update: *update, Named: programs}
	names, err := src.Programs(opt)
	if err != nil {
		printMessages(env.Stderr, env, "behaves record: "+err.Error())
		return ExitUsage
	}
	var rep report.Report
	if len(names) > 0 {
		var code int
		cfg := run.Config{
			SpecPath: sf.path,
			Spec: spec.Options{Ceilings: sf.ceilings, Images: sf.images, AllowUntracked: sf.untracked, AllowNonGating: sf.nonGating,
				Pull: sf.pull, AllowRegistries: sf.registries},
			PullTimeout: *pullTimeout,
			RunID:       string(*runID),
			Parallel:    parallel,
			MaxReport:   maxReport,
			PassAt:      []int{1},
			Programs:    names,
			MaxReuse:    DefaultMaxReadReport,
		}
		if rep, code = recordRun(ctx, env, cfg); code != ExitTrue {
			return code
		}
	}
	plan, err := src.Make(rep, opt)
	if err != nil {
		printMessages(env.Stderr, env, "behaves record: "+err.Error())
		return ExitUsage
	}
	var diff []string
	for _, c := range plan.Changes {
		diff = append(diff, c.Diff()...)
	}
	if len(diff) > 0 {
		printMessages(env.Stdout, env, diff...)
	}
	var lines []string
	for _, p := range plan.Problems {
		lines = append(lines, "behaves record: "+p.String())
	}
	for _, n := range plan.Notes {
		lines = append(lines, "behaves record: "+n)
	}
	code := ExitTrue
	var wrote []string
	for _, c := range plan.Changes {
		if err := c.Write(); err != nil {
			lines = append(lines, "behaves record: "+err.Error())
			code = ExitRunFailed
			continue
		}
		wrote = append(wrote, c.File.Name)
	}
	switch {
	case len(wrote) > 0:
		lines = append(lines, fmt.Sprintf("behaves record: wrote %s: %s", strings.Join(wrote, ", "), counted(plan)))
	case len(plan.Changes) == 0 && len(plan.Problems) == 0 && *update:
		lines = append(lines, "behaves record: nothing to write: every case has an expectation, and the run disproved none")
	case len(plan.Changes) == 0 && len(plan.Problems) == 0:
		lines = append(lines, "behaves record: nothing to write: every case has an expectation (--update rewrites those the run disproves)")
	}
	if len(plan.Problems) > 0 {
		lines = append(lines, fmt.Sprintf("behaves record: %s not recorded", verdict.Count(len(plan.Problems), "case", "cases")))
		if code == ExitTrue {
			code = ExitFalse
		}
	}
	printMessages(env.Stderr, env, lines...)
	return code
}

// recordRun runs what cfg asks for (the programs record needs, as escaped
// --program patterns) into a report in a temporary folder, and reads it
// back as behaves reads a report. A code other than ExitTrue: the run
// could not give one, said on env.Stderr.
func recordRun(ctx context.Context, env Env, cfg run.Config) (report.Report, int) {
	tmp, err := os.MkdirTemp("", "behaves-record-")
	if err != nil {
		fmt.Fprintf(env.Stderr, "behaves record: %v\n", err)
		return report.Report{}, ExitRunFailed
	}
	defer os.RemoveAll(tmp)
	cfg.ReportPath = filepath.Join(tmp, "report.json")
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(env.Stderr, "behaves record: %v\n", err)
		return report.Report{}, ExitUsage
	}
	res, err := run.Run(ctx, cfg, runEnv(env))
	if res.CloseErr != nil {
		fmt.Fprintf(env.Stderr, "behaves: %v\n", res.CloseErr)
	}
	switch {
	case res.SpecErr != nil:
		printMessages(env.Stderr, env, specErrorLines(res.SpecErr)...)
		return report.Report{}, ExitUsage
	case err != nil, !res.Ran:
		printMessages(env.Stderr, env, fmt.Sprintf("behaves record: the run failed: %v; nothing was written", errors.Join(err, res.RunErr)))
		return report.Report{}, ExitRunFailed
	case res.RunErr != nil:
		printMessages(env.Stderr, env, fmt.Sprintf("behaves record: the run failed: %v; nothing was written", res.RunErr))
		return report.Report{}, ExitRunFailed
	}
	rep, err := reportread.File(cfg.ReportPath, cfg.MaxReport+run.ReportReadSlack)
	if err != nil {
		printMessages(env.Stderr, env, fmt.Sprintf("behaves record: reading the run's report: %v; nothing was written", err))
		return report.Report{}, ExitRunFailed
	}
	n := rep.Counts.Cases.Total
	fmt.Fprintf(env.Stderr, "behaves record: ran %s, %s\n", verdict.Count(len(rep.Programs), "program", "programs"), verdict.Count(n, "case", "cases"))
	return rep, ExitTrue
}

// counted says what plan writes: "3 cases recorded, 1 updated".
func counted(plan *record.Plan) string {
	var parts []string
	if plan.Recorded > 0 {
		parts = append(parts, verdict.Count(plan.Recorded, "case", "cases")+" recorded")
	}
	if plan.Updated > 0 {
		parts = append(parts, verdict.Count(plan.Updated, "expectation", "expectations")+" updated")
	}
	return strings.Join(parts, ", ")
}
