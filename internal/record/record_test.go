package record

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
	"github.com/behaves-dev/behaves/internal/yamledit"
)

// tree writes files into a fresh folder (not a git work tree: every file
// may be named) and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// load loads dir's behaves.yml as behaves run would.
func load(t *testing.T, dir string, opt spec.Options) *spec.Spec {
	t.Helper()
	sp, err := spec.Load(filepath.Join(dir, "behaves.yml"), opt)
	if err != nil {
		t.Fatalf("loading the spec: %v", err)
	}
	return sp
}

// event is a run that exited with code and wrote stdout and stderr.
func event(code int, stdout, stderr string) runner.Event {
	ev := reporttest.Event(reporttest.IntP(code), stdout)
	ev.Stderr = runner.Stream{Data: []byte(stderr), Bytes: int64(len(stderr))}
	return ev
}

// ran is the report of a run of sp's programs that runs names: case j of
// program name ran runs[name][j] (one event a run), judged and folded as a
// run judges them, written through the spooling writer and read back as
// behaves record reads it. A case given no runs did not run.
func ran(t *testing.T, sp *spec.Spec, runs map[string][][]runner.Event) report.Report {
	t.Helper()
	in := assemble.Input{Spec: sp, RunID: "run-0009", StartedAt: reporttest.StartedAt, Duration: time.Second, Version: "v0.1.0-test"}
	for _, p := range sp.Programs {
		evs, ok := runs[p.Name]
		if !ok {
			continue
		}
		rec := assemble.Program{Spec: p, Duration: time.Second, Attempt: runner.Observation{
			ExecutionID: "99999999-9999-4999-8999-999999999999", Acquisition: runner.AcquisitionComplete, Settings: reporttest.Settings}}
		for j, c := range p.Cases {
			k := assemble.Case{Spec: c}
			if j < len(evs) && len(evs[j]) > 0 {
				var results []verdict.CaseResult
				for _, ev := range evs[j] {
					res := verdict.Judge(c.Expect, ev)
					k.Runs = append(k.Runs, assemble.RunResult{Event: ev, Result: res})
					results = append(results, res)
				}
				k.Result = verdict.Fold(results).CaseResult
			}
			rec.Cases = append(rec.Cases, k)
		}
		in.Programs = append(in.Programs, rec)
	}
	return reporttest.WrittenWithin(t, in, 64<<20)
}

// once is one run per case.
func once(evs ...runner.Event) [][]runner.Event {
	out := make([][]runner.Event, len(evs))
	for i, ev := range evs {
		out[i] = []runner.Event{ev}
	}
	return out
}

// plan reads sp, plans with rep, and returns the plan.
func plan(t *testing.T, sp *spec.Spec, rep report.Report, opt Options) *Plan {
	t.Helper()
	src, err := Read(sp)
	if err != nil {
		t.Fatal(err)
	}
	p, err := src.Make(rep, opt)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// changed is the new bytes plan writes into the file named name ("" when
// it writes none).
func changed(p *Plan, name string) string {
	for _, c := range p.Changes {
		if filepath.Base(c.File.Name) == name {
			return string(c.Data)
		}
	}
	return ""
}

const header = `# the spec: comments stay byte for byte
version: 1
profiles:
  sh: {image: "` + "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" + `", command: [/bin/sh]}   # the shell
`

// TestRecordSpecCases: block cases get an expect: block at their keys'
// indentation after their last line (past a block scalar, before a
// comment), flow cases ", expect: {…}" before their closing brace; a
// case that has an expect stays; every other byte (comments, blank lines,
// quoting) is as it was, and the values are double-quoted with every
// control character and bidi control escaped.
func TestRecordSpecCases(t *testing.T) {
	t.Parallel()
	before := header + `programs:
  - name: greet            # block cases
    file: greet.sh
    profile: sh
    cases:
      # the first case
      - name: plain
        args: [a, "b"]     # trailing comment
      - {name: flow, args: [x]}   # a flow case
      - name: kept
        expect: {exit_code: 0}
      - name: last
        stdin: |
          multi
          line

  # a comment before the next entry
  - name: other
    file: greet.sh
    profile: sh
    cases: [{name: only}, {name: tail, args: [b,c],}]
`
	dir := tree(t, map[string]string{"behaves.yml": before, "greet.sh": "echo hi\n"})
	sp := load(t, dir, spec.Options{})
	rep := ran(t, sp, map[string][][]runner.Event{
		"greet": once(event(0, "hi\n", ""), event(1, "", "oops\n"), event(0, "", ""), event(0, "multi\nline\n", "")),
		"other": once(event(0, "\x1b[31mred\u202e \"q\" \\ \t\n", ""), event(3, "", "")),
	})
	p := plan(t, sp, rep, Options{})
	want := header + `programs:
  - name: greet            # block cases
    file: greet.sh
    profile: sh
    cases:
      # the first case
      - name: plain
        args: [a, "b"]     # trailing comment
        expect:
          exit_code: 0
          stdout: {equals: "hi\n"}
      - {name: flow, args: [x], expect: {exit_code: 1, stdout: {equals: ""}, stderr: {equals: "oops\n"}}}   # a flow case
      - name: kept
        expect: {exit_code: 0}
      - name: last
        stdin: |
          multi
          line
        expect:
          exit_code: 0
          stdout: {equals: "multi\nline\n"}

  # a comment before the next entry
  - name: other
    file: greet.sh
    profile: sh
    cases: [{name: only, expect: {exit_code: 0, stdout: {equals: "\x1b[31mred\u202e \"q\" \\ \t\n"}}}, {name: tail, args: [b,c], expect: {exit_code: 3, stdout: {equals: ""}}}]
`
	if got := changed(p, "behaves.yml"); got != want {
		t.Errorf("the spec after recording:\n%s\nwant:\n%s", got, want)
	}
	if p.Recorded != 5 || p.Updated != 0 || len(p.Problems) != 0 || len(p.Changes) != 1 {
		t.Errorf("recorded %d, updated %d, problems %v, %d changes", p.Recorded, p.Updated, p.Problems, len(p.Changes))
	}
	// What was written loads, and each case expects what its program did.
	if err := p.Changes[0].Write(); err != nil {
		t.Fatal(err)
	}
	after := load(t, dir, spec.Options{})
	for name, want := range map[string]string{"plain": "hi\n", "flow": "", "only": "\x1b[31mred\u202e \"q\" \\ \t\n"} {
		c := findCase(t, after, name)
		if c.Expect.Stdout == nil || c.Expect.Stdout.Kind != verdict.Equals || c.Expect.Stdout.Value != want {
			t.Errorf("%s: stdout %+v, want equals %q", name, c.Expect.Stdout, want)
		}
	}
	if c := findCase(t, after, "flow"); c.Expect.ExitCode != 1 || c.Expect.Stderr == nil || c.Expect.Stderr.Value != "oops\n" {
		t.Errorf("flow: %+v", c.Expect)
	}
	if c := findCase(t, after, "plain"); c.Expect.Stderr != nil {
		t.Errorf("plain wrote no stderr, and expects %+v of it", c.Expect.Stderr)
	}
	// Recording again finds nothing to write.
	src, err := Read(after)
	if err != nil {
		t.Fatal(err)
	}
	if names, err := src.Programs(Options{}); err != nil || len(names) != 0 {
		t.Errorf("after recording, programs to run: %v, %v", names, err)
	}
}

func findCase(t *testing.T, sp *spec.Spec, name string) spec.Case {
	t.Helper()
	for _, p := range sp.Programs {
		for _, c := range p.Cases {
			if c.Name == name {
				return c
			}
		}
	}
	t.Fatalf("no case %q", name)
	return spec.Case{}
}

// TestRecordCasesFiles: cases from a cases_file are written into that
// file: a YAML one like the spec's cases, a JSON Lines one as an "expect"
// member inside each line's object, the rest of the line (and the other
// lines) as they were. A case shared by two entries is written once.
func TestRecordCasesFiles(t *testing.T) {
	t.Parallel()
	yamlCases := `# shared cases
- name: y1   # one
  args: ["1"]
- {name: y2}
`
	jsonl := `{"name": "j1", "args": ["1"]}   ` + "\r" + `
{"name": "j2", "expect": {"exit_code": 0}}

{"name":"j3" }
`
	dir := tree(t, map[string]string{
		"behaves.yml": header + `programs:
  - {name: a, file: p.sh, profile: sh, cases_file: cases.yaml}
  - {name: b, file: p.sh, profile: sh, cases_file: cases.yaml}
  - {name: c, file: p.sh, profile: sh, cases_file: tests/cases.jsonl}
`,
		"p.sh": "", "cases.yaml": yamlCases, "tests/cases.jsonl": jsonl,
	})
	sp := load(t, dir, spec.Options{})
	rep := ran(t, sp, map[string][][]runner.Event{
		"a": once(event(0, "1\n", ""), event(2, "", "e\n")),
		"b": once(event(0, "1\n", ""), event(2, "", "e\n")),
		"c": once(event(0, "j\u2028\n", ""), event(0, "", ""), event(4, "x", "\x00")),
	})
	p := plan(t, sp, rep, Options{})
	wantYAML := `# shared cases
- name: y1   # one
  args: ["1"]
  expect:
    exit_code: 0
    stdout: {equals: "1\n"}
- {name: y2, expect: {exit_code: 2, stdout: {equals: ""}, stderr: {equals: "e\n"}}}
`
	if got := changed(p, "cases.yaml"); got != wantYAML {
		t.Errorf("cases.yaml:\n%s\nwant:\n%s", got, wantYAML)
	}
	wantJSONL := `{"name": "j1", "args": ["1"], "expect": {"exit_code": 0, "stdout": {"equals": "j\u2028\n"}}}   ` + "\r" + `
{"name": "j2", "expect": {"exit_code": 0}}

{"name":"j3" }
`
	if got := changed(p, "cases.jsonl"); got != wantJSONL {
		t.Errorf("cases.jsonl:\n%s\nwant:\n%s", got, wantJSONL)
	}
	if changed(p, "behaves.yml") != "" {
		t.Error("the spec holds no case, and changed")
	}
	if len(p.Problems) != 1 || p.Problems[0].Case != "j3" || p.Problems[0].Pos.Line != 4 ||
		!strings.HasSuffix(p.Problems[0].Pos.File, filepath.Join("tests", "cases.jsonl")) || !strings.Contains(p.Problems[0].Why, "NUL") {
		t.Errorf("problems: %v, want j3's NUL at tests/cases.jsonl:4", p.Problems)
	}
	if p.Recorded != 3 {
		t.Errorf("recorded %d, want 3 (y1 and y2 once for both entries, j1)", p.Recorded)
	}
	for _, c := range p.Changes {
		if err := c.Write(); err != nil {
			t.Fatal(err)
		}
	}
	after := load(t, dir, spec.Options{})
	if c := findCase(t, after, "j1"); c.Expect.Stdout == nil || c.Expect.Stdout.Value != "j\u2028\n" {
		t.Errorf("j1 after writing: %+v", c.Expect)
	}
	if c := findCase(t, after, "y2"); c.Expect.ExitCode != 2 || c.Expect.Stderr == nil || c.Expect.Stderr.Value != "e\n" {
		t.Errorf("y2 after writing: %+v", c.Expect)
	}
}

// TestRecordUpdate: with Update, an expectation the run disproved is
// replaced in its own style (a block mapping stays one, at its
// indentation; a flow one stays flow; a JSON Lines member in place); a
// true case keeps its expectation, and without Update nothing with an
// expectation changes (a note says how many are false).
func TestRecordUpdate(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{
		"behaves.yml": header + `programs:
  - name: p
    file: p.sh
    profile: sh
    cases:
      - name: block
        expect:
          exit_code: 0   # was
          # a note inside
          stdout: {contains: "old", normalize: exact}
        args: [z]   # after expect
      - name: flow
        expect: {stdout: {regex: '^o'}}
      - name: holds
        expect: {stdout: {equals: same}}
  - {name: q, file: p.sh, profile: sh, cases_file: q.jsonl}
`,
		"p.sh": "", "q.jsonl": `{"expect": {"stdout": {"equals": "a"}}, "name": "j"}` + "\n",
	})
	sp := load(t, dir, spec.Options{})
	rep := ran(t, sp, map[string][][]runner.Event{
		"p": once(event(1, "new\n", "warn\n"), event(0, "x\n", ""), event(0, "same\n", "")),
		"q": once(event(0, "b\n", "")),
	})
	p := plan(t, sp, rep, Options{})
	if len(p.Changes) != 0 || len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "3 cases are false") {
		t.Errorf("without --update: %d changes, notes %q", len(p.Changes), p.Notes)
	}
	p = plan(t, sp, rep, Options{Update: true})
	want := header + `programs:
  - name: p
    file: p.sh
    profile: sh
    cases:
      - name: block
        expect:
          exit_code: 1
          stdout: {equals: "new\n"}
          stderr: {equals: "warn\n"}
        args: [z]   # after expect
      - name: flow
        expect: {exit_code: 0, stdout: {equals: "x\n"}}
      - name: holds
        expect: {stdout: {equals: same}}
  - {name: q, file: p.sh, profile: sh, cases_file: q.jsonl}
`
	if got := changed(p, "behaves.yml"); got != want {
		t.Errorf("the spec after --update:\n%s\nwant:\n%s", got, want)
	}
	if got, want := changed(p, "q.jsonl"), `{"expect": {"exit_code": 0, "stdout": {"equals": "b\n"}}, "name": "j"}`+"\n"; got != want {
		t.Errorf("q.jsonl: %s, want %s", got, want)
	}
	if p.Updated != 3 || p.Recorded != 0 || len(p.Problems) != 0 {
		t.Errorf("updated %d, recorded %d, problems %v", p.Updated, p.Recorded, p.Problems)
	}
}

// TestRecordRefuses: what cannot stand for what the program does is not
// recorded, each case named at its line with why: an undetermined case,
// a timeout, a memory kill, output cut at output_limit, runs that differ,
// samples that disagree or did not all run, output that is not text.
// The cases around them are recorded.
func TestRecordRefuses(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{
		"behaves.yml": header + `programs:
  - name: p
    file: p.sh
    profile: sh
    cases:
      - {name: good}
      - {name: slow}
      - {name: hog}
      - {name: long}
      - {name: broken}
      - {name: binary}
      - {name: flaky, repeat: 2}
      - {name: steady, repeat: 2}
  - name: s
    files: "samples/*.sh"
    profile: sh
    cases:
      - {name: agree}
      - {name: differ}
`,
		"p.sh": "", "samples/1.sh": "", "samples/2.sh": "",
	})
	sp := load(t, dir, spec.Options{})
	slow := event(137, "", "")
	slow.TimedOut = true
	hog := event(137, "", "")
	hog.ResourceLimit = runner.LimitMemory
	long := event(0, "1234", "")
	long.Stdout.Truncated, long.Stdout.Bytes = true, 90000
	broken := runner.Event{SandboxError: "creating container: no such image"}
	rep := ran(t, sp, map[string][][]runner.Event{
		"p": {
			{event(0, "ok\n", "")}, {slow}, {hog}, {long}, {broken}, {event(0, "\xff\n", "")},
			{event(0, "1\n", ""), event(0, "2\n", "")},
			{event(5, "s\n", ""), event(5, "s\n", "")},
		},
		"s/1.sh": once(event(0, "same\n", ""), event(0, "one\nA\n", "")),
		"s/2.sh": once(event(0, "same\n", ""), event(0, "one\nB\n", "")),
	})
	p := plan(t, sp, rep, Options{})
	want := map[string]string{
		"slow":   "timed out",
		"hog":    "memory limit",
		"long":   "cut at the profile's output_limit",
		"broken": "it is undetermined: creating container: no such image",
		"binary": "not valid UTF-8",
		"flaky":  `its runs differ: run 2 wrote other stdout than run 1 (line 1: "2\n" against "1\n")`,
		"differ": `the samples of "s" disagree: s/2.sh wrote other stdout than s/1.sh (line 2: "B\n" against "A\n")`,
	}
	for _, pr := range p.Problems {
		w, ok := want[pr.Case]
		if !ok || !strings.Contains(pr.Why, w) || pr.Pos.Line == 0 || !strings.HasSuffix(pr.Pos.File, "behaves.yml") {
			t.Errorf("problem %s; want %q", pr, w)
		}
		delete(want, pr.Case)
	}
	for c, w := range want {
		t.Errorf("no problem for %s (%s)", c, w)
	}
	got := changed(p, "behaves.yml")
	for _, c := range []string{
		`{name: good, expect: {exit_code: 0, stdout: {equals: "ok\n"}}}`,
		`{name: steady, repeat: 2, expect: {exit_code: 5, stdout: {equals: "s\n"}}}`,
		`{name: agree, expect: {exit_code: 0, stdout: {equals: "same\n"}}}`,
		`{name: differ}`, `{name: slow}`,
	} {
		if !strings.Contains(got, c) {
			t.Errorf("the spec lacks %s:\n%s", c, got)
		}
	}
	if p.Recorded != 3 {
		t.Errorf("recorded %d, want 3", p.Recorded)
	}
	if s := p.Problems[0].String(); !strings.HasPrefix(s, filepath.Join(dir, "behaves.yml")+":11: case \"slow\": not recorded: ") {
		t.Errorf("a problem reads %q", s)
	}

	// One sample alone is not enough: the case is every sample's.
	rep = ran(t, sp, map[string][][]runner.Event{"s/1.sh": once(event(0, "same\n", ""), event(0, "x\n", ""))})
	p = plan(t, sp, rep, Options{Named: []string{"s/1.sh"}})
	if len(p.Problems) != 2 || !strings.Contains(p.Problems[0].Why, "s/2.sh did not run (record them together: --program s)") || len(p.Changes) != 0 {
		t.Errorf("one sample: problems %v, %d changes", p.Problems, len(p.Changes))
	}
}

// TestRecordLeavesAlone: gate: false entries (unless named), same_as
// cases and the cases an inputs_file makes are not recorded, and not run
// for it: Programs leaves out a program with nothing to write.
func TestRecordLeavesAlone(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{
		"behaves.yml": header + `programs:
  - {name: ref, file: p.sh, profile: sh, cases: [{name: r, expect: {exit_code: 0}}]}
  - name: cand
    file: p.sh
    profile: sh
    reference: ref
    inputs_file: in.jsonl
    cases: [{name: same, expect: {same_as: reference}}, {name: new}]
  - {name: compare, file: p.sh, profile: sh, gate: false, cases: [{name: c}]}
  - {name: "odd[1]*", file: p.sh, profile: sh, cases: [{name: o, expect: {exit_code: 0}}]}
  - {name: judged, file: p.sh, profile: sh, cases: [{name: k, expect: {stdout: [{regex: x}, {checker: chk}]}}]}
checkers:
  chk: {file: chk.sh, profile: sh}
`,
		"p.sh": "", "chk.sh": "", "in.jsonl": `{"args": ["1"]}` + "\n" + `{"args": ["2"]}` + "\n",
	})
	sp := load(t, dir, spec.Options{AllowNonGating: []string{"compare"}})
	src, err := Read(sp)
	if err != nil {
		t.Fatal(err)
	}
	names, err := src.Programs(Options{})
	if err != nil || strings.Join(names, " ") != "cand" {
		t.Errorf("programs to run: %q, %v; want cand alone", names, err)
	}
	names, _ = src.Programs(Options{Named: []string{"compare", "odd*"}})
	if strings.Join(names, " ") != "compare" {
		t.Errorf("named: %q, want compare (odd[1]* has nothing to write)", names)
	}
	names, _ = src.Programs(Options{Named: []string{"odd*", "judged"}, Update: true})
	if strings.Join(names, " ") != `odd\[1\]\*` {
		t.Errorf("update: %q, want the name escaped (and judged, whose case a checker judges, left out)", names)
	}
	if _, err := src.Programs(Options{Named: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), `"nope" names no program`) {
		t.Errorf("a pattern that names nothing: %v", err)
	}
	rep := ran(t, sp, map[string][][]runner.Event{
		"cand":    {{event(0, "", "")}, {event(0, "n\n", "")}},
		"compare": once(event(0, "c\n", "")),
		"judged":  once(event(0, "y\n", "")),
	})
	p, err := src.Make(rep, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := changed(p, "behaves.yml")
	if !strings.Contains(got, `{name: new, expect: {exit_code: 0, stdout: {equals: "n\n"}}}`) || !strings.Contains(got, `{name: same, expect: {same_as: reference}}`) ||
		!strings.Contains(got, `cases: [{name: c}]`) || p.Recorded != 1 {
		t.Errorf("recorded %d:\n%s", p.Recorded, got)
	}
	notes := strings.Join(p.Notes, "\n")
	for _, n := range []string{`left alone: "compare" says gate: false`, "left alone: 1 same_as case", "left alone: 2 cases an inputs_file made"} {
		if !strings.Contains(notes, n) {
			t.Errorf("notes lack %q:\n%s", n, notes)
		}
	}
	p, _ = src.Make(rep, Options{Update: true})
	if got := changed(p, "behaves.yml"); strings.Contains(got, "name: k, expect: {exit_code") || !strings.Contains(strings.Join(p.Notes, "\n"), "left alone: 1 case a checker judges") {
		t.Errorf("--update rewrote a case a checker judges, or did not say it left it alone:\n%s\n%q", got, p.Notes)
	}
	p, _ = src.Make(rep, Options{Named: []string{"compare"}})
	if got := changed(p, "behaves.yml"); !strings.Contains(got, `cases: [{name: c, expect: {exit_code: 0, stdout: {equals: "c\n"}}}]`) {
		t.Errorf("named, the gate: false entry is recorded:\n%s", got)
	}
}

// TestDiff: the change as a unified diff, with three lines of context,
// hunks merged when their context meets.
func TestDiff(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := 1; i <= 20; i++ {
		lines = append(lines, "line")
	}
	data := []byte(strings.Join(lines, "\n") + "\n")
	f := &File{Name: "x.yml", Data: data}
	off := func(line int) int { return (line - 1) * 5 }
	c := Change{File: f, Edits: []yamledit.Edit{
		{Start: off(2) + 4, End: off(2) + 4, Text: "\nA"},
		{Start: off(8), End: off(9), Text: "B\n"},
		{Start: off(19), End: off(19) + 4, Text: "C"},
	}}
	want := `--- x.yml
+++ x.yml
@@ -1,11 +1,12 @@
 line
 line
+A
 line
 line
 line
 line
 line
-line
+B
 line
 line
 line
@@ -16,5 +17,5 @@
 line
 line
 line
-line
+C
 line`
	if got := strings.Join(c.Diff(), "\n"); got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	// Changed lines side by side read as the old ones, then the new ones.
	c = Change{File: &File{Name: "c.jsonl", Data: []byte("{}\n{}\n")}, Edits: []yamledit.Edit{{Start: 1, End: 1, Text: "a"}, {Start: 4, End: 4, Text: "b"}}}
	want = "--- c.jsonl\n+++ c.jsonl\n@@ -1,2 +1,2 @@\n-{}\n-{}\n+{a}\n+{b}"
	if got := strings.Join(c.Diff(), "\n"); got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
}

// TestWrite: a change is written over its file, keeping its mode, and
// refused when the file changed since it was read.
func TestWrite(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{"behaves.yml": header + "programs:\n  - {name: p, file: p.sh, profile: sh, cases: [{name: a}]}\n", "p.sh": ""})
	path := filepath.Join(dir, "behaves.yml")
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	sp := load(t, dir, spec.Options{})
	p := plan(t, sp, ran(t, sp, map[string][][]runner.Event{"p": once(event(0, "", ""))}), Options{})
	if err := os.WriteFile(path, append([]byte("# edited meanwhile\n"), p.Changes[0].File.Data...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := p.Changes[0].Write(); err == nil || !strings.Contains(err.Error(), "changed while behaves record ran") {
		t.Errorf("a file changed meanwhile: %v", err)
	}
	if err := os.WriteFile(path, p.Changes[0].File.Data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := p.Changes[0].Write(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if string(got) != string(p.Changes[0].Data) || fi.Mode().Perm() != 0o600 {
		t.Errorf("written %q, mode %v", got, fi.Mode())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".behaves.yml*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// A spec that changed since it was loaded is not read.
	if _, err := Read(sp); err == nil || !strings.Contains(err.Error(), "changed since it was loaded") {
		t.Errorf("reading a changed spec: %v", err)
	}
}

// TestCheckRefusesAWrongEdit: an edit whose result does not read back as
// the original with only the intended expectation added is left out, as a
// problem naming the case, and the other edits of the file are made.
func TestCheckRefusesAWrongEdit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, file, content string
		wrong               func(yamledit.Edit) yamledit.Edit
	}{
		{"yaml: a value changed too", "behaves.yml", "", func(e yamledit.Edit) yamledit.Edit {
			e.Text = strings.Replace(e.Text, "exit_code: 0", "exit_code: 0, args: [x]", 1)
			return e
		}},
		{"yaml: another expectation", "behaves.yml", "", func(e yamledit.Edit) yamledit.Edit {
			e.Text = strings.Replace(e.Text, `"b\n"`, `"c\n"`, 1)
			return e
		}},
		{"jsonl: another expectation", "c.jsonl", "{\"name\": \"a\"}\n{\"name\": \"b\"}\n", func(e yamledit.Edit) yamledit.Edit {
			e.Text = strings.Replace(e.Text, `"b\n"`, `"c\n"`, 1)
			return e
		}},
		{"jsonl: another line", "c.jsonl", "{\"name\": \"a\"}\n{\"name\": \"b\"}\n", func(e yamledit.Edit) yamledit.Edit {
			e.Text += "\n"
			return e
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"p.sh": ""}
			if tc.file == "behaves.yml" {
				files["behaves.yml"] = header + "programs:\n  - {name: p, file: p.sh, profile: sh, cases: [{name: a}, {name: b}]}\n"
			} else {
				files["behaves.yml"] = header + "programs:\n  - {name: p, file: p.sh, profile: sh, cases_file: c.jsonl}\n"
				files[tc.file] = tc.content
			}
			sp := load(t, tree(t, files), spec.Options{})
			src, err := Read(sp)
			if err != nil {
				t.Fatal(err)
			}
			var ps []pending
			for _, c := range sp.Programs[0].Cases {
				txt := src.texts[key{c.File, c.Pos.Line, c.Pos.Col}]
				exp := Expectation{Stdout: c.Name + "\n"}
				e, err := txt.edit(exp)
				if err != nil {
					t.Fatal(err)
				}
				if c.Name == "b" {
					e = tc.wrong(e)
				}
				ps = append(ps, pending{t: txt, exp: exp, edit: e})
			}
			ch, done, failed := ps[0].t.file.apply(ps)
			if len(done) != 1 || done[0].t.name != "a" || len(failed) != 1 || failed[0].Case != "b" || !strings.Contains(failed[0].Why, "could not write it in place") {
				t.Fatalf("done %d, failed %v", len(done), failed)
			}
			if ch == nil || !strings.Contains(string(ch.Data), `"a\n"`) || strings.Contains(string(ch.Data), `"c\n"`) {
				t.Errorf("the change: %v", ch)
			}
		})
	}
}

// TestRecordKeepsLineEnds: in a file with CRLF line ends the lines written
// end in CRLF too; a case whose last entry is a list written at its keys'
// indentation gets its expect after the list.
func TestRecordKeepsLineEnds(t *testing.T) {
	t.Parallel()
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	dir := tree(t, map[string]string{
		"behaves.yml": crlf(header + `programs:
  - name: p
    file: p.sh
    profile: sh
    cases:
      - name: a
        args:
        - x
        - "y" # why
      - name: b
`),
		"p.sh": "",
	})
	sp := load(t, dir, spec.Options{})
	p := plan(t, sp, ran(t, sp, map[string][][]runner.Event{"p": once(event(0, "x\r\n", ""), event(0, "", ""))}), Options{})
	want := crlf(header + `programs:
  - name: p
    file: p.sh
    profile: sh
    cases:
      - name: a
        args:
        - x
        - "y" # why
        expect:
          exit_code: 0
          stdout: {equals: "x\r\n"}
      - name: b
        expect:
          exit_code: 0
          stdout: {equals: ""}
`)
	if got := changed(p, "behaves.yml"); got != want {
		t.Errorf("the spec after recording:\n%q\nwant:\n%q", got, want)
	}

	// A cases file whose last line has no line break keeps none.
	dir = tree(t, map[string]string{
		"behaves.yml": header + "programs:\n  - {name: p, file: p.sh, profile: sh, cases_file: c.yml}\n",
		"p.sh":        "", "c.yml": "- name: last",
	})
	sp = load(t, dir, spec.Options{})
	p = plan(t, sp, ran(t, sp, map[string][][]runner.Event{"p": once(event(0, "", ""))}), Options{})
	if got, want := changed(p, "c.yml"), "- name: last\n  expect:\n    exit_code: 0\n    stdout: {equals: \"\"}"; got != want {
		t.Errorf("c.yml: %q, want %q", got, want)
	}
}
