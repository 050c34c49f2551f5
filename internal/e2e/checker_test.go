package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"

	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// checkerFiles are a program that prints a path (or, given "long", more
// than its profile keeps) and writes on stderr every file it can see
// under /program, and three checkers in Python that follow testlib's
// conventions: "same" (right when the output's tokens are the answer's;
// it fails, exit 3, when the case's input is not the stdin it expects, or
// when it can write what it was given), "gives-up" (always fails, exit 3)
// and "loops" (never ends).
var checkerFiles = map[string]string{
	"path.py": `import os, sys
for root, _, files in os.walk("/program"):
    for f in files:
        print(os.path.relpath(os.path.join(root, f), "/program"), file=sys.stderr)
print("x" * 5000 if sys.argv[1:] == ["long"] else "1 2 4")
`,
	"checkers/same.py": `import sys
inp, out, ans = (open(p).read() for p in sys.argv[1:4])
for p in sys.argv[1:4]:
    try:
        open(p, "a")
        print("FAIL %s is writable" % p, file=sys.stderr)
        sys.exit(3)
    except OSError:
        pass
if inp != "graph 4\n":
    print("FAIL the input is %r" % inp, file=sys.stderr)
    sys.exit(3)
if out.split() == ans.split():
    sys.exit(0)
print("wrong answer expected %s, got %s" % (" ".join(ans.split()), " ".join(out.split())), file=sys.stderr)
sys.exit(1)
`,
	"checkers/fail.py": `import sys
print("FAIL cannot read the answer", file=sys.stderr)
sys.exit(3)
`,
	"checkers/loop.py": "while True:\n    pass\n",
}

// TestCheckerRuns runs programs judged by checker programs on the real
// daemon: a right answer is true, a wrong one false with the checker's
// message, a checker that exits 3 or loops past its timeout leaves the
// case undetermined, and a program output cut at output_limit is
// undetermined without a checker container. Containers are counted by
// role from the daemon's live event stream: one checker container per
// judged stream, and the program's containers never see an answer.
func TestCheckerRuns(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	cl := dockertest.Client(t)
	runID := randomHex(t)[:16]
	stop := startsByRole(t, cl, runID)
	o := runBehaves(t, t.Context(), fmt.Sprintf(`version: 1
profiles:
  py: {image: "%s", command: [python3, -I], timeout: 10s, output_limit: 1KiB}
  checker: {image: "%s", command: [python3, -I], timeout: 2s}
checkers:
  same: {file: checkers/same.py, profile: checker}
  gives-up: {file: checkers/fail.py, profile: checker}
  loops: {file: checkers/loop.py, profile: checker}
programs:
  - name: paths
    file: path.py
    profile: py
    cases:
      - {name: right, stdin: "graph 4\n", expect: {stdout: {checker: same, answer: "1 2 4\n"}}}
      - {name: wrong, stdin: "graph 4\n", expect: {stdout: {checker: same, answer: "1 3 4\n"}}}
      - {name: the checker fails, expect: {stdout: {checker: gives-up}}}
      - {name: the checker loops, expect: {stdout: {checker: loops, answer: "1 2 4"}}}
      - {name: cut, args: [long], expect: {stdout: {checker: same, answer: "x"}}}
`, img.python, img.python), checkerFiles, "--run-id", runID)
	started := stop()
	if o.code != 1 {
		t.Errorf("exit %d, want 1 (a case is false)\n%s", o.code, indent(o.stderr))
	}
	p := o.program(t, "paths")
	want := []struct {
		verdict verdict.Verdict
		reason  string
		checked int
	}{
		{verdict.True, "", 1},
		{verdict.False, "stdout: checker same: wrong answer expected 1 3 4, got 1 2 4", 1},
		{verdict.Undetermined, "stdout: the checker gives-up could not decide: it failed (exit 3): FAIL cannot read the answer", 1},
		{verdict.Undetermined, "stdout: the checker loops could not decide: timed out after 2s", 1},
		{verdict.Undetermined, "stdout cut at 1KiB: the checker same needs the whole output, and the rest was not kept", 0},
	}
	if len(p.Cases) != len(want) {
		t.Fatalf("%d cases, want %d", len(p.Cases), len(want))
	}
	for k, c := range p.Cases {
		w := want[k]
		if c.Verdict != w.verdict || c.Reason != w.reason || len(c.CheckerRuns) != w.checked {
			t.Errorf("%s: %s %q with %d checker runs, want %s %q with %d", c.Name, c.Verdict, c.Reason, len(c.CheckerRuns), w.verdict, w.reason, w.checked)
		}
		// The program saw its own file and nothing else under /program:
		// no answer, no other case's output.
		if got := string(c.Event.StderrData()); got != "path.py\n" {
			t.Errorf("%s: the program saw %q under /program, want only path.py", c.Name, got)
		}
	}
	if cr := p.Cases[0].CheckerRuns; len(cr) == 1 {
		if cr[0].Checker != "same" || cr[0].Stream != "stdout" || cr[0].Run != 0 || cr[0].Event.ExitCode == nil || *cr[0].Event.ExitCode != 0 ||
			cr[0].AnswerSHA256 != sha256Hex("1 2 4\n") || cr[0].OutputSHA256 != sha256Hex("1 2 4\n") || cr[0].InputSHA256 != sha256Hex("graph 4\n") ||
			cr[0].ProgramSHA256 != sha256Hex(checkerFiles["checkers/same.py"]) || cr[0].Event.ProgramSHA256 != cr[0].ProgramSHA256 {
			t.Errorf("right: checker run %+v", cr[0])
		}
		if args := cr[0].Event.Command; len(args) != 6 || args[2] != "/program/same.py" || !strings.HasSuffix(args[3], "/input") ||
			!strings.HasSuffix(args[4], "/output") || !strings.HasSuffix(args[5], "/answer") {
			t.Errorf("right: the checker ran %q, want python3 -I /program/same.py input output answer", args)
		}
	}
	if cr := p.Cases[3].CheckerRuns; len(cr) == 1 && !cr[0].Event.TimedOut {
		t.Errorf("the checker loops: its event did not time out: %+v", cr[0].Event)
	}
	if started["program"] != 5 || started["checker"] != 4 || len(started) != 2 {
		t.Errorf("containers started by role: %v, want 5 program and 4 checker (none for the cut output)", started)
	}
}

// startsByRole counts, from the daemon's live event stream, the containers
// of run runID that start, by their behaves.role label, until the
// returned stop is called; stop returns the counts.
func startsByRole(t *testing.T, cl *client.Client, runID string) (stop func() map[string]int) {
	var mu sync.Mutex
	started := map[string]int{}
	end := followEvents(t, cl, filters.NewArgs(filters.Arg("type", "container"), filters.Arg("event", "start"),
		filters.Arg("label", "behaves.run-id="+runID)), func(m events.Message) {
		mu.Lock()
		started[m.Actor.Attributes["behaves.role"]]++
		mu.Unlock()
	})
	return func() map[string]int {
		end()
		mu.Lock()
		defer mu.Unlock()
		return started
	}
}

// sha256Hex is the lowercase hex SHA-256 of s.
func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestCheckerInCpp runs the C++ checker of examples/checker (testlib's
// conventions, compiled in its profile's build stage) on the real daemon:
// built once for the run however many streams it judges, a shortest path
// other than the answer's true, a longer one false with the checker's
// message, and a case without an answer undetermined (the checker fails,
// exit 3).
func TestCheckerInCpp(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	gcc := dockertest.Image(t, "BEHAVES_IMAGE_GCC")
	cl := dockertest.Client(t)
	files := map[string]string{}
	for _, name := range []string{"checkers/cpp/paths.cpp", "checkers/cpp/reader.h", "solutions/dfs.py"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "checker", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(b)
	}
	runID := randomHex(t)[:16]
	stop := startsByRole(t, cl, runID)
	const diamond, detour = `"4 4 0 3\n0 1\n0 2\n1 3\n2 3\n"`, `"5 5 0 4\n0 1\n1 2\n2 3\n3 4\n0 4\n"`
	o := runBehaves(t, t.Context(), fmt.Sprintf(`version: 1
profiles:
  py: {image: "%s", command: [python3, -I]}
  cpp:
    image: "%s"
    command: [/build/paths]
    timeout: 5s
    build: {command: [g++, -O2, -std=c++17, -o, /build/paths], timeout: 120s, memory: 512MiB}
checkers:
  paths: {dir: checkers/cpp, entry: paths.cpp, profile: cpp}
programs:
  - name: dfs
    file: solutions/dfs.py
    profile: py
    cases:
      - {name: another shortest path, stdin: %s, expect: {stdout: {checker: paths, answer: "0 2 3"}}}
      - {name: a longer path, stdin: %s, expect: {stdout: {checker: paths, answer: "0 4"}}}
      - {name: no answer, stdin: %s, expect: {stdout: {checker: paths}}}
`, img.python, gcc, diamond, detour, diamond), files, "--run-id", runID)
	started := stop()
	p := o.program(t, "dfs")
	want := []struct {
		verdict verdict.Verdict
		reason  string
	}{
		{verdict.True, ""},
		{verdict.False, "stdout: checker paths: wrong answer a path of 4 edges, the shortest has 1"},
		{verdict.Undetermined, "stdout: the checker paths could not decide: it failed (exit 3): FAIL the answer is empty"},
	}
	if len(p.Cases) != len(want) {
		t.Fatalf("%d cases, want %d\n%s", len(p.Cases), len(want), indent(o.stderr))
	}
	for k, c := range p.Cases {
		if c.Verdict != want[k].verdict || c.Reason != want[k].reason {
			t.Errorf("%s: %s %q, want %s %q", c.Name, c.Verdict, c.Reason, want[k].verdict, want[k].reason)
		}
	}
	if started["build"] != 1 || started["checker"] != 3 || started["program"] != 3 {
		t.Errorf("containers started by role: %v, want 1 build (the checker's, once), 3 checker, 3 program", started)
	}
}

// TestCheckerReuseRunsOnlyTheChecker: with --reuse of a run, changing
// only the checker runs the checker and not the program: no program
// container starts, counted from the daemon's live event stream, and the
// cases take the new checker's verdicts on the stored output.
func TestCheckerReuseRunsOnlyTheChecker(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	cl := dockertest.Client(t)
	spec := fmt.Sprintf(`version: 1
profiles:
  py: {image: "%s", command: [python3, -I]}
checkers:
  same: {file: checkers/same.py, profile: py}
programs:
  - name: paths
    file: path.py
    profile: py
    cases:
      - {name: right, stdin: "graph 4\n", expect: {stdout: {checker: same, answer: "1 2 4\n"}}}
      - {name: another path, stdin: "graph 4\n", expect: {stdout: {checker: same, answer: "1 3 4\n"}}}
`, img.python)
	first := runBehaves(t, t.Context(), spec, maps.Clone(checkerFiles))
	if first.code != 1 {
		t.Fatalf("the stored run: exit %d, want 1\n%s", first.code, indent(first.stderr))
	}
	stored := filepath.Join(t.TempDir(), "stored.json")
	data, err := json.Marshal(first.report)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stored, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// The new checker accepts any path from 1 to 4.
	files := maps.Clone(checkerFiles)
	files["checkers/same.py"] = `import sys
out = open(sys.argv[2]).read().split()
sys.exit(0 if out[:1] == ["1"] and out[-1:] == ["4"] else 1)
`
	runID := randomHex(t)[:16]
	stop := startsByRole(t, cl, runID)
	again := runBehaves(t, t.Context(), spec, files, "--reuse", stored, "--run-id", runID)
	started := stop()
	if again.code != 0 {
		t.Errorf("exit %d, want 0: the new checker accepts both\n%s", again.code, indent(again.stderr))
	}
	for _, c := range again.program(t, "paths").Cases {
		if c.Verdict != verdict.True || c.ReusedFrom == nil || c.ReusedFrom.RunID != first.report.RunID || len(c.CheckerRuns) != 1 ||
			c.CheckerRuns[0].ProgramSHA256 != sha256Hex(files["checkers/same.py"]) {
			t.Errorf("%s: %s, reused from %+v, checker runs %+v; want true on the stored run, judged by the new checker", c.Name, c.Verdict, c.ReusedFrom, c.CheckerRuns)
		}
	}
	if started["program"] != 0 || started["checker"] != 2 {
		t.Errorf("containers started by role: %v, want no program container and 2 checker containers", started)
	}
}

// TestCheckerRescore rescores a checked run on the real daemon: with an
// expectation elsewhere changed, rescore judges with the stored checker
// runs (the checker's words come back, no container is created, and it is
// given no sandbox); with the checker edited it refuses, exit 2 at the
// case's position, naming the checker and its changed file.
func TestCheckerRescore(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	cl := dockertest.Client(t)
	spec := func(exit string) string {
		return fmt.Sprintf(`version: 1
profiles:
  py: {image: "%s", command: [python3, -I]}
checkers:
  same: {file: checkers/same.py, profile: py}
programs:
  - name: paths
    file: path.py
    profile: py
    cases:
      - {name: right, stdin: "graph 4\n", expect: {stdout: {checker: same, answer: "1 2 4\n"}%s}}
      - {name: another path, stdin: "graph 4\n", expect: {stdout: {checker: same, answer: "1 3 4\n"}}}
`, img.python, exit)
	}
	run := runBehaves(t, t.Context(), spec(""), maps.Clone(checkerFiles))
	if run.code != 1 {
		t.Fatalf("the stored run: exit %d, want 1\n%s", run.code, indent(run.stderr))
	}
	for _, c := range run.program(t, "paths").Cases {
		if len(c.CheckerRuns) != 1 || c.CheckerRuns[0].Applied == nil || c.CheckerRuns[0].Applied.Image != img.python || c.CheckerRuns[0].Event.ImageDigest == "" {
			t.Fatalf("%s: checker runs %+v, want one recording its settings and image", c.Name, c.CheckerRuns)
		}
	}
	dir, rescore := rescorer(t, run, checkerFiles)

	// right now expects exit 1: false by its exit code, its checker's
	// stored run still true; another path false by the stored checker's
	// words.
	creates := watchCreates(t, cl)
	code, out, rep := rescore(spec(", exit_code: 1"))
	made := creates()
	if code != 1 {
		t.Fatalf("rescore with another exit code: exit %d, want 1\n%s", code, indent(out))
	}
	cases := rep.Programs[0].Cases
	if cases[0].Verdict != verdict.False || !strings.Contains(cases[0].Reason, "exit code") || cases[0].Expect.Stdout.Verdict != verdict.True {
		t.Errorf("right: %s %q (stdout %s), want false by its exit code, its stdout true by the stored checker run", cases[0].Verdict, cases[0].Reason, cases[0].Expect.Stdout.Verdict)
	}
	if cases[1].Verdict != verdict.False || !strings.Contains(cases[1].Reason, "wrong answer expected 1 3 4, got 1 2 4") {
		t.Errorf("another path: %s %q, want false with the stored checker's words", cases[1].Verdict, cases[1].Reason)
	}
	for k, c := range cases {
		if stored := run.program(t, "paths").Cases[k].CheckerRuns; len(c.CheckerRuns) != 1 || !reflect.DeepEqual(c.CheckerRuns[0], stored[0]) {
			t.Errorf("%s: checker runs %+v, want the stored one kept", c.Name, c.CheckerRuns)
		}
	}
	if n := len(made[rep.RunID]) + len(made[run.report.RunID]); n != 0 || rep.RunID == "" {
		t.Errorf("the daemon created %d containers during the rescore, want none", n)
	}

	// The checker edited: no stored checker run answers for it.
	if err := os.WriteFile(filepath.Join(dir, "checkers/same.py"), []byte(checkerFiles["checkers/same.py"]+"# edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = rescore(spec(""))
	if code != 2 || !strings.Contains(out, "behaves.yml:11:") ||
		!strings.Contains(out, `case "right" of program "paths": checker "same": checkers/same.py changed since the stored run`) {
		t.Errorf("rescore with the checker edited: exit %d, want 2 at the case naming the checker\n%s", code, indent(out))
	}
}

// TestCheckerAnswerFromReference: on the real daemon, a checker matcher
// with no answer in a program entry with a reference gets the reference's
// output as its answer (the reference ran the case's input; its event is
// kept with the case), and rescore judges the stored run again with the
// stored checker run, the stored reference's output standing for the
// answer.
func TestCheckerAnswerFromReference(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	spec := fmt.Sprintf(`version: 1
profiles:
  py: {image: "%s", command: [python3, -I]}
checkers:
  same: {file: checkers/same.py, profile: py}
programs:
  - name: ref
    file: path.py
    profile: py
    cases:
      - {name: own, stdin: "graph 4\n", expect: {stdout: {contains: "1"}}}
  - name: good
    file: good.py
    profile: py
    reference: ref
    cases:
      - {name: path, stdin: "graph 4\n", expect: {stdout: {checker: same}}}
  - name: bad
    file: bad.py
    profile: py
    reference: ref
    cases:
      - {name: path, stdin: "graph 4\n", expect: {stdout: {checker: same}}}
`, img.python)
	files := maps.Clone(checkerFiles)
	files["good.py"] = "print('1  2 4')\n"
	files["bad.py"] = "print('1 3 4')\n"
	run := runBehaves(t, t.Context(), spec, files)
	if run.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", run.code, indent(run.stderr))
	}
	good, bad := run.program(t, "good").Cases[0], run.program(t, "bad").Cases[0]
	if good.Verdict != verdict.True || bad.Verdict != verdict.False || !strings.Contains(bad.Reason, "wrong answer expected 1 2 4, got 1 3 4") {
		t.Errorf("good %s %q, bad %s %q: want true, and false with the checker's words on the reference's answer", good.Verdict, good.Reason, bad.Verdict, bad.Reason)
	}
	for _, c := range []report.Case{good, bad} {
		if len(c.ReferenceEvents) != 1 || len(c.CheckerRuns) != 1 || c.CheckerRuns[0].AnswerSHA256 != c.ReferenceEvents[0].StdoutSHA256 ||
			c.Expect.Stdout.AnswerReference != "ref" {
			t.Errorf("%+v: want the reference's run kept, its stdout the checker's answer", c)
		}
	}
	dir, rescore := rescorer(t, run, files)
	code, out, rep := rescore(spec)
	if code != 1 || rep.Programs[2].Cases[0].Verdict != verdict.False || rep.Programs[1].Cases[0].Verdict != verdict.True {
		t.Errorf("rescore: exit %d, want 1 with the stored verdicts\n%s", code, indent(out))
	}
	// The reference edited: its stored output no longer stands for the
	// answer.
	if err := os.WriteFile(filepath.Join(dir, "path.py"), []byte(files["path.py"]+"# edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = rescore(spec)
	if code != 2 || !strings.Contains(out, `case "path" of program "good": reference "ref": path.py changed since the stored run`) {
		t.Errorf("rescore with the reference edited: exit %d, want 2 naming the reference\n%s", code, indent(out))
	}
}
