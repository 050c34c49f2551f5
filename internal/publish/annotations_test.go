package publish

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/behaves-dev/behaves/internal/goldentest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// parsedCommand is a workflow command as the runner reads a log line
// (ActionCommand.TryParseV2): "::" after leading spaces, the command and its
// properties up to the next "::", the data after it; properties split on
// ',' and '=', then unescaped.
type parsedCommand struct {
	name  string
	props map[string]string
	data  string
}

func parseCommand(line string) (parsedCommand, bool) {
	s := strings.TrimLeft(line, " ")
	if !strings.HasPrefix(s, "::") {
		return parsedCommand{}, false
	}
	info, data, ok := strings.Cut(s[2:], "::")
	if !ok {
		return parsedCommand{}, false
	}
	c := parsedCommand{props: map[string]string{}}
	name, props, _ := strings.Cut(info, " ")
	c.name = name
	if props != "" {
		for _, kv := range strings.Split(props, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return parsedCommand{}, false
			}
			c.props[k] = strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%").Replace(v)
		}
	}
	c.data = strings.NewReplacer("%0D", "\r", "%0A", "\n", "%25", "%").Replace(data)
	return c, true
}

func TestCommandsParseBackToTheirAnnotation(t *testing.T) {
	t.Parallel()
	for _, r := range []report.Report{fixture(), hostileReport(), hostileSpecErrors()} {
		anns := Annotations(r, AnnotationOptions{})
		lines, _ := WorkflowCommands(anns)
		if len(lines) == 0 {
			t.Fatal("no command lines")
		}
		for i, line := range lines {
			if strings.ContainsAny(line, "\r\n") {
				t.Errorf("line %d is not one line: %q", i, line)
			}
			c, ok := parseCommand(line)
			if !ok {
				t.Fatalf("line %d does not parse: %q", i, line)
			}
			a := anns[i]
			want := map[string]string{"title": a.Title}
			if a.Path != "" {
				want["file"], want["line"], want["endLine"] = a.Path, strconv.Itoa(a.StartLine), strconv.Itoa(a.EndLine)
				if a.Col > 0 {
					want["col"] = strconv.Itoa(a.Col)
				}
			}
			if c.name != string(a.Level) || c.data != a.Message || fmt.Sprint(c.props) != fmt.Sprint(want) {
				t.Errorf("line %d parses as %q %q %q, want %q %q %q", i, c.name, c.props, c.data, a.Level, want, a.Message)
			}
		}
	}
}

func TestEscapeCommandText(t *testing.T) {
	t.Parallel()
	a := Annotation{Level: LevelError, Path: "a,b:c%d.py", StartLine: 3, EndLine: 3, Col: 2,
		Title: "p, q: r", Message: "50% a::b,c\r\nd"}
	want := "::error file=a%2Cb%3Ac%25d.py,line=3,endLine=3,col=2,title=p%2C q%3A r::50%25 a::b,c%0D%0Ad"
	if got := a.Command(); got != want {
		t.Errorf("Command() =\n %q, want\n %q", got, want)
	}
	if got := (Annotation{Level: LevelWarning, Message: "m"}).Command(); got != "::warning::m" {
		t.Errorf("Command() without properties = %q", got)
	}
}

func TestGoldenAnnotations(t *testing.T) {
	t.Parallel()
	r := fixture()
	anns := Annotations(r, AnnotationOptions{LineCount: func(string) int { return 100 }})
	lines, omitted := WorkflowCommands(anns)
	data, err := json.MarshalIndent(anns, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out := fmt.Sprintf("%s\nomitted: %d\n\n%s\n", strings.Join(lines, "\n"), omitted, data)
	goldentest.Check(t, "annotations.golden", []byte(out))
}

// manyPrograms has n false programs with two false cases and one
// undetermined case each.
func manyPrograms(n int) report.Report {
	var progs []report.Program
	for i := range n {
		name := fmt.Sprintf("p%02d", i)
		progs = append(progs, program(name, "gen/"+name+".py", 10+i,
			kase("c1", 100, verdict.False, "wrong 1", intp(1), "x", "y", ""),
			kase("c2", 101, verdict.False, "wrong 2", intp(1), "x", "y", ""),
			kase("c3", 102, verdict.Undetermined, "cut", intp(0), "x", "x", "")))
	}
	return finish(report.Report{Spec: "behaves.yml", SpecFile: "behaves.yml", Programs: progs})
}

func TestAnnotationOrderCoversPrograms(t *testing.T) {
	t.Parallel()
	r := manyPrograms(12)
	anns := Annotations(r, AnnotationOptions{})
	// 12 program files + 24 false cases, then 12 undetermined cases.
	if len(anns) != 48 {
		t.Fatalf("%d annotations, want 48", len(anns))
	}
	var got []string
	for _, a := range anns {
		got = append(got, fmt.Sprintf("%s %s %s", a.Level, a.Path, a.Title))
	}
	for i := range 12 {
		if want := fmt.Sprintf("error gen/p%02d.py p%02d / c1", i, i); got[i] != want {
			t.Errorf("annotation %d = %q, want %q", i, got[i], want)
		}
		// Then the false cases the program-file errors do not describe,
		// round by round; the ones they do describe come last.
		if want := fmt.Sprintf("error behaves.yml p%02d / c2", i); got[12+i] != want {
			t.Errorf("annotation %d = %q, want %q", 12+i, got[12+i], want)
		}
		if want := fmt.Sprintf("error behaves.yml p%02d / c1", i); got[24+i] != want {
			t.Errorf("annotation %d = %q, want %q", 24+i, got[24+i], want)
		}
		if want := fmt.Sprintf("warning behaves.yml p%02d / c3", i); got[36+i] != want {
			t.Errorf("annotation %d = %q, want %q", 36+i, got[36+i], want)
		}
	}
	if !strings.HasSuffix(anns[0].Message, "(and 1 more false case)") {
		t.Errorf("program annotation message %q does not count the other false case", anns[0].Message)
	}
	lines, omitted := WorkflowCommands(anns)
	if len(lines) != 20 || omitted != 28 {
		t.Errorf("%d lines, %d omitted; want 10 errors + 10 warnings and 28 omitted", len(lines), omitted)
	}
	for i, l := range lines {
		want := "::error "
		if i >= 10 {
			want = "::warning "
		}
		if !strings.HasPrefix(l, want) {
			t.Errorf("line %d = %q, want %s…", i, l, want)
		}
	}
	// The summary says how many the runner does not show.
	if md := Summary(r, Options{Annotations: true}); !strings.Contains(md, "28 more annotations than the runner shows") {
		t.Errorf("the summary does not count the annotations left out:\n%s", md)
	}
	if md := Summary(r, Options{}); strings.Contains(md, "more annotations") {
		t.Errorf("the summary counts annotations that were not written")
	}
}

// TestCheckRunCeilingCounted guards what the summaries say of a check run
// that cannot carry every annotation: how many were not sent, out of how
// many, and where every case is; nothing when it carries them all.
func TestCheckRunCeilingCounted(t *testing.T) {
	t.Parallel()
	r := manyPrograms(12) // 48 annotations
	if errs, warns := countAnnotations(&r); errs+warns != len(Annotations(r, AnnotationOptions{})) {
		t.Fatalf("countAnnotations says %d, Annotations returns %d", errs+warns, len(Annotations(r, AnnotationOptions{})))
	}
	const notSent = "8 of the 48 annotations were not sent to the check run: it carries the first 40, so that publishing takes a bounded number of API requests. The JSON report has every case."
	for _, tt := range []struct {
		name      string
		opt       Options
		want, not []string
	}{
		{"under the ceiling", Options{Annotations: true, CheckRun: true, CheckRunAnnotations: 48},
			[]string{"28 more annotations than the runner shows (it keeps 10 errors and 10 warnings a step): the check run carries them all."},
			[]string{"not sent"}},
		{"past the ceiling", Options{Annotations: true, CheckRun: true, CheckRunAnnotations: 40},
			[]string{"28 more annotations than the runner shows (it keeps 10 errors and 10 warnings a step): the check run carries the first 40.", notSent},
			[]string{"carries them all"}},
		{"no workflow commands", Options{CheckRun: true, CheckRunAnnotations: 40}, []string{notSent}, []string{"runner shows"}},
		{"no check run", Options{Annotations: true, CheckRunAnnotations: 40},
			[]string{"the JSON report has every case."}, []string{"check run"}},
	} {
		for name, md := range map[string]string{"summary": Summary(r, tt.opt), "check run": CheckRunSummary(r, tt.opt), "comment": Comment(r, tt.opt)} {
			for _, w := range tt.want {
				if !strings.Contains(md, w) {
					t.Errorf("%s: %s: does not say %q:\n%s", tt.name, name, w, md)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(md, n) {
					t.Errorf("%s: %s: says %q", tt.name, name, n)
				}
			}
		}
	}
}

func TestProgramFileLine(t *testing.T) {
	t.Parallel()
	tb := func(lines ...int) string {
		s := "Traceback (most recent call last):\n"
		for _, l := range lines {
			s += fmt.Sprintf("  File \"/program/main.py\", line %d, in f\n    x()\n", l)
		}
		return s + "ValueError: no\n"
	}
	tests := []struct {
		name      string
		entry     string // the file under /program
		stderr    string
		lineCount int
		line, col int
	}{
		{"python: the innermost frame", "main.py", tb(9, 4, 2), 0, 2, 0},
		{"python: frames of other files ignored", "main.py", "  File \"/usr/lib/python3.12/json/__init__.py\", line 346, in loads\n", 0, 1, 0},
		{"python: syntax error", "main.py", "  File \"/program/main.py\", line 3\n    def (\n        ^\nSyntaxError: invalid syntax\n", 0, 3, 0},
		{"gcc: the first error", "main.c", "main.c: In function 'main':\nmain.c:12:5: error: expected ';'\nmain.c:20:1: error: x\n", 0, 12, 5},
		{"gcc: full path", "main.c", "/program/main.c:7:3: error: unknown type\n", 0, 7, 3},
		{"javac: no column", "Main.java", "Main.java:3: error: ';' expected\n", 0, 3, 0},
		{"go", "main.go", "# command-line-arguments\n./main.go:5:2: undefined: x\n", 0, 5, 2},
		{"rust", "main.rs", "error[E0425]: cannot find value `x`\n --> main.rs:2:5\n", 0, 2, 5},
		{"another file's message", "main.c", "util.c:4:1: error: x\n", 0, 1, 0},
		{"a name that only ends like the file", "main.c", "notmain.c:4:1: error: x\n", 0, 1, 0},
		{"clamped to the file's length", "main.py", tb(900), 40, 40, 0},
		{"line 0 clamped to 1", "main.c", "main.c:0:0: error: x\n", 0, 1, 0},
		{"a number too large", "main.c", "main.c:99999999999999999999999:1: error: x\n", 0, 1, 1},
		{"nothing named: line 1", "main.py", "Killed\n", 0, 1, 0},
		{"a name longer than any file's is not looked for", strings.Repeat("m", 300) + ".c", strings.Repeat("m", 300) + ".c:4:1: error: x\n", 0, 1, 0},
	}
	for _, tt := range tests {
		c := kase("c", 14, verdict.False, "wrong", intp(1), "", "", tt.stderr)
		c.Event.Command = []string{"run", "/program/" + tt.entry}
		p := program("p", "src/p.src", 10, c)
		opt := AnnotationOptions{}
		if tt.lineCount > 0 {
			opt.LineCount = func(path string) int {
				if path != "src/p.src" {
					t.Errorf("%s: LineCount(%q), want the program file", tt.name, path)
				}
				return tt.lineCount
			}
		}
		a, _, ok := programAnnotation(&p, opt)
		if !ok || a.Path != "src/p.src" || a.StartLine != tt.line || a.EndLine != tt.line || a.Col != tt.col {
			t.Errorf("%s: at %s:%d-%d:%d (%v), want src/p.src:%d:%d", tt.name, a.Path, a.StartLine, a.EndLine, a.Col, ok, tt.line, tt.col)
		}
	}
}

// TestFolderProgramFileLine: a false folder program is annotated at its
// entry's repository file, or, when its stderr's innermost traceback frame
// under /program names another of its files, at that file's line; a
// frame that leaves the folder is not taken, and a folder program without
// an entry is annotated only where a frame names one of its files.
func TestFolderProgramFileLine(t *testing.T) {
	t.Parallel()
	frame := func(rel string, line int) string {
		return fmt.Sprintf("  File \"/program/%s\", line %d, in f\n", rel, line)
	}
	for _, tt := range []struct {
		name, entry, stderr string
		path                string
		line                int
	}{
		{"the entry's own line", "tool/main.py", "Traceback (most recent call last):\n" + frame("tool/main.py", 7), "proj/tool/main.py", 7},
		{"another module's frame, innermost", "tool/main.py", frame("tool/main.py", 3) + frame("tool/parsing.py", 12) + "ValueError\n", "proj/tool/parsing.py", 12},
		{"a frame out of the folder is not taken", "tool/main.py", frame("tool/main.py", 3) + frame("../etc/passwd", 9), "proj/tool/main.py", 3},
		{"nothing named: the entry, line 1", "tool/main.py", "Killed\n", "proj/tool/main.py", 1},
		{"no entry: the frame's file", "", frame("tool/parsing.py", 3), "proj/tool/parsing.py", 3},
		{"no entry, no frame: no program annotation", "", "Killed\n", "", 0},
	} {
		c := kase("c", 14, verdict.False, "wrong", intp(1), "", "", tt.stderr)
		c.Event.Command = []string{"python3", "-m", "tool"}
		p := program("p", "proj", 10, c)
		p.Dir, p.Entry = "proj", tt.entry
		a, _, ok := programAnnotation(&p, AnnotationOptions{})
		if ok != (tt.path != "") || a.Path != tt.path || a.StartLine != tt.line {
			t.Errorf("%s: at %s:%d (%v), want %s:%d", tt.name, a.Path, a.StartLine, ok, tt.path, tt.line)
		}
		if errs, _ := countAnnotations(&report.Report{Programs: []report.Program{p}}); (errs == 2) != ok {
			t.Errorf("%s: counted %d errors, annotated the program %v", tt.name, errs, ok)
		}
	}
}

// TestProgramFileLineFromRealSettings guards where the program's folder
// comes from, which a hand-written fixture once hid: every real report held program_mount as a mount
// description, which locate read as a path, so every annotation was at
// line 1. program_dir says it; a report without it (an earlier behaves) is
// read through the mount description; a bare path still reads.
func TestProgramFileLineFromRealSettings(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		settings runner.Settings
		dir      string
	}{
		{"program_dir", runner.Settings{ProgramDir: "/program", Container: runner.Container{ProgramMount: "volume:behaves-0f3a-program:/program:ro"}}, "/program"},
		{"a mount description only", runner.Settings{Container: runner.Container{ProgramMount: "volume:behaves-0f3a-program:/program:ro"}}, "/program"},
		{"another folder", runner.Settings{ProgramDir: "/src", Container: runner.Container{ProgramMount: "volume:v:/src:ro"}}, "/src"},
		{"another folder, mount only", runner.Settings{Container: runner.Container{ProgramMount: "volume:v:/src:ro,tmpfs::/tmp:rw"}}, "/src"},
		{"a bare path", runner.Settings{Container: runner.Container{ProgramMount: "/program"}}, "/program"},
		{"nothing", runner.Settings{}, "/program"},
	} {
		stderr := "Traceback (most recent call last):\n  File \"" + tt.dir + "/main.py\", line 3, in <module>\n    raise ValueError\nValueError\n"
		c := kase("c", 14, verdict.False, "wrong", intp(1), "", "", stderr)
		c.Event.Command = []string{"python3", "-I", tt.dir + "/main.py"}
		p := program("p", "src/p.py", 10, c)
		p.Settings = report.SettingsOf(tt.settings)
		if a, _, ok := programAnnotation(&p, AnnotationOptions{}); !ok || a.StartLine != 3 {
			t.Errorf("%s: line %d (%v), want 3", tt.name, a.StartLine, ok)
		}
	}
}

func TestMessageCutAtLimit(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 10000)
	c := kase("c", 14, verdict.False, long, intp(1), "", "", "")
	p := program(strings.Repeat("n", 500), "a.py", 10, c)
	r := finish(report.Report{SpecFile: "behaves.yml", Programs: []report.Program{p}})
	for _, a := range Annotations(r, AnnotationOptions{}) {
		if n := utf8.RuneCountInString(a.Message); n > AnnotationMessageLimit || !utf8.ValidString(a.Message) || n < AnnotationMessageLimit-50 {
			t.Errorf("message of %d runes (valid UTF-8: %v), want at most %d", n, utf8.ValidString(a.Message), AnnotationMessageLimit)
		}
		if n := utf8.RuneCountInString(a.Title); n > titleMaxRunes {
			t.Errorf("title of %d runes", n)
		}
	}
}

func TestRepoPath(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"behaves.yml":      "behaves.yml",
		"a/b/c.py":         "a/b/c.py",
		"":                 "",
		"/etc/passwd":      "",
		"../x.py":          "",
		"a/../../x.py":     "",
		"a//b.py":          "",
		"./a.py":           "",
		`a\b.py`:           "",
		"a\nb.py":          "",
		"a\u202eb.py":      "",
		"..":               "",
		"samples/x y.py":   "samples/x y.py",
		"samples/a,b:c.py": "samples/a,b:c.py",
	} {
		if got := repoPath(in); got != want {
			t.Errorf("repoPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSpecErrorAnnotations(t *testing.T) {
	t.Parallel()
	r := report.Report{Spec: "ci/behaves.yml", SpecErrors: []report.SpecError{
		{File: "ci/behaves.yml", Line: 3, Col: 5, Message: "unknown key\n::error::x"},
		{File: "ci/behaves.yml", Line: 0, Col: 0, Message: "no programs"},
	}}
	anns := Annotations(r, AnnotationOptions{})
	want := []string{
		`error ci/behaves.yml:3-3:5 "unknown key\\n::error::x"`,
		`error ci/behaves.yml:1-1:0 "no programs"`,
	}
	if len(anns) != len(want) {
		t.Fatalf("%d annotations, want %d", len(anns), len(want))
	}
	for i, a := range anns {
		if got := fmt.Sprintf("%s %s:%d-%d:%d %q", a.Level, a.Path, a.StartLine, a.EndLine, a.Col, a.Message); got != want[i] {
			t.Errorf("annotation %d = %s, want %s", i, got, want[i])
		}
	}
	// The repository-relative path wins when the report has one.
	r.SpecFile = "behaves.yml"
	if a := Annotations(r, AnnotationOptions{}); a[0].Path != "behaves.yml" {
		t.Errorf("path %q, want the report's spec_file", a[0].Path)
	}
}

// TestCasesFileAnnotations guards the place of a case from a cases file:
// its annotation is in that file at the case's line, never at that line of
// the spec; a path the report makes unusable gives an annotation on no
// file. The summary places the case there too.
func TestCasesFileAnnotations(t *testing.T) {
	t.Parallel()
	fromFile := kase("from a file", 7, verdict.False, "exit code: expected 0, got 1", intp(1), "", "", "")
	fromFile.File, fromFile.Col = "tests/cases.jsonl", 1
	hostileFile := kase("hostile file", 8, verdict.Undetermined, "image not present", nil, "", "", "")
	hostileFile.File = "../../etc/passwd"
	inline := kase("inline", 14, verdict.False, "exit code: expected 0, got 1", intp(1), "", "", "")
	r := finish(report.Report{Spec: "behaves.yml", SpecFile: "behaves.yml", Programs: []report.Program{
		program("p", "p.py", 10, fromFile, hostileFile, inline),
	}})
	var got []string
	for _, a := range Annotations(r, AnnotationOptions{}) {
		if a.Path != "p.py" { // the program file's own annotation is not a case's
			got = append(got, fmt.Sprintf("%s %s %s:%d:%d", a.Level, a.Title, a.Path, a.StartLine, a.Col))
		}
	}
	want := []string{
		"error p / inline behaves.yml:14:11",
		"error p / from a file tests/cases.jsonl:7:1", // p.py's error describes it
		"warning p / hostile file :8:11",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("annotations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	md := Summary(r, Options{})
	for _, w := range []string{"- spec: `tests/cases.jsonl:7:1`", "- spec: `behaves.yml:14:11`"} {
		if !strings.Contains(md, w) {
			t.Errorf("the summary lacks %q:\n%s", w, md)
		}
	}
}

// TestSpecErrorInCasesFile guards a spec error inside a cases file: its
// path is given the way the spec's is, so its annotation and the
// summary's table place it at the same spot relative to the spec's folder.
func TestSpecErrorInCasesFile(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		spec, specFile, file, want string
	}{
		{"ci/behaves.yml", "ci/behaves.yml", "ci/tests/c.jsonl", "ci/tests/c.jsonl"},
		{"/github/workspace/ci/behaves.yml", "ci/behaves.yml", "/github/workspace/shared/c.jsonl", "shared/c.jsonl"},
		{"behaves.yml", "sub/behaves.yml", "cases/c.yaml", "sub/cases/c.yaml"},
		{"behaves.yml", "", "cases/c.yaml", "cases/c.yaml"},
		{"behaves.yml", "behaves.yml", "../../outside.jsonl", ""},
	} {
		r := finish(report.Report{Spec: tt.spec, SpecFile: tt.specFile, Error: "spec errors", SpecErrors: []report.SpecError{
			{File: tt.file, Line: 3, Col: 9, Message: "unknown key"},
			{File: tt.spec, Line: 12, Col: 5, Message: "in the spec"},
		}})
		anns := Annotations(r, AnnotationOptions{})
		if len(anns) != 2 || anns[0].Path != tt.want || anns[0].StartLine != 3 || anns[0].Col != 9 {
			t.Errorf("%+v: annotation %+v, want at %q:3:9", tt, anns[0], tt.want)
		}
		if wantSpec := repoPath(tt.specFile); tt.specFile != "" && anns[1].Path != wantSpec {
			t.Errorf("%+v: the spec's own error is at %q", tt, anns[1].Path)
		}
		if tt.want != "" {
			if md := Summary(r, Options{}); !strings.Contains(md, tt.want+":3:9") {
				t.Errorf("%+v: the summary does not place the error at %s:3:9:\n%s", tt, tt.want, md)
			}
		}
	}
}

// Five false programs of two false cases each: the runner's ten errors a
// step are one per program (at its file, on its deciding case) and then
// each program's other case; nothing the reviewer needs first is lost,
// and the count says "1 more false case".
func TestAnnotationBudgetFivePrograms(t *testing.T) {
	t.Parallel()
	r := manyPrograms(5)
	lines, omitted := WorkflowCommands(Annotations(r, AnnotationOptions{}))
	var errs []string
	for _, l := range lines {
		if strings.HasPrefix(l, "::error ") {
			errs = append(errs, l)
		}
	}
	if len(errs) != 10 || omitted != 5 {
		t.Fatalf("%d errors shown, %d omitted; want 10 and the 5 repeated deciding cases omitted", len(errs), omitted)
	}
	for i := range 5 {
		if !strings.Contains(errs[i], fmt.Sprintf("file=gen/p%02d.py", i)) || !strings.HasSuffix(errs[i], "::wrong 1 (and 1 more false case)") {
			t.Errorf("error %d = %s, want the program file's, on its deciding case", i, errs[i])
		}
		if !strings.Contains(errs[5+i], fmt.Sprintf("title=p%02d / c2", i)) {
			t.Errorf("error %d = %s, want program %d's other false case", 5+i, errs[5+i], i)
		}
	}
}

// An image missing leaves every case of every program of its profile with
// no evidence and one reason: one warning for the profile, not one a case,
// so that the runner's ten warnings a step are not spent on it.
func TestNoEvidenceWarnedOncePerProfile(t *testing.T) {
	t.Parallel()
	a, b, c := program("a", "a.py", 10, missingImageCase("one"), missingImageCase("two")), program("b", "b.py", 20, missingImageCase("three")), program("c", "c.sh", 30, missingImageCase("four"))
	c.Profile = "sh"
	r := finish(report.Report{Spec: "behaves.yml", SpecFile: "behaves.yml", Programs: []report.Program{a, b, c}})
	var got []string
	for _, an := range Annotations(r, AnnotationOptions{}) {
		got = append(got, fmt.Sprintf("%s %s: %s", an.Level, an.Title, an.Message))
	}
	want := []string{
		"warning profile python: image not present: pull it before scoring (all 3 cases of 2 programs of profile python, none ran)",
		"warning c / four: image not present: pull it before scoring",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("annotations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, warns := countAnnotations(&r); warns != len(want) {
		t.Errorf("countAnnotations: %d warnings, want %d", warns, len(want))
	}
}

// The folder program of TestProgramFilesMapped: dir proj, a Python
// package, Go files at the folder's root and in a subfolder, a C file, a
// with: file from evals/ and two links (to a file, to a folder).
var (
	folderFiles = map[string]string{
		"tool/__init__.py": "", "tool/main.py": "from tool import parsing\n", "tool/parsing.py": "def parse(s): ...\n",
		"go.mod": "module example.com/tool\n", "calc.go": "package main\n", "calc/calc.go": "package calc\n",
		"src/x.c": "int main(void) { return totl; }\n",
	}
	folderWith  = map[string]string{"harness/check.py": "evals/harness/check.py"}
	folderLinks = map[string]string{"tool/alias.py": "parsing.py", "lib": "tool"}
)

// folderProgram is the folder program above, entry given ("" for none),
// with one case.
func folderProgram(entry string) spec.Program {
	c := reporttest.Case("sums", 14, verdict.Expectation{Stdout: reporttest.Equals("3")}, "1", "2")
	p := reporttest.FolderProgram("tool", "proj", entry, folderFiles, folderWith, c)
	p.Program.Links = folderLinks
	return p
}

// ranWithStderr is the attempt of a program of one case that exited 1
// having written stderr.
func ranWithStderr(stderr string) runner.Observation {
	ev := reporttest.Event(reporttest.IntP(1), "", "1", "2")
	ev.Command = []string{"python3", "-m", "tool", "1", "2"}
	ev.Stderr = runner.Stream{Data: []byte(stderr), Bytes: int64(len(stderr))}
	return runner.Observation{ExecutionID: "12121212-1212-4121-8121-121212121212", Acquisition: runner.AcquisitionComplete,
		Settings: reporttest.Settings, Events: []runner.Event{ev}}
}

// failedBuild is a failed build (exit 1) that wrote stderr, run in the
// program's folder.
func failedBuild(command []string, stderr string) runner.Event {
	return runner.Event{ExitCode: reporttest.IntP(1), Command: command, Limits: reporttest.Limits,
		Stderr: runner.Stream{Data: []byte(stderr), Bytes: int64(len(stderr))}}
}

func frame(file string, line int) string {
	return fmt.Sprintf("  File %q, line %d, in f\n    x()\n", file, line)
}

// TestProgramFilesMapped guards where a false folder program's
// annotation goes, on reports a run writes and reportread reads back: at
// the file and line a traceback or compiler message names, for any file
// of the program (a with: file at its own repository path, a link at its
// target's), in a case's stderr or the failed build's output (paths
// relative to the working directory, /program); a failed build's
// annotation names that file. A path the program did not deliver is
// never annotated, whatever the output says: the entry's line 1, or,
// without an entry, no program annotation (the case's, in the spec, stays).
func TestProgramFilesMapped(t *testing.T) {
	t.Parallel()
	const tb = "Traceback (most recent call last):\n"
	forged := tb + frame("/program/../etc/passwd", 9) + frame("/program/secret.py", 2) +
		frame("/etc/passwd", 4) + frame("/program/tool", 5) + frame("/program/tool/main.py/x", 6) + frame("../proj/tool/main.py", 7) +
		"../../.git/config:3:1: error\n/program/proj/../../x.c:1:1: error\n/github/workspace/proj/src/x.c:2:1: error\n" +
		"/program/tool/parsing.py\x00:8:1: error\n/program/tool/parsing.py\u202e:9:1: error\n"
	gcc := []string{"gcc", "-O2", "-o", "/build/app", "src/x.c"}
	goBuild := []string{"go", "build", "-o", "/build/app", "."}
	for _, tt := range []struct {
		name, entry string
		cases       int    // of a failed build (default 1)
		stderr      string // the case's
		build       *runner.Event
		want        string // path:line:col, "" for no program annotation
		title, msg  string // the annotation's, when given
	}{
		{name: "python: the innermost frame, in a module that is not the entry", entry: "tool/main.py",
			stderr: tb + frame("/program/tool/main.py", 3) + frame("/program/tool/parsing.py", 12) + "ValueError: no\n",
			want:   "proj/tool/parsing.py:12:0", title: "tool / sums"},
		{name: "python: a with: file at its own repository path", entry: "tool/main.py",
			stderr: tb + frame("/program/tool/main.py", 3) + frame("/program/harness/check.py", 5),
			want:   "evals/harness/check.py:5:0"},
		{name: "python: a frame relative to the working directory", entry: "",
			stderr: tb + frame("tool/parsing.py", 9), want: "proj/tool/parsing.py:9:0"},
		{name: "a link to a file: its target", entry: "tool/main.py",
			stderr: tb + frame("/program/tool/alias.py", 4), want: "proj/tool/parsing.py:4:0"},
		{name: "a path through a link to a folder", entry: "",
			stderr: tb + frame("/program/lib/parsing.py", 6), want: "proj/tool/parsing.py:6:0"},
		{name: "a compiler message in a case's stderr", entry: "tool/main.py",
			stderr: "# command-line-arguments\n./calc.go:7:2: undefined: x\n", want: "proj/calc.go:7:2"},
		{name: "forged paths, with an entry: the entry's line 1", entry: "tool/main.py",
			stderr: forged, want: "proj/tool/main.py:1:0"},
		{name: "forged paths, no entry: no program annotation", entry: "", stderr: forged},
		{name: "go build: relative to the folder", entry: "",
			build: ptr(failedBuild(goBuild, "# example.com/tool\n./calc.go:7:2: undefined: x\n")),
			want:  "proj/calc.go:7:2", title: "tool / build",
			msg: "build failed in proj/calc.go:7:2: exit 1: ./calc.go:7:2: undefined: x (its one case false)"},
		{name: "go build: a package in a subfolder", entry: "",
			build: ptr(failedBuild(goBuild, "# example.com/tool/calc\ncalc/calc.go:7:2: undefined: y\ncalc/calc.go:9:1: z\n")),
			want:  "proj/calc/calc.go:7:2"},
		{name: "gcc: the first error, in a subfolder", entry: "src/x.c", cases: 2,
			build: ptr(failedBuild(gcc, "src/x.c: In function 'main':\nsrc/x.c:8:25: error: 'totl' undeclared (first use in this function)\n")),
			want:  "proj/src/x.c:8:25", title: "tool / build",
			msg: "build failed in proj/src/x.c:8:25: exit 1: src/x.c:8:25: error: 'totl' undeclared (first use in this function) (all 2 cases false)"},
		{name: "a build naming no file of the program: the entry, and the build's reason", entry: "src/x.c",
			build: ptr(failedBuild(gcc, "/etc/passwd:1:1: error: x\n")),
			want:  "proj/src/x.c:1:0", title: "tool / build", msg: "build failed: exit 1: /etc/passwd:1:1: error: x (its one case false)"},
	} {
		obs := ranWithStderr(tt.stderr)
		if tt.build != nil {
			obs = reporttest.FailedBuildRun(*tt.build, max(tt.cases, 1))
		}
		p := folderProgram(tt.entry)
		if tt.cases > 1 {
			p.Cases = append(p.Cases, reporttest.Case("again", 16, verdict.Expectation{}))
		}
		r := reporttest.RoundTrip(t, reporttest.Single(p, obs))
		checkProgramAnnotation(t, tt.name, r, tt.want, tt.title, tt.msg)
	}
}

// checkProgramAnnotation checks the annotation of r's one program at want
// (path:line:col; "" for none: then the case's annotation at the spec is
// there), its title and message when given, and that the summary's count
// agrees.
func checkProgramAnnotation(t *testing.T, name string, r report.Report, want, title, msg string) {
	t.Helper()
	p := &r.Programs[0]
	a, _, ok := programAnnotation(p, AnnotationOptions{})
	if got := fmt.Sprintf("%s:%d:%d", a.Path, a.StartLine, a.Col); ok != (want != "") || ok && got != want {
		t.Errorf("%s: annotation at %s (%v), want %q", name, got, ok, want)
	}
	if title != "" && a.Title != title || msg != "" && a.Message != msg {
		t.Errorf("%s: title %q, message %q; want %q, %q", name, a.Title, a.Message, title, msg)
	}
	if hasProgramAnnotation(p) != ok {
		t.Errorf("%s: hasProgramAnnotation says %v", name, !ok)
	}
	anns := Annotations(r, AnnotationOptions{})
	if errs, _ := countAnnotations(&r); errs != len(anns) {
		t.Errorf("%s: counted %d errors, made %d", name, errs, len(anns))
	}
	if last := anns[len(anns)-1]; last.Path != "behaves.yml" || last.StartLine != 14 {
		t.Errorf("%s: the case's annotation is at %s:%d, want behaves.yml:14", name, last.Path, last.StartLine)
	}
}

func ptr[T any](v T) *T { return &v }

// TestOneFileProgramFilesMapped: a one-file program's failed build is
// annotated at the line the compiler names in its file (gcc names it
// /program/<program_name>), and a traceback frame in a with: file
// delivered beside it at that file's repository path.
func TestOneFileProgramFilesMapped(t *testing.T) {
	t.Parallel()
	c := reporttest.Case("two numbers", 14, verdict.Expectation{Stdout: reporttest.Equals("5")}, "2", "3")
	sum := reporttest.Program("sum", "sum/typo.c", 10, c)
	sum.Program = runner.Program{Files: runner.FilesOf(map[string][]byte{"typo.c": []byte("int main(void) { return totl; }\n")}), Entry: "typo.c"}
	build := failedBuild([]string{"gcc", "-O2", "-o", "/build/sum", "/program/typo.c"},
		"/program/typo.c: In function 'main':\n/program/typo.c:8:25: error: 'totl' undeclared (first use in this function)\n")
	r := reporttest.RoundTrip(t, reporttest.Single(sum, reporttest.FailedBuildRun(build, 1)))
	checkProgramAnnotation(t, "gcc", r, "sum/typo.c:8:25", "sum / build",
		"build failed in sum/typo.c:8:25: exit 1: /program/typo.c:8:25: error: 'totl' undeclared (first use in this function) (its one case false)")

	py := reporttest.WithFiles(reporttest.Program("cand", "samples/cand.py", 10, c), map[string]string{"harness/check.py": "evals/harness/check.py"})
	stderr := "Traceback (most recent call last):\n" + frame("/program/main.py", 2) + frame("/program/harness/check.py", 7) + "AssertionError\n"
	r = reporttest.RoundTrip(t, reporttest.Single(py, ranWithStderr(stderr)))
	checkProgramAnnotation(t, "with:", r, "evals/harness/check.py:7:0", "cand / two numbers", "")
}

// TestFilesOmittedFallback: a report whose files list was left out for
// its size budget (files_omitted) maps as reports before the list did: a
// folder program's path to the same path under its folder, checked clean
// (a with: file, whose repository path the list alone knows, is placed
// under the folder too); a path out of the folder is still not taken.
func TestFilesOmittedFallback(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for k, v := range folderFiles {
		files[k] = v
	}
	for i := range 300 { // a list too long for the budget below
		files[fmt.Sprintf("pad/module_%03d.py", i)] = ""
	}
	for _, tt := range []struct {
		name, stderr, want string
	}{
		{"a module's frame", frame("/program/tool/main.py", 3) + frame("/program/tool/parsing.py", 12), "proj/tool/parsing.py:12:0"},
		{"a with: file: under the folder", frame("/program/harness/check.py", 5), "proj/harness/check.py:5:0"},
		{"a path out of the folder", frame("/program/tool/main.py", 3) + frame("/program/../etc/passwd", 9), "proj/tool/main.py:3:0"},
		{"a compiler message", "./calc.go:7:2: undefined: x\n", "proj/calc.go:7:2"},
	} {
		c := reporttest.Case("sums", 14, verdict.Expectation{Stdout: reporttest.Equals("3")}, "1", "2")
		p := reporttest.FolderProgram("tool", "proj", "tool/main.py", files, folderWith, c)
		r := reporttest.WrittenWithin(t, reporttest.SingleInput(p, ranWithStderr("Traceback (most recent call last):\n"+tt.stderr)), 16<<10)
		if got := r.Programs[0]; !got.FilesOmitted || len(got.Files) != 0 || got.Cases[0].Event.StderrOmitted {
			t.Fatalf("%s: files_omitted %v with %d files listed, stderr omitted %v: want the list alone left out", tt.name, got.FilesOmitted, len(got.Files), got.Cases[0].Event.StderrOmitted)
		}
		checkProgramAnnotation(t, tt.name, r, tt.want, "", "")
	}
}

// TestLocateLookupsBounded: a program's output is looked up for at most
// lookupsMax paths, the first compiler messages first: a real position
// after that many forged ones is not found (the entry's line 1), one
// within them is.
func TestLocateLookupsBounded(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		forged int
		want   string
	}{
		{lookupsMax - 1, "proj/calc.go:7:2"},
		{lookupsMax, "proj/tool/main.py:1:0"},
	} {
		stderr := strings.Repeat("x:1\n", tt.forged) + "./calc.go:7:2: undefined: x\n"
		r := reporttest.RoundTrip(t, reporttest.Single(folderProgram("tool/main.py"), ranWithStderr(stderr)))
		checkProgramAnnotation(t, fmt.Sprintf("%d forged", tt.forged), r, tt.want, "", "")
	}
}
