package verdict

import (
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/runner"
)

func checker(name string) *Matcher { return &Matcher{Kind: Checker, Checker: name} }

// checkerRun is a checker's event: it exited with code, writing stderr.
func checkerRun(code int, stderr string) *runner.Event {
	return &runner.Event{
		ExitCode: intp(code),
		Stderr:   runner.Stream{Data: []byte(stderr), Bytes: int64(len(stderr))},
		Limits:   runner.Limits{TimeoutMS: 2000, MemoryBytes: 64 << 20},
	}
}

func TestJudgeChecker(t *testing.T) {
	t.Parallel()
	stopped := func(f func(*runner.Event)) *runner.Event {
		ev := checkerRun(137, "")
		f(ev)
		return ev
	}
	tests := []struct {
		name   string
		ev     runner.Event
		ck     *runner.Event
		want   Verdict
		reason string
	}{
		{"accepted", done("1 2 4\n"), checkerRun(0, "ok 1 2 4 is a shortest path\n"), True, ""},
		{"wrong answer: stderr's first line", done("1 3 4\n"), checkerRun(1, "\n  wrong answer 3 is not a shortest path  \nmore\n"), False,
			"stdout: checker split: wrong answer 3 is not a shortest path"},
		{"presentation error: stdout when stderr is blank", done("x"), &runner.Event{ExitCode: intp(2), Stderr: runner.Stream{Data: []byte(" \n")}, Stdout: runner.Stream{Data: []byte("wrong output format Expected integer\n")}}, False,
			"stdout: checker split: wrong output format Expected integer"},
		{"wrong answer: nothing written", done("x"), checkerRun(1, ""), False, "stdout: checker split: wrong answer (exit 1), and it wrote nothing"},
		{"presentation error: nothing written", done("x"), checkerRun(2, ""), False, "stdout: checker split: presentation error (exit 2), and it wrote nothing"},
		{"the checker failed", done("x"), checkerRun(3, "FAIL answer file is empty\n"), Undetermined,
			"stdout: the checker split could not decide: it failed (exit 3): FAIL answer file is empty"},
		{"another exit code", done("x"), checkerRun(139, ""), Undetermined, "stdout: the checker split could not decide: exit 139"},
		{"timed out", done("x"), stopped(func(e *runner.Event) { e.TimedOut = true }), Undetermined,
			"stdout: the checker split could not decide: timed out after 2s"},
		{"memory", done("x"), stopped(func(e *runner.Event) { e.ResourceLimit = runner.LimitMemory }), Undetermined,
			"stdout: the checker split could not decide: killed: memory limit 64MiB"},
		{"exit 0 after a kill is not accepted", done("x"), stopped(func(e *runner.Event) { e.ExitCode = intp(0); e.TimedOut = true }), Undetermined,
			"stdout: the checker split could not decide: timed out after 2s"},
		{"no exit code", done("x"), &runner.Event{}, Undetermined, "stdout: the checker split could not decide: no exit code observed"},
		{"sandbox error", done("x"), &runner.Event{SandboxError: "creating container: no space\nleft"}, Undetermined,
			"stdout: the checker split could not decide: creating container: no space left"},
		{"a failed build", done("x"), &runner.Event{BuildFailure: "build failed: exit 1: split.cpp:3:1: error: oops"}, Undetermined,
			"stdout: the checker split could not decide: build failed: exit 1: split.cpp:3:1: error: oops"},
		{"did not run", done("x"), nil, Undetermined, "stdout: the checker split did not run"},
		{"a cut stream is undetermined whatever the checker said", cut("1 2", 1<<20), checkerRun(0, ""), Undetermined,
			"stdout cut at 64KiB: the checker split needs the whole output, and the rest was not kept"},
		{"a cut stream is not false either", cut("1 2", 1<<20), checkerRun(1, "wrong"), Undetermined,
			"stdout cut at 64KiB: the checker split needs the whole output, and the rest was not kept"},
		{"a program that did not exit", runner.Event{Stdout: runner.Stream{Data: []byte("1")}}, checkerRun(0, ""), Undetermined,
			"no exit code observed"},
		{"a hostile line", done("x"), checkerRun(1, "wrong \x1b[31m\x00answer\xff\u202e"+strings.Repeat("x", 300)+"\n"), False,
			"stdout: checker split: wrong  [31m answer\ufffd\u202e" + strings.Repeat("x", checkerLineWidth-len("wrong \x1b[31m\x00answer\xff\u202e")) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			exp := Expectation{Stdout: checker("split")}
			got := JudgeChecked(exp, tt.ev, Checked{Stdout: tt.ck})
			if got.Verdict != tt.want || got.Reason != tt.reason {
				t.Errorf("got %v %q, want %v %q", got.Verdict, got.Reason, tt.want, tt.reason)
			}
			oneLineResult(t, got)
		})
	}
}

// TestJudgeCheckerWithoutEvents: Judge has no checker events, so a
// checker matcher is never settled by it; a list holding one is false
// only when another of its matchers is.
func TestJudgeCheckerWithoutEvents(t *testing.T) {
	t.Parallel()
	got := Judge(Expectation{Stdout: checker("split")}, done("1 2 4"))
	if got.Verdict != Undetermined || got.Reason != "stdout: the checker split did not run" {
		t.Errorf("got %v %q", got.Verdict, got.Reason)
	}
	list := &Matcher{Kind: All, All: []Matcher{{Kind: Contains, Value: "4"}, {Kind: Checker, Checker: "split"}}}
	if got := Judge(Expectation{Stdout: list}, done("1 2 3")); got.Verdict != False || got.Reason != `stdout[1]: expected to contain "4", got "1 2 3"` {
		t.Errorf("list: got %v %q", got.Verdict, got.Reason)
	}
	got = JudgeChecked(Expectation{Stdout: list}, done("1 2 4"), Checked{Stdout: checkerRun(1, "wrong answer no")})
	if got.Verdict != False || got.Reason != "stdout[2]: checker split: wrong answer no" {
		t.Errorf("list with the checker's event: got %v %q", got.Verdict, got.Reason)
	}
	got = JudgeChecked(Expectation{Stdout: list}, done("1 2 4"), Checked{Stdout: checkerRun(0, "")})
	if got.Verdict != True {
		t.Errorf("list, accepted: got %v %q", got.Verdict, got.Reason)
	}
	// stderr's checker reads the stderr event, never stdout's.
	got = JudgeChecked(Expectation{Stderr: checker("log")}, done(""), Checked{Stdout: checkerRun(0, ""), Stderr: checkerRun(1, "bad log")})
	if got.Verdict != False || got.Reason != "stderr: checker log: bad log" {
		t.Errorf("stderr: got %v %q", got.Verdict, got.Reason)
	}
}

func TestJudgeCheckedRuns(t *testing.T) {
	t.Parallel()
	exp := Expectation{Stdout: checker("split")}
	runs := []runner.Event{done("a"), done("b"), done("c")}
	// A checker that answers differently for the runs makes the case
	// nondeterministic, as a program would; a run without its checker
	// event is undetermined.
	results, fold := JudgeCheckedRuns(exp, nil, runs, []Checked{{Stdout: checkerRun(0, "")}, {Stdout: checkerRun(1, "no")}})
	if results[0].Verdict != True || results[1].Verdict != False || results[2].Verdict != Undetermined {
		t.Errorf("runs: %v %v %v", results[0].Verdict, results[1].Verdict, results[2].Verdict)
	}
	if f := Fold(results); !f.Nondeterministic || fold.Verdict != Undetermined {
		t.Errorf("fold: %+v", f)
	}
	if _, fold := JudgeRuns(exp, nil, runs); fold.Verdict != Undetermined {
		t.Errorf("JudgeRuns without checkers: %v", fold.Verdict)
	}
}

func TestCheckersWanted(t *testing.T) {
	t.Parallel()
	both := Expectation{Stdout: checker("a"), Stderr: &Matcher{Kind: All, All: []Matcher{{Kind: Contains, Value: "x"}, {Kind: Checker, Checker: "b"}}}}
	name := func(m *Matcher) string {
		if m == nil {
			return ""
		}
		return m.Checker
	}
	cutErr := done("")
	cutErr.Stderr = runner.Stream{Data: []byte("xx"), Bytes: 10}
	tests := []struct {
		name     string
		exp      Expectation
		ev       runner.Event
		out, err string
	}{
		{"both", both, done("1"), "a", "b"},
		{"none", Expectation{Stdout: eq("1")}, done("1"), "", ""},
		{"a cut stream", both, cut("1", 100), "", "b"},
		{"the other stream cut", both, cutErr, "a", ""},
		{"a sandbox error", both, runner.Event{SandboxError: "x", ExitCode: intp(0)}, "", ""},
		{"a failed build", both, runner.Event{BuildFailure: "build failed: exit 1"}, "", ""},
		{"no exit code", both, runner.Event{}, "", ""},
		{"timed out", both, func() runner.Event { e := done("1"); e.TimedOut = true; return e }(), "", ""},
		{"a wrong exit code still runs it", both, func() runner.Event { e := done("1"); e.ExitCode = intp(4); return e }(), "a", "b"},
		{"same_as", Expectation{SameAs: &SameAs{}, Stdout: checker("a")}, done("1"), "", ""},
	}
	for _, tt := range tests {
		out, err := CheckersWanted(tt.exp, nil, tt.ev)
		if name(out) != tt.out || name(err) != tt.err {
			t.Errorf("%s: got %q %q, want %q %q", tt.name, name(out), name(err), tt.out, tt.err)
		}
	}
}

func TestCheckerValidate(t *testing.T) {
	t.Parallel()
	if err := (Matcher{Kind: Checker}).Validate(); err == nil {
		t.Error("a checker matcher without a checker validated")
	}
	two := Matcher{Kind: All, All: []Matcher{{Kind: Checker, Checker: "a"}, {Kind: Checker, Checker: "b"}}}
	if err := two.Validate(); err == nil || !strings.Contains(err.Error(), "second checker") {
		t.Errorf("two checkers on a stream: %v", err)
	}
	if got := matcherForm(Matcher{Kind: Checker, Checker: "split", AnswerFile: "answers/1.txt"}); got != "checker split (answer_file: answers/1.txt)" {
		t.Errorf("form: %s", got)
	}
	if got := matcherForm(Matcher{Kind: Checker, Checker: "split", Answer: "3\n"}); got != `checker split (answer: "3\n")` {
		t.Errorf("form: %s", got)
	}
}

// TestReferenceAnswer: a checker matcher's own answer, or its reference's
// first run's kept stream; none, with why naming the reference, when the
// reference did not run, did not finish or was cut.
func TestReferenceAnswer(t *testing.T) {
	t.Parallel()
	zero := 0
	ran := func(out string) runner.Event {
		return runner.Event{ExitCode: &zero, Stdout: runner.Stream{Data: []byte(out), Bytes: int64(len(out))}, Stderr: runner.Stream{Data: []byte("e"), Bytes: 1}}
	}
	own := &Matcher{Kind: Checker, Checker: "c", Answer: "mine"}
	ref := &Matcher{Kind: Checker, Checker: "c", AnswerReference: "r"}
	cut := ran("12")
	cut.Stdout.Bytes = 99
	timedOut := ran("1")
	timedOut.TimedOut = true
	for _, tt := range []struct {
		name   string
		m      *Matcher
		stream string
		refs   []runner.Event
		answer string
		why    string
	}{
		{"its own", own, "stdout", []runner.Event{ran("x")}, "mine", ""},
		{"the reference's stdout", ref, "stdout", []runner.Event{ran("1 2"), ran("other")}, "1 2", ""},
		{"the reference's stderr", ref, "stderr", []runner.Event{ran("1 2")}, "e", ""},
		{"no reference run", ref, "stdout", nil, "", "its answer is the stdout of the reference r, which did not run"},
		{"cut", ref, "stdout", []runner.Event{cut}, "", "its answer is the stdout of the reference r, which was cut at output_limit"},
		{"timed out", ref, "stdout", []runner.Event{timedOut}, "", "its answer is the stdout of the reference r, whose run did not finish: "},
		{"not observed", ref, "stdout", []runner.Event{{SandboxError: "lost"}}, "", "whose run did not finish: it was not observed: lost"},
	} {
		answer, why := ReferenceAnswer(tt.m, tt.stream, tt.refs)
		if string(answer) != tt.answer || !strings.HasPrefix(why, tt.why) && !strings.Contains(why, tt.why) || (tt.why == "") != (why == "") {
			t.Errorf("%s: %q, %q; want %q, %q", tt.name, answer, why, tt.answer, tt.why)
		}
	}
}
