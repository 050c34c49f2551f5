package cli

// behaves merge: the reports of the shards of one run (behaves run --shard
// i/N, one per job of an Actions matrix) combined into one report, as the
// unsharded run would have written it. The shard reports travel as
// artifacts, so they are untrusted input: each is read by reportread.File
// (every check publish makes), then reportmerge.Merge checks that they belong
// together.

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/behaves-dev/behaves/internal/exitcode"
	"github.com/behaves-dev/behaves/internal/reportmerge"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/terminal"
	"github.com/behaves-dev/behaves/internal/verdict"
)

var mergeHelp = commandHelp{
	args: `[--report behaves-report.json] [--allow-missing] [--pass-at K,…]
                     [--fail-on false|undetermined] [--max-report-size SIZE] SHARD-REPORT|FOLDER...`,
	about: `Merges the reports of the shards of one run (behaves run --shard i/N) into one
report, recomputing the counts, the groups and pass@k. A folder stands for
every *.json file under it. Flags come before the files.

It refuses (exit 2) a report that cannot be read or fails validation, a report
that is not a shard's, shards of different specs (spec digests) or of a
different N, and shards that overlap; and a missing shard unless
--allow-missing: then that shard's programs are undetermined ("shard 2/3
missing") and the merged run cannot be true.`,
	exits: `as run's, from the merged verdict and --fail-on · 2 usage or a
            refusal · 4 a shard's run failed, or the report was not written`,
}

// mergeConfig is what a merge needs: merge's flags, or the action's inputs.
type mergeConfig struct {
	reportPath    string
	allowMissing  bool
	passAt        []int
	failOn        FailOn
	maxReportSize int64
	// inputs are the shard reports and folders, as given.
	inputs []string
}

// mergeCommand is `behaves merge`.
func mergeCommand(args []string, env Env) int {
	fset := flag.NewFlagSet("merge", flag.ContinueOnError)
	cfg := mergeConfig{maxReportSize: DefaultMaxReadReport}
	fset.StringVar(&cfg.reportPath, "report", "behaves-report.json", "where to write the merged report")
	fset.BoolVar(&cfg.allowMissing, "allow-missing", false, "merge without some shards: their programs are undetermined")
	passAt := fset.String("pass-at", "1", "K,…: the k of pass@k for each files: entry's samples, e.g. 1,5,10")
	failOn := fset.String("fail-on", string(FailOnUndetermined), "which verdicts fail the command: false or undetermined")
	fset.Var((*sizeFlag)(&cfg.maxReportSize), "max-report-size", "the largest shard report read (KiB, MiB, GiB)")
	if err := parseFlags(fset, args, env); err != nil {
		return ExitUsage
	}
	cfg.inputs = fset.Args()
	if len(cfg.inputs) == 0 {
		fmt.Fprintln(env.Stderr, "behaves merge: name the shard reports to merge (files or folders)")
		return ExitUsage
	}
	for _, a := range cfg.inputs {
		if strings.HasPrefix(a, "-") {
			fmt.Fprintf(env.Stderr, "behaves merge: %s: flags come before the files\n", printable(a))
			return ExitUsage
		}
	}
	var err error
	if cfg.passAt, err = verdict.ParsePassAt(*passAt); err != nil {
		fmt.Fprintf(env.Stderr, "behaves merge: --pass-at: %v\n", err)
		return ExitUsage
	}
	if cfg.failOn, err = exitcode.ParseFailOn(*failOn); err != nil {
		fmt.Fprintf(env.Stderr, "behaves merge: --fail-on: %v\n", err)
		return ExitUsage
	}
	if cfg.maxReportSize <= 0 {
		fmt.Fprintln(env.Stderr, "behaves merge: --max-report-size must be positive")
		return ExitUsage
	}
	code, _ := mergeReports(env, cfg)
	return code
}

// mergeReports merges cfg.inputs into cfg.reportPath, prints the merged
// report as run does, and returns its exit code and whether the merged
// report was written (not after a refusal).
func mergeReports(env Env, cfg mergeConfig) (int, bool) {
	paths, err := shardFiles(cfg.inputs, cfg.reportPath)
	if err != nil {
		printMessages(env.Stderr, env, "behaves merge: "+err.Error())
		return ExitUsage, false
	}
	in := make([]reportmerge.Input, 0, len(paths))
	for _, p := range paths {
		r, err := reportread.File(p, cfg.maxReportSize)
		if err != nil {
			printMessages(env.Stderr, env, "behaves merge: refusing to merge: "+err.Error())
			return ExitUsage, false
		}
		in = append(in, reportmerge.Input{Path: p, Report: r})
	}
	origin, warnings := githubOrigin(env.Getenv)
	if len(warnings) > 0 {
		printMessages(env.Stderr, env, warnings...)
	}
	merged, err := reportmerge.Merge(in, reportmerge.Options{AllowMissing: cfg.allowMissing, PassAt: cfg.passAt,
		RunID: newRunID(), Version: version(), GitHub: origin})
	if err != nil {
		printMessages(env.Stderr, env, "behaves merge: refusing to merge: "+err.Error())
		return ExitUsage, false
	}
	code := exitcode.OfReport(merged, cfg.failOn)
	if err := reportwrite.WriteJSON(cfg.reportPath, merged); err != nil {
		fmt.Fprintf(env.Stderr, "behaves merge: writing the report: %v\n", err)
		return ExitRunFailed, false
	}
	topts := terminal.Options{GitHubActions: env.Getenv("GITHUB_ACTIONS") == "true", Token: terminal.NewToken()}
	if err := terminal.Write(env.Stdout, merged, topts); err != nil {
		fmt.Fprintf(env.Stderr, "behaves merge: writing the summary: %v\n", err)
	}
	lines := []string{fmt.Sprintf("behaves merge: %d of %s merged into %s", len(merged.Shard.Merged), verdict.Count(merged.Shard.Count, "shard", "shards"), cfg.reportPath)}
	for _, i := range merged.Shard.Missing {
		lines = append(lines, fmt.Sprintf("behaves merge: shard %d/%d missing: its programs are undetermined", i, merged.Shard.Count))
	}
	if merged.Error != "" {
		lines = append(lines, "behaves merge: a shard's run failed: "+merged.Error)
	}
	printMessages(env.Stderr, env, lines...)
	return code, true
}

// shardFiles expands the inputs: a file stands for itself, a folder for
// every *.json regular file under it (in lexical order, symlinks not
// followed), except the merged report's own path. Each file is named once.
func shardFiles(inputs []string, out string) ([]string, error) {
	outAbs, _ := filepath.Abs(out)
	var files []string
	seen := map[string]bool{}
	add := func(p string) {
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = p
		}
		if abs == outAbs || seen[abs] {
			return
		}
		seen[abs] = true
		files = append(files, p)
	}
	for _, in := range inputs {
		fi, err := os.Stat(in)
		if err != nil {
			return nil, fmt.Errorf("reading shard reports: %w", err)
		}
		if !fi.IsDir() {
			add(in)
			continue
		}
		var found []string
		err = filepath.WalkDir(in, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".json") {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading shard reports under %s: %w", in, err)
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("no *.json shard report under %s", in)
		}
		slices.Sort(found)
		for _, p := range found {
			add(p)
		}
	}
	if len(files) == 0 {
		return nil, errors.New("no shard reports to merge")
	}
	return files, nil
}
