package junit

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	gojunit "github.com/joshdk/go-junit"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/goldentest"
	"github.com/behaves-dev/behaves/internal/junit/junittest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// controls is every C0 control byte and DEL.
var controls = func() string {
	var b strings.Builder
	for c := 0; c < 0x20; c++ {
		b.WriteByte(byte(c))
	}
	b.WriteByte(0x7f)
	return b.String()
}()

// hostileText is valid UTF-8 that XML cannot carry as it is: every
// control byte, CDATA's end and start, markup, references, C1 controls,
// the two noncharacters XML excludes, and a bidi override.
var hostileText = "start " + controls + " ]]> ]]]]> ]]>]]> <![CDATA[ </testcase></testsuite></testsuites> <!-- &amp; &#x1; &#0; " +
	"\u0085\u009f \ufffe\uffff \u202e end\n"

// hostileBytes is not UTF-8: invalid bytes, a lone surrogate encoded in
// UTF-8 (ED A0 80), and markup.
var hostileBytes = "ok \xff\xfe \xed\xa0\x80 ]]> </testcase> \x00\n"

func intp(v int) *int { return &v }

func ev(code *int, stdout, stderr string) runner.Event {
	return runner.Event{
		ExitCode:    code,
		Stdout:      runner.Stream{Data: []byte(stdout), Bytes: int64(len(stdout))},
		Stderr:      runner.Stream{Data: []byte(stderr), Bytes: int64(len(stderr))},
		Command:     []string{"sh", "/program/main.sh"},
		ImageDigest: "sha256:" + strings.Repeat("b", 64),
		Duration:    42 * time.Millisecond,
		Limits:      runner.Limits{TimeoutMS: 2000},
	}
}

func kase(name string, line int, exp verdict.Expectation, args ...string) spec.Case {
	return spec.Case{Name: name, Pos: spec.Pos{File: "behaves.yml", Line: line, Col: 9},
		Invocation: runner.Invocation{Args: args}, Expect: exp}
}

func prog(name, file string, line int, cases ...spec.Case) spec.Program {
	return spec.Program{ID: "id-" + file, Name: name, File: file, Profile: "shell",
		Pos:     spec.Pos{File: "behaves.yml", Line: line, Col: 5},
		Program: runner.Program{Entry: "main.sh", Files: map[string][]byte{"main.sh": []byte("echo\n")}},
		Cases:   cases}
}

var startedAt = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// hostileReport is a run with the three verdicts whose output, names and
// reasons hold everything XML cannot carry. It goes through the JSON
// report and reportread.Read, as `behaves junit` reads one.
func hostileReport(t *testing.T) report.Report {
	t.Helper()
	equals := func(s string) *verdict.Matcher {
		return &verdict.Matcher{Kind: verdict.Equals, Value: s, Normalize: verdict.NormalizeTrailing}
	}
	long := strings.Repeat("0123456789abcdef", 600) + "é" // 9602 bytes
	sp := &spec.Spec{Path: "behaves.yml", Root: ".", Programs: []spec.Program{
		prog("good", "good.sh", 10, kase("prints", 12, verdict.Expectation{Stdout: equals("hi")})),
		prog("evil\x01<p a=\"1\">&amp;]]>\n\r\t", "evil.sh", 20,
			kase("text ]]> </testcase>\x1b[31m", 22, verdict.Expectation{Stdout: equals("x\x00]]>")}, "\x01", "]]>"),
			kase("bytes", 24, verdict.Expectation{}),
			kase("sandbox", 26, verdict.Expectation{}),
			kase("long", 28, verdict.Expectation{Stdout: equals("short")}),
		),
	}}
	sp.Programs[1].Cases[0].Invocation.Stdin = []byte("in\x00put ]]>")
	// The event's command ends in the case's args, as the sandbox's does.
	hostile := ev(intp(1), hostileText, hostileText)
	hostile.Command = append(hostile.Command, "\x01", "]]>")
	truncated := ev(intp(0), long, "")
	truncated.Stdout.Truncated = true
	truncated.Stdout.Bytes = 1 << 20
	obs := []runner.Observation{
		{ExecutionID: "e1", Acquisition: runner.AcquisitionComplete, Events: []runner.Event{ev(intp(0), "hi\n", "")}},
		{ExecutionID: "e2", Acquisition: runner.AcquisitionPartial, Reasons: []string{"sandbox: lost \x07 ]]>"}, Events: []runner.Event{
			hostile,
			ev(intp(0), hostileBytes, hostileBytes),
			{SandboxError: "creating container: \x1b]0;pwned\x07 ]]> </error>"},
			truncated,
		}},
	}
	results := [][]verdict.CaseResult{
		{{Verdict: verdict.True}},
		{
			{Verdict: verdict.False, Reason: "stdout: expected \"x\\x00]]>\", got \x00\x01 ]]> </failure>",
				Checks: []verdict.Check{{What: "stdout", Verdict: verdict.False, Expected: "\"x\x00]]>\"", Actual: hostileText[:40], Reason: "differs \x02"}}},
			{Verdict: verdict.False, Reason: "exit code 0 \xff, expected 1"},
			{Verdict: verdict.Undetermined, Reason: "creating container: \x1b]0;pwned\x07 ]]> </error>"},
			{Verdict: verdict.Undetermined, Reason: "stdout cut at 64KiB: the kept part agrees"},
		},
	}
	in := assemble.Input{
		Spec:      sp,
		Programs:  []assemble.Program{reporttest.Ran(sp.Programs[0], obs[0], 0, results[0]...), reporttest.Ran(sp.Programs[1], obs[1], 0, results[1]...)},
		RunID:     "run-0001",
		StartedAt: startedAt,
		Duration:  1234 * time.Millisecond,
		Version:   "test",
	}
	return roundTrip(t, assemble.Report(in))
}

// roundTrip writes r as the JSON report and reads it back, checked.
func roundTrip(t *testing.T, r report.Report) report.Report {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.json")
	if err := reportwrite.WriteJSON(path, r); err != nil {
		t.Fatal(err)
	}
	got, err := reporttest.ReadFile(t, path, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func render(t *testing.T, r report.Report, opt Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, r, opt); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestHostileReport(t *testing.T) {
	t.Parallel()
	r := hostileReport(t)
	data := render(t, r, Options{})
	goldentest.Check(t, "hostile.xml", data)
	suites := junittest.Check(t, data)

	if len(suites) != 2 {
		t.Fatalf("%d suites, want one per program (2)", len(suites))
	}
	if got, want := suites[1].Name, Text(r.Programs[1].Name); got != want {
		t.Errorf("suite name %q, want %q", got, want)
	}
	statuses := map[string]gojunit.Status{}
	tests := map[string]gojunit.Test{}
	for _, s := range suites {
		for _, tc := range s.Tests {
			statuses[tc.Name] = tc.Status
			tests[tc.Name] = tc
		}
	}
	caseName := Text(r.Programs[1].Cases[0].Name)
	want := map[string]gojunit.Status{
		"prints": gojunit.StatusPassed, caseName: gojunit.StatusFailed, "bytes": gojunit.StatusFailed,
		"sandbox": gojunit.StatusError, "long": gojunit.StatusError,
	}
	if len(statuses) != len(want) {
		t.Errorf("testcases %v, want %v", statuses, want)
	}
	for name, st := range want {
		if statuses[name] != st {
			t.Errorf("testcase %q: status %q, want %q", name, statuses[name], st)
		}
	}

	// What a consumer reads back is exactly what behaves meant to show:
	// the text with its controls made visible, "]]>" whole again.
	text := tests[caseName]
	if text.SystemOut != Text(hostileText) || text.SystemErr != Text(hostileText) {
		t.Errorf("system-out read back as %q,\nwant %q", text.SystemOut, Text(hostileText))
	}
	for _, s := range []string{`\x00`, `\x01`, `\x1b`, `\x0d`, `\x7f`, `\u0085`, `\ufffe`, `\uffff`, "]]>", "</testcase>", "&amp;", `\u202e`} {
		if !strings.Contains(text.SystemOut, s) {
			t.Errorf("system-out lacks %q", s)
		}
	}
	if text.Message != Text(r.Programs[1].Cases[0].Reason) {
		t.Errorf("failure message %q, want %q", text.Message, Text(r.Programs[1].Cases[0].Reason))
	}
	if text.Error == nil || !strings.Contains(text.Error.Error(), `stdin: 10 bytes, starting "in\u0000put ]]>"`) {
		t.Errorf("failure details: %v", text.Error)
	}

	// Output that is not UTF-8 is base64 of the exact bytes.
	b64 := regexp.MustCompile(`(?s)base64:\]\n(.*)$`)
	for _, got := range []string{tests["bytes"].SystemOut, tests["bytes"].SystemErr} {
		m := b64.FindStringSubmatch(got)
		if m == nil {
			t.Fatalf("no base64 in %q", got)
		}
		raw, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(m[1], "\n", ""))
		if err != nil || string(raw) != hostileBytes {
			t.Errorf("base64 decodes to %q (%v), want %q", raw, err, hostileBytes)
		}
	}

	// Output is bounded, on a rune boundary, and says so.
	long := tests["long"].SystemOut
	if !strings.HasPrefix(long, "0123456789abcdef") || !strings.Contains(long, "[behaves: stdout: 4096 of 9602 kept bytes shown; the program wrote 1048576 bytes, cut at output_limit") {
		t.Errorf("long output: %q", long[max(0, len(long)-200):])
	}
	if len(long) > DefaultMaxStreamBytes+300 {
		t.Errorf("long output is %d bytes, above the bound", len(long))
	}
	if tests["sandbox"].SystemOut != "" {
		t.Errorf("a case with no output has system-out %q", tests["sandbox"].SystemOut)
	}
	if tests["prints"].SystemOut != "" || tests["prints"].Error != nil {
		t.Errorf("a true case carries output or an error: %+v", tests["prints"])
	}
}

func TestMaxStreamBytes(t *testing.T) {
	t.Parallel()
	data := render(t, hostileReport(t), Options{MaxStreamBytes: 10})
	for _, s := range junittest.Check(t, data) {
		for _, tc := range s.Tests {
			if tc.Name == "long" && !strings.HasPrefix(tc.SystemOut, "0123456789\n[behaves: stdout: 10 of 9602") {
				t.Errorf("system-out %q", tc.SystemOut)
			}
		}
	}
}

// TestRunFailed: a report whose run failed (here: spec errors, nothing
// ran) is an error testcase, never an empty suite that passes.
func TestRunFailed(t *testing.T) {
	t.Parallel()
	var errs []spec.Error
	for i := range 105 {
		errs = append(errs, spec.Error{Pos: spec.Pos{File: "behaves.yml", Line: i + 1, Col: 3}, Msg: "unknown key \"\x1b]8;;x\x07\" ]]>"})
	}
	r := roundTrip(t, assemble.Report(assemble.Input{SpecPath: "behaves.yml", RunID: "run-0002", StartedAt: startedAt,
		Err: errors.New("the spec has 105 problems; nothing ran"), SpecErrors: errs, Version: "test"}))
	data := render(t, r, Options{})
	goldentest.Check(t, "spec_errors.xml", data)
	suites := junittest.Check(t, data)
	if len(suites) != 1 || len(suites[0].Tests) != 1 {
		t.Fatalf("suites %+v, want one with one testcase", suites)
	}
	tc := suites[0].Tests[0]
	if tc.Status != gojunit.StatusError || tc.Name != runCase || tc.Message != "the spec has 105 problems; nothing ran" {
		t.Errorf("testcase %+v", tc)
	}
	body := tc.Error.Error()
	if !strings.Contains(body, `behaves.yml:1:3: unknown key "\x1b]8;;x\x07" ]]>`) || !strings.Contains(body, "and 5 more problems") {
		t.Errorf("error body %q", body)
	}
	totals := gojunit.Totals{}
	for _, s := range suites {
		totals.Tests += s.Totals.Tests
		totals.Error += s.Totals.Error
		totals.Passed += s.Totals.Passed
	}
	if totals.Error != 1 || totals.Passed != 0 {
		t.Errorf("totals %+v", totals)
	}
}

// TestCheckersRefuseInvalidXML keeps the checks above honest: each of
// them refuses what XML 1.0 cannot carry.
func TestCheckersRefuseInvalidXML(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"raw control":        "<testsuites><testsuite name=\"a\"><testcase name=\"b\"><system-out>\x01</system-out></testcase></testsuite></testsuites>",
		"control reference":  `<testsuites><testsuite name="a"><testcase name="b"><system-out>&#x1;</system-out></testcase></testsuite></testsuites>`,
		"control in CDATA":   "<testsuites><testsuite name=\"a\"><testcase name=\"b\"><system-out><![CDATA[\x1b]]></system-out></testcase></testsuite></testsuites>",
		"invalid UTF-8":      "<testsuites><testsuite name=\"a\"><testcase name=\"b\"><system-out>\xff</system-out></testcase></testsuite></testsuites>",
		"U+FFFE":             "<testsuites><testsuite name=\"\ufffe\"></testsuite></testsuites>",
		"unsplit CDATA end":  "<testsuites><testsuite name=\"a\"><testcase name=\"b\"><system-out><![CDATA[a]]>b]]></system-out></testcase></testsuite></testsuites>",
		"markup from output": "<testsuites><testsuite name=\"a\"><testcase name=\"b\"><system-out></testcase></system-out></testcase></testsuite></testsuites>",
	} {
		wf := junittest.WellFormed([]byte(doc))
		ok, lint := junittest.Xmllint(t, []byte(doc))
		if wf == nil {
			t.Errorf("%s: Go's strict decoder accepts it", name)
		}
		if ok && lint == nil {
			t.Errorf("%s: xmllint accepts it", name)
		}
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain text, 'quotes' & <tags>": "plain text, 'quotes' & <tags>",
		"tab\tnewline\n":                "tab\tnewline\n",
		"cr\r\nlf":                      `cr\x0d` + "\nlf",
		"\x00\x01\x1b\x7f":              `\x00\x01\x1b\x7f`,
		"\u0085\u009f\u00a0":            `\u0085\u009f` + "\u00a0",
		"\ufffd\ufffe\uffff\U0010ffff":  "\ufffd" + `\ufffe\uffff` + "\U0010ffff",
		"\xff\xed\xa0\x80é":             `\xff\xed\xa0\x80` + "é",
		`back\slash \x41`:               `back\slash \x41`,
		"a\u202eb\u2066c\u200fd":        `a\u202eb\u2066c\u200fd`,
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
		if got := Text(Text(in)); got != Text(in) {
			t.Errorf("Text is not idempotent on %q", in)
		}
	}
}

// FuzzText: any bytes, through Text, stand in an attribute and in CDATA
// of a well-formed document and read back as Text made them.
func FuzzText(f *testing.F) {
	f.Add(hostileText)
	f.Add(hostileBytes)
	f.Add("]]]]>>]]>")
	f.Fuzz(func(t *testing.T, s string) {
		got := Text(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Text(%q) = %q is not UTF-8", s, got)
		}
		var buf bytes.Buffer
		x := &xw{w: bufio.NewWriter(&buf)}
		x.open("testsuites")
		x.open("testsuite", "name", s)
		x.open("testcase", "name", s)
		x.open("system-out")
		x.cdata(s)
		x.close("system-out")
		x.close("testcase")
		x.close("testsuite")
		x.close("testsuites")
		if err := x.w.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := junittest.WellFormed(buf.Bytes()); err != nil {
			t.Fatalf("%q: %v\n%s", s, err, buf.Bytes())
		}
		suites, err := gojunit.Ingest(buf.Bytes())
		if err != nil || len(suites) != 1 || len(suites[0].Tests) != 1 {
			t.Fatalf("%q: go-junit: %v %+v", s, err, suites)
		}
		tc := suites[0].Tests[0]
		if suites[0].Name != got || tc.Name != got || tc.SystemOut != got {
			t.Fatalf("%q read back as suite %q, case %q, out %q; want %q", s, suites[0].Name, tc.Name, tc.SystemOut, got)
		}
	})
}

// TestNondeterministic: a case whose runs disagreed is an error of type
// nondeterministic, apart from the other undetermined ones.
func TestNondeterministic(t *testing.T) {
	t.Parallel()
	r := report.Report{Schema: report.Schema, RunID: "r", Programs: []report.Program{{Name: "coin", Verdict: verdict.Undetermined,
		Cases: []report.Case{
			{Name: "flip", Verdict: verdict.Undetermined, Nondeterministic: true, Reason: "nondeterministic: 1 of 2 runs true (run 2 false: no)"},
			{Name: "lost", Verdict: verdict.Undetermined, Reason: "not run"},
		}}}}
	var buf bytes.Buffer
	if err := Write(&buf, r, Options{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, `type="nondeterministic"`) || strings.Count(out, `type="undetermined"`) != 1 {
		t.Errorf("want one error of type nondeterministic and one undetermined:\n%s", out)
	}
}

// A timed-out run's 137 is the sandbox's kill: the JUnit text says the
// program was stopped, never that it exited 137.
func TestTimedOutIsNotExit137(t *testing.T) {
	t.Parallel()
	sp := &spec.Spec{Path: "behaves.yml", Root: ".", Programs: []spec.Program{
		prog("loop", "loop.sh", 10, kase("forever", 12, verdict.Expectation{})),
	}}
	e := ev(intp(137), "", "")
	e.TimedOut, e.Limits.TimeoutMS = true, 5000
	in := assemble.Input{Spec: sp, RunID: "run-0001", StartedAt: startedAt, Version: "test",
		Programs: []assemble.Program{reporttest.Ran(sp.Programs[0], runner.Observation{ExecutionID: "e1", Acquisition: runner.AcquisitionComplete, Events: []runner.Event{e}}, 0)}}
	out := string(render(t, roundTrip(t, assemble.Report(in)), Options{}))
	if strings.Contains(out, "exit code: 137") {
		t.Errorf("the JUnit text presents 137 as the program's exit code:\n%s", out)
	}
	if !strings.Contains(out, "exit code: none: the sandbox stopped the program (timed out after 5s)") {
		t.Errorf("the JUnit text does not say the program was stopped:\n%s", out)
	}
}

// TestCaseDetailsFolderProgram: a case's details name a folder program by
// its folder and entry.
func TestCaseDetailsFolderProgram(t *testing.T) {
	t.Parallel()
	c := report.Case{Name: "c", Line: 3, Col: 5}
	for _, tt := range []struct {
		p    report.Program
		want string
	}{
		{report.Program{Name: "p", File: "p.py", Profile: "py"}, "program: p.py (profile py)"},
		{report.Program{Name: "p", File: "app", Dir: "app", Profile: "py"}, "program: folder app (profile py)"},
		{report.Program{Name: "p", File: "app", Dir: "app", Entry: "run.sh", Profile: "py"}, "program: folder app, entry run.sh (profile py)"},
	} {
		if got := caseDetails(report.Report{Spec: "behaves.yml"}, &tt.p, &c); !strings.Contains(got, tt.want+"\n") {
			t.Errorf("details:\n%s\nwant the line %q", got, tt.want)
		}
	}
}

// TestCaseFilePosition: a case from a cases or inputs file is placed at
// its line of that file (the testcase's file and line, the details' first
// line), never at that line of the spec.
func TestCaseFilePosition(t *testing.T) {
	t.Parallel()
	r := report.Report{Schema: report.Schema, RunID: "r", Spec: "evals/rle.yml", SpecFile: "evals/rle.yml",
		Programs: []report.Program{{Name: "rle", File: "rle.py", Verdict: verdict.False, Cases: []report.Case{
			{Name: "#3", File: "evals/inputs.jsonl", Line: 3, Col: 1, Verdict: verdict.False, Reason: "not the same as reference"},
			{Name: "inline", Line: 9, Col: 7, Verdict: verdict.False, Reason: "exit code"},
		}}}}
	out := string(render(t, r, Options{}))
	for _, w := range []string{
		`name="#3" classname="rle" time="0.000" file="evals/inputs.jsonl" line="3"`,
		"evals/inputs.jsonl:3:1: rle / #3\n",
		`name="inline" classname="rle" time="0.000" file="evals/rle.yml" line="9"`,
		"evals/rle.yml:9:7: rle / inline\n",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("the JUnit XML lacks %q:\n%s", w, out)
		}
	}
}
