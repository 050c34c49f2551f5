package terminal

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/goldentest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

const testToken = "0123456789abcdef0123456789abcdef"

func TestTerminalGolden(t *testing.T) {
	t.Parallel()
	for name, opt := range map[string]Options{
		"terminal.golden":         {},
		"terminal_actions.golden": {GitHubActions: true, Token: testToken},
		"terminal_verbose.golden": {Verbose: true},
		"terminal_color.golden":   {Color: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := Write(&buf, reporttest.Report(), opt); err != nil {
				t.Fatal(err)
			}
			goldentest.Check(t, name, buf.Bytes())
		})
	}
}

func TestTerminalAllTrue(t *testing.T) {
	t.Parallel()
	in := reporttest.Input()
	in.Spec.Programs, in.Programs = in.Spec.Programs[:1], in.Programs[:1]
	var buf bytes.Buffer
	if err := Write(&buf, assemble.Report(in), Options{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "==") || !strings.Contains(out, "behaves: true ·") {
		t.Errorf("an all-true run describes cases or lacks the summary:\n%s", out)
	}
}

// TestTerminalCaseFile guards a case's position: in its cases file when it
// has one, else in the spec.
func TestTerminalCaseFile(t *testing.T) {
	t.Parallel()
	r := reporttest.Report()
	var target *report.Case
	for i := range r.Programs {
		for j := range r.Programs[i].Cases {
			if c := &r.Programs[i].Cases[j]; c.Verdict == verdict.False && target == nil {
				target = c
			}
		}
	}
	if target == nil {
		t.Fatal("the fixture has no false case")
	}
	target.File, target.Line, target.Col = "tests/cases.jsonl", 7, 1
	var buf bytes.Buffer
	if err := Write(&buf, r, Options{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "  "+target.Name+"  (tests/cases.jsonl:7:1)\n") {
		t.Errorf("the case from a cases file is not placed there:\n%s", out)
	}
	if !strings.Contains(out, "(behaves.yml:") {
		t.Errorf("the cases written in the spec lost their place:\n%s", out)
	}
}

// TestTerminalFolderProgram: a program that is a folder is named by its
// folder and its entry, not as a file.
func TestTerminalFolderProgram(t *testing.T) {
	t.Parallel()
	r := reporttest.Report()
	p := &r.Programs[1] // false: described
	p.File, p.Dir, p.Entry = "cli-app", "cli-app", "tool/main.py"
	var buf bytes.Buffer
	if err := Write(&buf, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "   dir cli-app · entry tool/main.py · profile python · behaves.yml:30:5\n") {
		t.Errorf("the folder program is not named by its folder and entry:\n%s", out)
	}
}

func TestTerminalToken(t *testing.T) {
	t.Parallel()
	for _, tok := range []string{"short", testToken + "\n::error::x", "pause-logging-is-not-ok!"} {
		if err := Write(&bytes.Buffer{}, reporttest.Report(), Options{GitHubActions: true, Token: tok}); err == nil {
			t.Errorf("token %q accepted", tok)
		}
	}
	// No token: one is drawn, and the region closes with it.
	var buf bytes.Buffer
	if err := Write(&buf, reporttest.Report(), Options{GitHubActions: true}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	first, last := lines[1], lines[len(lines)-1]
	if lines[0] != "" {
		t.Errorf("the region does not start on a fresh line: %q", lines[0])
	}
	tok, ok := strings.CutPrefix(first, "::stop-commands::")
	if !ok || len(tok) != 32 || last != "::"+tok+"::" {
		t.Errorf("region = %q … %q", first, last)
	}
}

func TestTerminalMaxCaseDetails(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := Write(&buf, reporttest.Report(), Options{MaxCaseDetails: 1}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "… 3 more cases that are not true are not described here") {
		t.Errorf("bound not reported:\n%s", out)
	}
	if strings.Contains(out, "  loop  (") {
		t.Errorf("a case past the bound is described:\n%s", out)
	}
	buf.Reset()
	if err := Write(&buf, reporttest.Report(), Options{MaxCaseDetails: 3}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "… 1 more case that is not true is not described here") {
		t.Errorf("one case past the bound is not counted in the singular:\n%s", buf.String())
	}
}

// hostileOutput is what a malicious program (or spec) tries to get into a
// CI log.
const hostileOutput = "::error::pwned\n" +
	"  ::set-output name=x::y\n" +
	"::add-mask::x\n" +
	"::stop-commands::abc\n" +
	"##[error]x\n" +
	"::abc::\n" +
	"progress\r\x1b[2K::error file=a::overwritten\n" +
	"FAKE-ROW  true  9  0  0  1ms\n" +
	"behaves: true · programs: 9 true, 0 false, 0 undetermined\n" +
	"bidi \u202eevil\u2066 c1 \u0085 del \x7f bell \a\n" +
	"invalid \xff\xfe ::warning::x\n" +
	"\x1b]0;title\x07 \x1b[31mred"

func hostileReport() report.Report {
	hostile := "x ::error::name\n##[warning]\r\x1b[2K\u202e"
	ev := reporttest.Event(reporttest.IntP(1), hostileOutput, hostile)
	ev.Stderr = runner.Stream{Data: []byte(hostileOutput), Bytes: int64(len(hostileOutput)), Truncated: true}
	ev.SandboxError = "" // keep evidence
	sp := &spec.Spec{Path: "behaves.yml", Programs: []spec.Program{
		reporttest.Program("evil"+hostile, "evil.py", 1,
			reporttest.Case("case"+hostile, 2, verdict.Expectation{
				Stdout: reporttest.Equals("expected\n::error::from the spec\n##[error]x\r\n"),
				Stderr: &verdict.Matcher{Kind: verdict.Regex, Value: "::notice::" + hostile},
			}, hostile, "::error::arg"),
		),
	}}
	obs := runner.Observation{Acquisition: runner.AcquisitionPartial, Reasons: []string{hostile}, SandboxWarnings: []string{hostile}, Events: []runner.Event{ev}}
	return assemble.Report(assemble.Input{
		Spec: sp,
		Programs: []assemble.Program{reporttest.Ran(sp.Programs[0], obs, 0, verdict.CaseResult{Verdict: verdict.False, Reason: "got " + hostileOutput, Checks: []verdict.Check{
			reporttest.Check("exit_code", verdict.False, "0", "1", hostile),
			reporttest.Check("stdout", verdict.False, hostile, hostileOutput, hostileOutput),
			reporttest.Check("stderr", verdict.Undetermined, hostile, hostileOutput, hostile),
		}})},
		RunID:     "run" + hostile,
		Err:       errorString(hostile),
		Version:   hostile,
		StartedAt: reporttest.StartedAt,
	})
}

type errorString string

func (e errorString) Error() string { return string(e) }

// runnerLines splits output as the Actions runner reads it (.NET
// StreamReader.ReadLine): at "\n", "\r" and "\r\n".
func runnerLines(s string) []string {
	var lines []string
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i])
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
	return lines
}

// commandName returns the workflow command a line carries, as the runner
// parses it, conservatively: "::name …" after leading whitespace, or
// "##[name" anywhere.
func commandName(line string) (name, data string, ok bool) {
	if rest, found := strings.CutPrefix(strings.TrimLeft(line, " \t\v\f\u00a0"), "::"); found {
		info, d, _ := strings.Cut(rest, "::")
		name, _, _ = strings.Cut(info, " ")
		return name, d, true
	}
	if _, rest, found := strings.Cut(line, "##["); found {
		info, _, _ := strings.Cut(rest, "]")
		name, _, _ = strings.Cut(info, " ")
		return name, "", true
	}
	return "", "", false
}

type command struct{ name, data string }

// actionsCommands returns the commands the runner would act on.
func actionsCommands(out string) []command {
	var cmds []command
	stopToken := ""
	for _, line := range runnerLines(out) {
		name, data, ok := commandName(line)
		if !ok {
			continue
		}
		if stopToken != "" {
			if strings.EqualFold(name, stopToken) {
				cmds = append(cmds, command{name: name})
				stopToken = ""
			}
			continue
		}
		cmds = append(cmds, command{name, data})
		if name == "stop-commands" {
			stopToken = data
		}
	}
	return cmds
}

// sgr matches the colour escapes Write paints with.
var sgr = regexp.MustCompile("\x1b\\[(?:0|31|32|33|39)m")

func TestHostileOutput(t *testing.T) {
	t.Parallel()
	r := hostileReport()
	for _, opt := range []Options{{GitHubActions: true}, {}, {Color: true}, {GitHubActions: true, Color: true, Verbose: true}} {
		actions := opt.GitHubActions
		opt.Token = testToken
		var buf bytes.Buffer
		if err := Write(&buf, r, opt); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if opt.Color {
			// behaves' own colours are the only escapes; with them taken
			// out, the output is held to the same rules as without.
			out = sgr.ReplaceAllString(out, "")
		}

		if actions {
			cmds := actionsCommands(out)
			want := []command{{"stop-commands", testToken}, {name: testToken}}
			if len(cmds) != 2 || cmds[0] != want[0] || cmds[1] != want[1] {
				t.Errorf("commands the runner would act on = %q, want only %q\n%s", cmds, want, out)
			}
		}
		if strings.ContainsAny(out, "\r\x1b\a\x7f") {
			t.Errorf("raw control bytes in the output:\n%q", out)
		}
		if !utf8.ValidString(out) {
			t.Errorf("output is not valid UTF-8")
		}
		for _, r := range out {
			if (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
				t.Errorf("raw control rune %U in the output", r)
			}
		}
		for _, line := range strings.Split(out, "\n") {
			trimmed := strings.TrimLeft(line, " ")
			if strings.HasPrefix(trimmed, "FAKE-ROW") {
				t.Errorf("program output forged a table row: %q", line)
			}
			if strings.HasPrefix(trimmed, "::") && !strings.Contains(line, testToken) {
				t.Errorf("line starts a workflow command: %q", line)
			}
			if strings.HasPrefix(line, "behaves: true") {
				t.Errorf("program output forged the summary: %q", line)
			}
			// Program output appears only behind the "| " prefix, or
			// escaped inside a single line.
			if strings.Contains(line, "FAKE-ROW") && !strings.Contains(line, "| FAKE-ROW") && !strings.Contains(line, `\nFAKE-ROW`) {
				t.Errorf("program output without a prefix: %q", line)
			}
		}
		// Escapes stay readable.
		for _, want := range []string{`| ::error::pwned`, `| progress\r\x1b[2K::error file=a::overwritten`, `\u202e`, `\u2066`, `\u0085`, `\x7f`, `\xff\xfe`, `\x1b]0;title\x07`} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %s", want)
			}
		}
	}
}

// Two programs of one profile whose image is missing: the reason is said
// once, the second program points at the first.
func TestTerminalMissingImageOncePerProfile(t *testing.T) {
	t.Parallel()
	in := reporttest.Input()
	in.Spec.Programs = append(in.Spec.Programs, in.Spec.Programs[3])
	in.Spec.Programs[4].Name = "missing-too"
	in.Programs = append(in.Programs, in.Programs[3])
	in.Programs[4].Spec = in.Spec.Programs[4]
	var buf bytes.Buffer
	if err := Write(&buf, assemble.Report(in), Options{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if n := strings.Count(out, reporttest.MissingImage); n != 1 {
		t.Errorf("the missing image is said %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(out, "   undetermined  all 2 cases: as for missing-image (profile python)\n") {
		t.Errorf("the second program does not point at the first:\n%s", out)
	}
}

// The terminal shows a failed build once, with the compiler's output,
// and sums up its cases in one line.
func TestTerminalFailedBuild(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := Write(&buf, reporttest.FailedBuild(), Options{Token: strings.Repeat("t", 32)}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"   build: gcc /program/main.c · exit code 1\n",
		"   build stderr (19 bytes):\n     | main.c:1: error: x\n",
		"   false  its one case: build failed: exit 1: main.c:1: error: x\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "exit code: expected") {
		t.Errorf("terminal details the cases one by one:\n%s", out)
	}
}

// TestRepeatTerminal guards the terminal's account of runs: the
// nondeterministic case counted apart in the program's header and in the
// summary line, and its runs listed with the ones that are not true.
func TestRepeatTerminal(t *testing.T) {
	t.Parallel()
	in, _ := reporttest.RepeatInput()
	var buf bytes.Buffer
	if err := Write(&buf, assemble.Report(in), Options{Token: strings.Repeat("t", 32)}); err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, "terminal_repeat.golden", buf.Bytes())
	for _, want := range []string{
		"== coin: undetermined (2 of 3 cases true; 1 nondeterministic)",
		"runs: 3 (2 true, 1 false, 0 undetermined); the expectation and output below are run 1's",
		`run 2: false: stdout: expected "0", got "1\xff"`,
		"programs: 0 true, 0 false, 1 undetermined (1 nondeterministic) · cases: 2 true, 0 false, 1 undetermined (1 nondeterministic)",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the terminal lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestSameAsTerminal: the terminal shows a differing same_as case with the
// reference's output as what is expected, next to the candidate's.
func TestSameAsTerminal(t *testing.T) {
	t.Parallel()
	r, err := reportread.Read(bytes.NewReader(reporttest.SameAs(t, reportwrite.DefaultMaxReportSize)), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Write(&out, r, Options{}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		`same as reference "ref" (2 runs; the exit code and stdout compared)`,
		"expected:\n       | 1 2\n",
		"actual (4 bytes):\n       | 2 1\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, s)
		}
	}
}

// TestSummariesRenderAsReport guards what a run renders: the summaries a
// reportwrite.Writer's Commit returns (no output but the excerpts) render the
// same text as the report they stand for.
func TestSummariesRenderAsReport(t *testing.T) {
	t.Parallel()
	w, err := assemble.NewWriter(filepath.Join(t.TempDir(), "report.json"), reportwrite.Options{MaxSize: reportwrite.DefaultMaxReportSize})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	in := reporttest.AddAll(w, reporttest.Input())
	sum, err := reporttest.Commit(t, w, assemble.Report(in))
	if err != nil {
		t.Fatal(err)
	}
	var term, wantTerm bytes.Buffer
	opt := Options{Token: strings.Repeat("t", 32)}
	if err := Write(&term, sum, opt); err != nil {
		t.Fatal(err)
	}
	if err := Write(&wantTerm, reporttest.Report(), opt); err != nil {
		t.Fatal(err)
	}
	if term.String() != wantTerm.String() {
		t.Errorf("the summaries render differently:\n%s\n--- want\n%s", term.String(), wantTerm.String())
	}
}

// TestSummaryExcerpts guards a run's rendering of output it does not
// hold: a summary's excerpt is shown as the start of the output, and a
// summary without one says where the output is.
func TestSummaryExcerpts(t *testing.T) {
	t.Parallel()
	F := verdict.False
	in := reporttest.BudgetRun([]verdict.Verdict{F, F, F, F}, 64<<10)
	w, err := assemble.NewWriter(filepath.Join(t.TempDir(), "report.json"), reportwrite.Options{Excerpts: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	in = reporttest.AddAll(w, in)
	r, err := reporttest.Commit(t, w, assemble.Report(in))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Write(&out, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "more bytes not shown") || !strings.Contains(out.String(), "not held in memory") {
		t.Errorf("terminal does not say what it leaves out:\n%s", out.String())
	}
}

// TestTerminalReused guards the account of a run given stored reports:
// the summary says how many invocations were reused and from which run,
// and why the others ran now; each reused case described is marked with
// its run, and each case that ran now says why.
func TestTerminalReused(t *testing.T) {
	t.Parallel()
	r := reporttest.Reused(t)
	var buf bytes.Buffer
	if err := Write(&buf, r, Options{}); err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, "terminal_reused.golden", buf.Bytes())
	out := buf.String()
	for _, want := range []string{
		"\nbehaves: reused 6 of 10 invocations from run run-0100 (commit abc1234, Actions run 9876543210) +1 more\n",
		"\nbehaves: ran now: 2 changed: program, 1 no stored run, 1 undetermined\n",
		"== sorter: false (3 of 4 cases true; 4 reused)\n",
		"   false  many  (behaves.yml:18:11)  [reused from run run-0099]\n",
		"   false  bye  (behaves.yml:36:11)\n     ran now: changed: program: the program file's digest is",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, out)
		}
	}

	// One source outside Actions: named alone, without a commit.
	r.Reuse.Sources = r.Reuse.Sources[1:]
	buf.Reset()
	if err := Write(&buf, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if want := "\nbehaves: reused 6 of 10 invocations from run run-0099\n"; !strings.Contains(buf.String(), want) {
		t.Errorf("the terminal lacks %q:\n%s", want, buf.String())
	}
	// No source at all: the counts alone.
	r.Reuse.Sources = nil
	buf.Reset()
	if err := Write(&buf, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if want := "\nbehaves: reused 6 of 10 invocations\n"; !strings.Contains(buf.String(), want) {
		t.Errorf("the terminal lacks %q:\n%s", want, buf.String())
	}
}

// TestTerminalNotReused: a report without a reuse block says nothing of
// reuse.
func TestTerminalNotReused(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := Write(&buf, reporttest.Report(), Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "reused") || strings.Contains(buf.String(), "ran now") {
		t.Errorf("a run given no stored reports speaks of reuse:\n%s", buf.String())
	}
}

// TestTerminalReusedHostileDetail: a not_reused detail quoting a stored
// report is escaped like any report text: no control byte, no workflow
// command, no line of its own.
func TestTerminalReusedHostileDetail(t *testing.T) {
	t.Parallel()
	r := reporttest.Reused(t)
	for _, opt := range []Options{{GitHubActions: true, Token: testToken}, {Verbose: true}} {
		var buf bytes.Buffer
		if err := Write(&buf, r, opt); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if strings.ContainsAny(out, "\r\x1b") {
			t.Errorf("raw control bytes in the output:\n%q", out)
		}
		if opt.GitHubActions {
			if cmds := actionsCommands(out); len(cmds) != 2 {
				t.Errorf("commands the runner would act on = %q, want only the stop-commands region", cmds)
			}
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimLeft(line, " "), "::error::") || strings.HasPrefix(line, "# heading") {
				t.Errorf("the detail starts a line of its own: %q", line)
			}
		}
		if want := `ran now: undetermined: stored stdout was <script>alert(1)</script> | cell | ` + "`code`" + ` \x1b[31mred\x1b[0m @mention\n::error::pwned\r\n# heading`; !strings.Contains(out, want) {
			t.Errorf("the detail is not shown escaped on one line (%q):\n%s", want, out)
		}
	}
}

// TestSingularCounts: a count of one takes the singular noun ("1 byte",
// "1 run", "1 case"), never "1 bytes" or "run(s)".
func TestSingularCounts(t *testing.T) {
	t.Parallel()
	r := reporttest.Report()
	var target *report.Case
	var prog *report.Program
	for i := range r.Programs {
		for j := range r.Programs[i].Cases {
			if c := &r.Programs[i].Cases[j]; c.Verdict == verdict.False && target == nil {
				target, prog = c, &r.Programs[i]
			}
		}
	}
	if target == nil {
		t.Fatal("the fixture has no false case")
	}
	prog.Cases = []report.Case{*target}
	target = &prog.Cases[0]
	target.Event.Stdout, target.Event.StdoutBase64 = "x", ""
	target.Event.StdoutBytes, target.Event.StdoutKeptBytes = 1, 1
	target.SetStdin([]byte("y"))
	target.Expect.SameAs = &report.SameAs{Reference: "ref", Streams: []string{"stdout"}}
	target.ReferenceEvents = []report.Event{target.Event}
	var buf bytes.Buffer
	if err := Write(&buf, r, Options{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"actual (1 byte):", "stdin: 1 byte,", "(1 run; the exit code", "(0 of 1 case true)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, out)
		}
	}
}

// TestCommandsQuoted: the build's command and a case's are printed so
// that a reader sees where each argument begins: shell-quoted, inert.
func TestCommandsQuoted(t *testing.T) {
	t.Parallel()
	r := reporttest.FailedBuild()
	r.Programs[0].Build.Command = []string{"gcc", "-o", "/build/my prog", "/program/main.c"}
	c := report.Case{Name: "spaced", Line: 9, Col: 7, Args: []string{"two words", "a\nb", ""}, Verdict: verdict.False, Reason: "exit code 1, expected 0"}
	c.Event.Command = append([]string{"python3", "-I", "/program/main.py"}, c.Args...)
	c.Event.ExitCode = new(int)
	*c.Event.ExitCode = 1
	r.Programs = append(r.Programs, report.Program{Name: "p", File: "p.py", Verdict: verdict.False, Cases: []report.Case{c}})
	var buf bytes.Buffer
	if err := Write(&buf, r, Options{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"   build: gcc -o '/build/my prog' /program/main.c · exit code 1\n",
		"     command: python3 -I /program/main.py 'two words' $'a\\nb' ''\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, out)
		}
	}
}

// TestTimeIncludesBuild: a program's TIME is its build's and its runs'
// together, with the build's shown apart; a program without a build shows
// its runs' alone.
func TestTimeIncludesBuild(t *testing.T) {
	t.Parallel()
	r := reporttest.FailedBuild()
	r.Programs[0].DurationMS, r.Programs[0].Build.DurationMS = 300, 1200
	r.Programs = append(r.Programs, report.Program{Name: "plain", File: "p.py", Verdict: verdict.True, DurationMS: 250})
	var buf bytes.Buffer
	if err := Write(&buf, r, Options{}); err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, l := range strings.Split(buf.String(), "\n") {
		if f := strings.Fields(l); len(f) > 5 && (f[0] == "c" || f[0] == "plain") {
			rows[f[0]] = strings.Join(f[5:], " ")
		}
	}
	if rows["c"] != "1.5s (build 1.2s)" || rows["plain"] != "250ms" {
		t.Errorf("TIME %q, want 1.5s (build 1.2s) and 250ms:\n%s", rows, buf.String())
	}
}
