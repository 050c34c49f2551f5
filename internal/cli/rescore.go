package cli

// behaves rescore: the stored events of an earlier report judged against
// the spec's current expectations, without running anything (package
// rescore says when stored evidence can answer).

import (
	"flag"
	"fmt"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/exitcode"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/rescore"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/terminal"
	"github.com/behaves-dev/behaves/internal/verdict"
)

var rescoreHelp = commandHelp{
	args: `--report OLD.json [--spec behaves.yml] [--report-out NEW.json]
                       [--fail-on false|undetermined] [--pass-at K,…] [--max-report-size SIZE]`,
	about: `Judges the events an earlier run stored in OLD.json against the spec's
current expectations, and writes a new report whose programs keep the stored
execution_id. It never creates a container. The stored evidence must answer
for the spec as it is now: programs are matched by id and cases by name, and
the evidence format (a behaves whose sandbox runs programs otherwise differs),
the program file, the profile's image, command, limits, env, tmpfs, user and
runtime, and each case's args, stdin and repeat (the number of runs stored)
must be what the stored run used; every stored run is judged again;
anything else is an error at the spec's position that says what differs
(exit 2), never a silent re-run. A case whose output the stored report left
out (its size budget) is undetermined.`,
	exits: `as run's (behaves help run) · 2 usage, a spec error, or evidence that cannot answer ·
            4 OLD.json is unreadable or invalid, or NEW.json cannot be written`,
}

// rescoreCommand is `behaves rescore`.
func rescoreCommand(args []string, env Env) int {
	fs := flag.NewFlagSet("rescore", flag.ContinueOnError)
	var sf specFlags
	sf.register(fs)
	oldPath := fs.String("report", "", "the report whose stored events are judged again (required)")
	outPath := fs.String("report-out", "behaves-rescored.json", "where to write the new report")
	failOn := fs.String("fail-on", string(FailOnUndetermined), "which verdicts fail the command: false or undetermined")
	passAt := fs.String("pass-at", "1", "K,…: the k of pass@k for each files: entry's samples, e.g. 1,5,10")
	var programs programFlag
	backend := backendFlag(BackendDocker)
	fs.Var(&backend, "backend", "the backend the report's evidence came from: docker, or kubernetes for a report of run --backend kubernetes (nothing runs)")
	fs.Var(&programs, "program", "NAME: judge only the programs NAME names (as run's --program; repeatable); the new report says it was filtered")
	maxRead := sizeFlag(DefaultMaxReadReport)
	fs.Var(&maxRead, "max-report-size", "the largest report read (KiB, MiB, GiB)")
	var tf terminalFlags
	tf.register(fs)
	if !parse(fs, args, env) {
		return ExitUsage
	}
	if err := tf.check(); err != nil {
		fmt.Fprintf(env.Stderr, "behaves rescore: %v\n", err)
		return ExitUsage
	}
	fo, err := exitcode.ParseFailOn(*failOn)
	if err != nil {
		fmt.Fprintf(env.Stderr, "behaves rescore: --fail-on: %v\n", err)
		return ExitUsage
	}
	ks, err := verdict.ParsePassAt(*passAt)
	if err != nil {
		fmt.Fprintf(env.Stderr, "behaves rescore: --pass-at: %v\n", err)
		return ExitUsage
	}
	if *oldPath == "" {
		fmt.Fprintln(env.Stderr, "behaves rescore: --report OLD.json is required: the report whose events are judged again")
		return ExitUsage
	}
	if maxRead <= 0 {
		fmt.Fprintln(env.Stderr, "behaves rescore: --max-report-size must be positive")
		return ExitUsage
	}
	started := time.Now()
	origin, warnings := githubOrigin(env.Getenv)
	if len(warnings) > 0 {
		printMessages(env.Stderr, env, warnings...)
	}
	old, err := reportread.File(*oldPath, int64(maxRead))
	if err != nil {
		printMessages(env.Stderr, env, "behaves: "+err.Error())
		return ExitRunFailed
	}
	sf.backend = keyBackend(string(backend))
	sp, err := sf.load()
	if err != nil {
		printMessages(env.Stderr, env, specErrorLines(err)...)
		return ExitUsage
	}
	if len(programs) > 0 {
		selected, err := sp.Select(programs)
		if err != nil {
			printMessages(env.Stderr, env, "behaves: "+err.Error())
			return ExitUsage
		}
		s := *sp
		s.Programs = selected
		sp = &s
	}
	records, errs := rescore.Match(sp, old, *oldPath)
	if errs != nil {
		lines := specErrorLines(spec.Errors(errs))
		lines = append(lines, fmt.Sprintf("behaves: %s: the stored evidence in %s cannot answer for this spec; nothing was judged", verdict.Count(len(errs), "problem", "problems"), *oldPath))
		printMessages(env.Stderr, env, lines...)
		return ExitUsage
	}
	rep := assemble.Report(assemble.Input{
		Spec:      sp,
		Programs:  records,
		RunID:     newRunID(),
		StartedAt: started,
		Duration:  time.Since(started),
		Version:   version(),
		GitHub:    origin, // the new report is this run's
		PassAt:    ks,
		Filter:    programs,
	})
	code := exitcode.Of(rep.Verdict, false, fo, rep.Counts.Cases.Nondeterministic > 0)
	werr := reportwrite.WriteJSON(*outPath, rep)
	if werr != nil {
		fmt.Fprintf(env.Stderr, "behaves: writing the report: %v\n", werr)
		code = ExitRunFailed
	}
	topts := tf.options(env)
	if werr == nil {
		topts.After = []string{wroteLine(*outPath, "", "")}
	}
	if err := terminal.Write(env.Stdout, rep, topts); err != nil {
		fmt.Fprintf(env.Stderr, "behaves: writing the summary: %v\n", err)
	}
	return code
}
