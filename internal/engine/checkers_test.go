package engine

import (
	"bytes"
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/reuse"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

const checkerSpec = `version: 1
profiles:
  p: {image: ` + pin + `, command: ["x"], timeout: 1s, memory: 16MiB}
checkers:
  cmp: {file: check.txt, profile: p}
programs:
  - name: echo
    file: echo.txt
    profile: p
    cases:
      - {name: right, stdin: "1 2 4", expect: {stdout: {checker: cmp, answer: "1 2 4"}}}
      - {name: wrong, stdin: "1 3 4", expect: {stdout: {checker: cmp, answer: "SECRET 1 2 4"}}}
      - {name: no answer, stdin: "1", expect: {stdout: {checker: cmp}}}
      - {name: repeated, stdin: "7", repeat: 3, expect: {stdout: [{contains: "7"}, {checker: cmp, answer: "7"}]}}
      - {name: plain, stdin: "x", expect: {stdout: {equals: "x"}}}
  - name: cut
    file: cut.txt
    profile: p
    cases:
      - {name: cut, stdin: "1 2 4", expect: {stdout: {checker: cmp, answer: "1 2 4"}}}
`

// TestRunCheckers: the checked cases wait for their checker, which runs
// once all programs' runs are in, in one job (prepared once), one
// invocation per checked run; its exit code decides, a cut stream gets no
// checker run, and the answer reaches the checker's job only.
func TestRunCheckers(t *testing.T) {
	sp := loadSpec(t, checkerSpec, testFiles)
	plan := NewPlan(sp, Selection{}, 2)
	sb := &scriptSandbox{}
	sink := &recordSink{}
	out := plan.Run(t.Context(), sb, Options{RunID: "r", StartedAt: time.Now(), Cleanup: context.Background()}, sink)
	if out.Err != nil {
		t.Fatalf("run failed: %v", out.Err)
	}
	got := verdicts(out.Report)
	want := []string{"echo/right=true", "echo/wrong=false", "echo/no answer=undetermined", "echo/repeated=true", "echo/plain=true", "cut/cut=undetermined"}
	if !slices.Equal(got, want) {
		t.Errorf("verdicts %v, want %v", got, want)
	}
	reasons := map[string]string{}
	for _, p := range out.Report.Programs {
		for _, c := range p.Cases {
			reasons[c.Name] = c.Reason
		}
	}
	for name, reason := range map[string]string{
		"wrong":     "stdout: checker cmp: wrong answer 1 3 4 is not SECRET 1 2 4",
		"no answer": "stdout: the checker cmp could not decide: it failed (exit 3): FAIL no answer",
		"cut":       "stdout cut at 64KiB: the checker cmp needs the whole output, and the rest was not kept",
	} {
		if reasons[name] != reason {
			t.Errorf("%s: reason %q, want %q", name, reasons[name], reason)
		}
	}
	if sb.checkers != 1 || sb.ran["check"] != 6 {
		t.Errorf("checker prepared %d times, ran %d times; want once, 6 runs (3 cases, 3 repeats; none on the cut stream)", sb.checkers, sb.ran["check"])
	}
	for _, r := range sb.requests {
		if r.Checker {
			continue
		}
		for p, f := range r.Program.Files {
			data, err := f.ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(data, []byte("SECRET")) || strings.Contains(p, ".behaves-check") {
				t.Errorf("the program's job got the answer (%s)", p)
			}
		}
	}
	for key, s := range sink.cases {
		if s.n != 1 {
			t.Errorf("case %v reached the sink %d times", key, s.n)
		}
	}
	rep := sink.cases[[2]int{0, 3}]
	if len(rep.checks) != 3 || rep.runs != 3 {
		t.Fatalf("repeated: %d checker runs for %d runs, want 3 for 3", len(rep.checks), rep.runs)
	}
	digest := sp.Checkers[0].Program.Digest()
	// Each checker run records what its containers were built from (the
	// sandbox's applied settings of the checker's profile): its key.
	applied := runner.Apply(sp.CheckerJob(sp.Checkers[0], nil).Profile)
	for r, c := range rep.checks {
		if c.Run != r || c.Stream != "stdout" || c.Checker != "cmp" || c.ProgramSHA256 != digest || c.Event.ProgramSHA256 != digest ||
			c.OutputSHA256 != sha256Hex([]byte("7")) || c.AnswerSHA256 != sha256Hex([]byte("7")) || c.InputSHA256 != sha256Hex([]byte("7")) {
			t.Errorf("repeated: checker run %d: %+v", r, c)
		}
		if c.Applied == nil || !reflect.DeepEqual(*c.Applied, applied) || c.BuildImageID != "" {
			t.Errorf("repeated: checker run %d recorded applied %+v, build image %q; want %+v and none", r, c.Applied, c.BuildImageID, applied)
		}
	}
	if s := sink.cases[[2]int{1, 0}]; len(s.checks) != 0 {
		t.Errorf("the cut case has %d checker runs, want none", len(s.checks))
	}
	if s := sink.cases[[2]int{0, 4}]; len(s.checks) != 0 || s.res.Verdict != verdict.True {
		t.Errorf("plain: %+v", s)
	}
	// The report holds each checker run with its event.
	c := out.Report.Programs[0].Cases[1]
	if len(c.CheckerRuns) != 1 || c.CheckerRuns[0].Event.ExitCode == nil || *c.CheckerRuns[0].Event.ExitCode != 1 {
		t.Errorf("wrong: checker runs %+v", c.CheckerRuns)
	}
}

// TestRunCheckersWithoutSandbox: no sandbox, no checker: every checked
// case is undetermined, and nothing is prepared.
func TestRunCheckersWithoutSandbox(t *testing.T) {
	sp := loadSpec(t, checkerSpec, testFiles)
	out := NewPlan(sp, Selection{}, 1).Run(t.Context(), nil, Options{StartedAt: time.Now(), Cleanup: context.Background(), SandboxErr: context.Canceled}, &recordSink{})
	for _, v := range verdicts(out.Report) {
		if !strings.HasSuffix(v, "=undetermined") {
			t.Errorf("%s: without a sandbox every case is undetermined", v)
		}
	}
}

// TestRunCheckersAfterTheSandboxWasLost: once the sandbox is lost no
// checker is prepared; the checked case is undetermined, its checker run
// saying why.
func TestRunCheckersAfterTheSandboxWasLost(t *testing.T) {
	sp := loadSpec(t, `version: 1
profiles:
  p: {image: `+pin+`, command: ["x"], timeout: 1s, memory: 16MiB}
checkers:
  cmp: {file: check.txt, profile: p}
programs:
  - name: echo
    file: echo.txt
    profile: p
    cases:
      - {name: checked, stdin: "1", expect: {stdout: {checker: cmp, answer: "1"}}}
  - name: gone
    file: lose.txt
    profile: p
    cases:
      - {name: a, expect: {stdout: {equals: ""}}}
`, testFiles)
	sb := &scriptSandbox{}
	sink := &recordSink{}
	out := NewPlan(sp, Selection{}, 1).Run(t.Context(), sb, Options{StartedAt: time.Now(), Cleanup: context.Background()}, sink)
	if out.Err == nil {
		t.Fatal("the run did not fail")
	}
	if sb.checkers != 0 {
		t.Errorf("%d checkers prepared after the sandbox was lost", sb.checkers)
	}
	s := sink.cases[[2]int{0, 0}]
	if s.res.Verdict != verdict.Undetermined || len(s.checks) != 1 || !strings.HasPrefix(s.checks[0].Event.SandboxError, "not run: sandbox lost") {
		t.Errorf("checked: %s %q, checker runs %+v", s.res.Verdict, s.res.Reason, s.checks)
	}
}

// TestReuseRunsOnlyTheChecker: under --reuse, a checked case whose
// program's runs the stored report answers runs its checker again on
// them, and nothing else: a changed answer (or checker) needs no program
// container. The case keeps reused_from, its checker runs are new, and
// the report reads back.
func TestReuseRunsOnlyTheChecker(t *testing.T) {
	sp := loadSpec(t, checkerSpec, testFiles)
	path, first := runTo(t, sp, &scriptSandbox{}, "first")
	if v := verdicts(first); !slices.Contains(v, "echo/wrong=false") {
		t.Fatalf("the stored run: %v", v)
	}
	// The answer of "wrong" is now the program's output: the checker
	// accepts it.
	edited := loadSpec(t, strings.Replace(checkerSpec, `answer: "SECRET 1 2 4"`, `answer: "1 3 4"`, 1), testFiles)
	again := &scriptSandbox{}
	_, rep := runTo(t, edited, again, "again", path)
	got := verdicts(rep)
	want := []string{"echo/right=true", "echo/wrong=true", "echo/no answer=undetermined", "echo/repeated=true", "echo/plain=true", "cut/cut=undetermined"}
	if !slices.Equal(got, want) {
		t.Errorf("verdicts %v, want %v", got, want)
	}
	// Only the cut case's program runs again (no checker can judge a cut
	// stream: its stored run settles nothing); every other program's run
	// stands, "no answer"'s too (its program ran to its end: the checker
	// is what could not decide, and it runs again).
	if again.ran["echo"] != 0 || again.ran["cut"] != 1 || again.ran["check"] != 6 || again.checkers != 1 {
		t.Errorf("ran %v, %d checkers prepared; want only cut's program, the checker 6 times, prepared once", again.ran, again.checkers)
	}
	for _, c := range rep.Programs[0].Cases {
		switch c.Name {
		case "right", "wrong", "no answer", "repeated":
			if c.ReusedFrom == nil || c.ReusedFrom.RunID != "first" || len(c.CheckerRuns) != c.RunCount() {
				t.Errorf("%s: reused from %+v with %d checker runs", c.Name, c.ReusedFrom, len(c.CheckerRuns))
			}
		}
	}
	if c := rep.Programs[1].Cases[0]; c.NotReused == nil || c.NotReused.Reason != reuse.ReasonUndecided {
		t.Errorf("cut: not reused %+v, want undetermined", c.NotReused)
	}
}

const referenceAnswerSpec = `version: 1
profiles:
  p: {image: ` + pin + `, command: ["x"], timeout: 1s, memory: 16MiB}
checkers:
  cmp: {file: check.txt, profile: p}
programs:
  - name: ref
    file: upper.txt
    profile: p
    cases:
      - {name: shout, stdin: "hi", expect: {stdout: {equals: "HI"}}}
  - name: slowref
    file: slow.txt
    profile: p
    cases:
      - {name: slow, stdin: "s", expect: {exit_code: 0}}
  - name: cutref
    file: cut.txt
    profile: p
    cases:
      - {name: cut, stdin: "c", expect: {exit_code: 0}}
  - name: echo
    file: echo.txt
    profile: p
    reference: ref
    cases:
      - {name: right, stdin: "ABC", expect: {stdout: {checker: cmp}}}
      - {name: wrong, stdin: "abc", expect: {stdout: [{contains: "a"}, {checker: cmp}]}}
      - {name: given, stdin: "xyz", expect: {stdout: {checker: cmp, answer: "xyz"}}}
  - name: after slow
    file: echo.txt
    profile: p
    reference: slowref
    cases:
      - {name: unfinished, stdin: "a", expect: {stdout: {checker: cmp}}}
  - name: after cut
    file: echo.txt
    profile: p
    reference: cutref
    cases:
      - {name: cut answer, stdin: "a", expect: {stdout: {checker: cmp}}}
`

// TestCheckerAnswerFromReference: in a program entry with a reference, a
// checker matcher with neither answer nor answer_file gets the reference's
// output of the same stream for the same input as its answer (the
// reference runs that input, as for a same_as case, and only the inputs
// that need it); a reference run that did not finish, or whose stream was
// cut, leaves the stream undetermined, naming the reference, without
// running the checker.
func TestCheckerAnswerFromReference(t *testing.T) {
	sp := loadSpec(t, referenceAnswerSpec, testFiles)
	sb := &scriptSandbox{}
	sink := &recordSink{}
	out := NewPlan(sp, Selection{}, 2).Run(t.Context(), sb, Options{RunID: "r", StartedAt: time.Now(), Cleanup: context.Background()}, sink)
	if out.Err != nil {
		t.Fatalf("run failed: %v", out.Err)
	}
	reasons := map[string]string{}
	var got []string
	for _, p := range out.Report.Programs {
		for _, c := range p.Cases {
			got = append(got, p.Name+"/"+c.Name+"="+c.Verdict.String())
			reasons[c.Name] = c.Reason
		}
	}
	want := []string{"ref/shout=true", "slowref/slow=false", "cutref/cut=true", "echo/right=true", "echo/wrong=false", "echo/given=true",
		"after slow/unfinished=undetermined", "after cut/cut answer=undetermined"}
	if !slices.Equal(got, want) {
		t.Errorf("verdicts %v, want %v", got, want)
	}
	for name, reason := range map[string]string{
		"wrong":      "stdout[2]: checker cmp: wrong answer abc is not ABC",
		"unfinished": "stdout: the checker cmp was not run: its answer is the stdout of the reference slowref, whose run did not finish: timed out",
		"cut answer": "stdout: the checker cmp was not run: its answer is the stdout of the reference cutref, which was cut at output_limit",
	} {
		if !strings.HasPrefix(reasons[name], reason) {
			t.Errorf("%s: reason %q, want it to start %q", name, reasons[name], reason)
		}
	}
	// The checker ran on right, wrong and given only; the references ran
	// their own cases and the inputs of right, wrong, unfinished and cut
	// answer, never given's (its answer is its own).
	if sb.ran["check"] != 3 || sb.ran["upper"] != 3 || sb.ran["slow"] != 2 || sb.ran["cut"] != 2 {
		t.Errorf("runs by script %v, want check 3, upper 3 (shout, ABC, abc), slow 2, cut 2", sb.ran)
	}
	echo := out.Report.Programs[3]
	right := echo.Cases[0]
	if len(right.CheckerRuns) != 1 || right.CheckerRuns[0].AnswerSHA256 != sha256Hex([]byte("ABC")) || len(right.ReferenceEvents) != 1 ||
		right.Expect.Stdout.AnswerReference != "ref" || right.ReferenceApplied == nil {
		t.Errorf("right: checker runs %+v, %d reference events, answer reference %q: want the reference's output as its answer, its run kept",
			right.CheckerRuns, len(right.ReferenceEvents), right.Expect.Stdout.AnswerReference)
	}
	if given := echo.Cases[2]; len(given.ReferenceEvents) != 0 || given.Expect.Stdout.AnswerReference != "" || given.CheckerRuns[0].AnswerSHA256 != sha256Hex([]byte("xyz")) {
		t.Errorf("given: %d reference events, answer reference %q, checker runs %+v: want its own answer", len(given.ReferenceEvents), given.Expect.Stdout.AnswerReference, given.CheckerRuns)
	}
}
