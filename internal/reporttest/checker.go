package reporttest

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// CheckerDigest is the checker program's digest in CheckedInput.
var CheckerDigest = sha256Hex([]byte("import sys\n"))

// CheckerEvent is the event of the checker "split" that exited with code,
// writing stderr.
func CheckerEvent(code *int, stderr string) runner.Event {
	return runner.Event{
		ExitCode:      code,
		Stderr:        runner.Stream{Data: []byte(stderr), Bytes: int64(len(stderr))},
		Command:       []string{"python3", "-I", "/program/split.py", "/program/.behaves-check/0/input", "/program/.behaves-check/0/output", "/program/.behaves-check/0/answer"},
		ImageDigest:   Settings.ImageID,
		Duration:      7 * time.Millisecond,
		ProgramSHA256: CheckerDigest,
		Limits:        Limits,
	}
}

// CheckedInput is a run of one program with cases a checker judged,
// judged as the run engine judges them: "paths" (twice: accepted, then a
// wrong answer written in bytes that are not UTF-8), "both streams" (a
// checker on stdout that exited 3, one on stderr in a list that accepted
// it), "cut" (stdout cut at output_limit: no checker ran) and "plain" (no
// checker).
func CheckedInput() assemble.Input {
	split := func(answer string) *verdict.Matcher {
		return &verdict.Matcher{Kind: verdict.Checker, Checker: "split", Answer: answer}
	}
	paths := WithStdin(Case("paths", 12, verdict.Expectation{Stdout: split("1 2 4\n")}), "4\n")
	paths.Repeat = 2
	fromFile := split("1 2 4\n")
	fromFile.AnswerFile = "answers/1.txt"
	both := Case("both streams", 16, verdict.Expectation{
		Stdout: fromFile,
		Stderr: &verdict.Matcher{Kind: verdict.All, All: []verdict.Matcher{{Kind: verdict.Contains, Value: "log"}, *split("")}},
	})
	cut := Case("cut", 20, verdict.Expectation{Stdout: split("1 2 4\n")})
	plain := Case("plain", 24, verdict.Expectation{Stdout: Equals("x")})
	p := Program("graph", "graph.py", 10, paths, both, cut, plain)
	sp := &spec.Spec{Path: "behaves.yml", Root: ".", Programs: []spec.Program{p},
		Checkers: []spec.Checker{{Name: "split", File: "checkers/split.py", Profile: "python", Pos: spec.Pos{File: "behaves.yml", Line: 4, Col: 3},
			Program: runner.Program{Entry: "split.py", Files: runner.FilesOf(map[string][]byte{"split.py": []byte("import sys\n")})}}}}

	checkerRun := func(run int, stream string, c spec.Case, out []byte, answer string, ev runner.Event) assemble.CheckerRun {
		applied := Settings.Applied.Clone()
		return assemble.CheckerRun{Checker: "split", Run: run, Stream: stream, ProgramSHA256: CheckerDigest,
			InputSHA256: sha256Hex(c.Invocation.Stdin), OutputSHA256: sha256Hex(out), AnswerSHA256: sha256Hex([]byte(answer)),
			Applied: &applied, Event: ev}
	}
	judged := func(c spec.Case, events []runner.Event, checks []assemble.CheckerRun) assemble.Case {
		checked := make([]verdict.Checked, len(events))
		for k := range checks {
			ck := &checks[k]
			if ck.Stream == "stderr" {
				checked[ck.Run].Stderr = &ck.Event
			} else {
				checked[ck.Run].Stdout = &ck.Event
			}
		}
		results, fold := verdict.JudgeCheckedRuns(c.Expect, nil, events, checked)
		k := assemble.Case{Spec: c, Result: fold, Checkers: checks}
		for r, ev := range events {
			k.Runs = append(k.Runs, assemble.RunResult{Event: ev, Result: results[r]})
		}
		return k
	}

	pathRuns := []runner.Event{Event(IntP(0), "1 2 4\n"), Event(IntP(0), "1 3 4\n")}
	bothEv := Event(IntP(0), "1 2 4\n")
	bothEv.Stderr = runner.Stream{Data: []byte("log\n"), Bytes: 4}
	cutEv := Event(IntP(0), "1 2")
	cutEv.Stdout.Truncated, cutEv.Stdout.Bytes = true, 1<<20
	plainEv := Event(IntP(0), "x\n")
	ok := CheckerEvent(IntP(0), "")
	ok.Stdout = runner.Stream{Data: []byte("ok 3 nodes\n"), Bytes: 11}
	cases := []assemble.Case{
		judged(paths, pathRuns, []assemble.CheckerRun{
			checkerRun(0, "stdout", paths, pathRuns[0].Stdout.Data, "1 2 4\n", ok),
			checkerRun(1, "stdout", paths, pathRuns[1].Stdout.Data, "1 2 4\n", CheckerEvent(IntP(1), "wrong answer 3 is not on a shortest path \xff\n")),
		}),
		judged(both, []runner.Event{bothEv}, []assemble.CheckerRun{
			checkerRun(0, "stdout", both, bothEv.Stdout.Data, "1 2 4\n", CheckerEvent(IntP(3), "FAIL the answer is not a path\n")),
			checkerRun(0, "stderr", both, bothEv.Stderr.Data, "", CheckerEvent(IntP(0), "")),
		}),
		judged(cut, []runner.Event{cutEv}, nil),
		judged(plain, []runner.Event{plainEv}, nil),
	}
	return assemble.Input{
		Spec: sp,
		Programs: []assemble.Program{{Spec: p, Duration: time.Second, Cases: cases, Attempt: runner.Observation{
			ExecutionID: "66666666-6666-4666-8666-666666666666", Acquisition: runner.AcquisitionComplete, Settings: Settings}}},
		RunID:     "run-0004",
		StartedAt: StartedAt,
		Duration:  time.Second,
		Version:   "v0.1.0-test",
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
