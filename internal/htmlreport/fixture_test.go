package htmlreport

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

func intp(v int) *int { return &v }

// program builds a report program whose verdict folds from its cases.
func program(name, file string, cases ...report.Case) report.Program {
	p := report.Program{
		ID: "id-" + name, Name: name, File: file, Profile: "python", Line: 10, Col: 5,
		Acquisition: runner.AcquisitionComplete, DurationMS: int64(100 * len(cases)),
		AcquisitionReasons: []string{}, SandboxWarnings: []string{}, Cases: cases,
	}
	results := make([]verdict.CaseResult, len(cases))
	for i, c := range cases {
		results[i] = verdict.CaseResult{Verdict: c.Verdict, Reason: c.Reason}
	}
	p.Verdict, p.Reason = verdict.Program(results)
	return p
}

// kase builds a case that expected exit 0 and stdout equal to want, and
// printed stdout (kept as base64 when it is not UTF-8, as the report keeps
// it).
func kase(name string, v verdict.Verdict, reason, want, stdout, stderr string, args ...string) report.Case {
	c := report.Case{
		Name: name, Line: 14, Col: 11, Args: append([]string{}, args...), Verdict: v, Reason: reason,
		Expect: report.Expect{
			ExitCodeVerdict: verdict.True,
			Stdout: &report.MatcherOutcome{Kind: verdict.Equals, Value: want, Normalize: verdict.NormalizeTrailing,
				Verdict: v, Reason: reason},
		},
		Event: report.Event{
			ExitCode: intp(0), StdoutBytes: int64(len(stdout)), StderrBytes: int64(len(stderr)),
			StdoutKeptBytes: int64(len(stdout)), StderrKeptBytes: int64(len(stderr)),
			Command: []string{"python3", "-I", "/program/main.py"}, DurationMS: 42,
			Limits: report.Limits{TimeoutMS: 5000, MemoryBytes: 128 << 20},
		},
	}
	c.Event.Stdout, c.Event.StdoutBase64 = encode(stdout)
	c.Event.Stderr, c.Event.StderrBase64 = encode(stderr)
	return c
}

func encode(s string) (text, b64 string) {
	if utf8.ValidString(s) {
		return s, ""
	}
	return "", base64.StdEncoding.EncodeToString([]byte(s))
}

// finish fills in what Read checks: counts, groups and the verdict.
func finish(r report.Report) report.Report {
	r.Schema = report.Schema
	r.Tool = report.Tool{Name: report.ToolName, Version: "v0.1.0-test"}
	if r.RunID == "" {
		r.RunID = "run-0001"
	}
	r.StartedAt = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	r.DurationMS = 6789
	if r.SpecErrors == nil {
		r.SpecErrors = []report.SpecError{}
	}
	r.Counts = report.Counts{}
	for _, p := range r.Programs {
		r.Counts.Programs.Add(p.Verdict)
		for _, c := range p.Cases {
			r.Counts.Cases.Add(c.Verdict)
		}
	}
	r.Groups = report.GroupsOf(r.Programs, []int{1, 2, 5})
	if r.Groups == nil {
		r.Groups = []report.Group{}
	}
	switch {
	case r.Counts.Programs.False > 0:
		r.Verdict = verdict.False
	case r.Counts.Programs.Undetermined > 0 || len(r.Programs) == 0 || r.Error != "" || r.Interrupted:
		r.Verdict = verdict.Undetermined
	default:
		r.Verdict = verdict.True
	}
	return r
}

// roundTrip encodes r and reads it back as behaves html does: a fixture
// that Read refuses is a broken test, not a page to render.
func roundTrip(t testing.TB, r report.Report) report.Report {
	t.Helper()
	got, err := reportread.Read(bytes.NewReader(reporttest.Encoded(t, r)), 1<<30)
	if err != nil {
		t.Fatalf("the fixture is not a valid report: %v", err)
	}
	return got
}

const fizz = "1\n2\nFizz\n4\nBuzz\n"

// fixture is a small run: a true program, an off-by-one whose diff has a
// changed line, a crash, an undetermined program and three samples of a
// files: entry.
func fixture() report.Report {
	sample := func(name string, v verdict.Verdict, out string) report.Program {
		reason := ""
		if v == verdict.False {
			reason = `stdout: expected "1\n2\nFizz\n4\nBuzz", got "1\n2\nFizz\n4\n5"`
		}
		p := program("samples/"+name, "samples/fizzbuzz/"+name, kase("up to 5", v, reason, fizz, out, "", "5"))
		p.Group = "samples"
		return p
	}
	crash := kase("up to 5", verdict.False, "exit code: expected 0, got 1", fizz, "",
		"Traceback (most recent call last):\nZeroDivisionError: division by zero\n", "5")
	crash.Event.ExitCode = intp(1)
	crash.Expect.ExitCodeVerdict, crash.Expect.ExitCodeReason = verdict.False, "exit code 1, expected 0"
	missing := kase("a", verdict.Undetermined, "image not present: pull it before scoring", "x", "", "")
	missing.Event.ExitCode, missing.Event.SandboxError = nil, "image not present"
	return finish(report.Report{
		Spec: "behaves.yml", SpecFile: "behaves.yml",
		Programs: []report.Program{
			program("fizzbuzz", "solutions/fizzbuzz.py", kase("up to 5", verdict.True, "", fizz, fizz, "", "5")),
			program("off-by-one", "solutions/off.py", kase("up to 5", verdict.False,
				`stdout: expected "1\n2\nFizz\n4\nBuzz", got "1\n2\nFizz\n4\nFizz"`, fizz, "1\n2\nFizz\n4\nFizz\n", "", "5")),
			program("crash", "solutions/crash.py", crash),
			program("missing-image", "solutions/missing.py", missing),
			sample("a.py", verdict.True, fizz),
			sample("b.py", verdict.False, "1\n2\nFizz\n4\n5\n"),
			sample("c.py", verdict.True, fizz),
		},
	})
}

// hostileStrings try to leave the text they are put in: markup, a
// closing textarea and script, an attribute breakout, a CDATA end, a
// comment, line and paragraph separators, bidi overrides, control bytes,
// a NUL and bytes that are not UTF-8.
var hostileStrings = []string{
	`<script>document.documentElement.setAttribute("data-pwned","script")</script>`,
	`</textarea></title></style></script><b id="pwned-b">bold</b>`,
	`"><img src=x onerror="document.documentElement.setAttribute('data-pwned','img')">`,
	`' onmouseover='alert(1)' x='`,
	`]]><![CDATA[<svg onload=alert(1)>]]>`,
	`<!-- comment --><iframe src="javascript:alert(1)"></iframe>`,
	"line\u2028separator\u2029paragraph",
	"bidi \u202egnp.exe\u202c",
	"ctl \x01\x1b[31mred\x7f nul\x00",
	"bad utf-8 \xff\xfe\xc3",
	`javascript:alert(1)`,
	`{{.Script}} @CSP@`,
}

func hostile() string { return strings.Join(hostileStrings, " | ") }

// hostileReport puts hostile text in every string a report carries that
// the page shows.
func hostileReport() report.Report {
	h := hostile()
	multi := strings.Join(hostileStrings, "\n") + "\n"
	c := kase(h, verdict.False, h, multi, multi+"extra\n", multi, h, h)
	c.Expect.ExitCodeReason = h
	c.Expect.Stdout.Reason = h
	c.StdinFile = h
	c.StdinSize, c.StdinExcerpt = int64(len(h))+100, ""
	c.StdinExcerptBase64 = base64.StdEncoding.EncodeToString([]byte(h))
	c.Event.SandboxError = h
	u := kase("u"+h, verdict.Undetermined, h, h, "", h)
	u.Expect.Stdout.Kind = verdict.Regex
	p := program(h, h, c, u)
	p.Group = h
	p.Reason = h
	p.AcquisitionReasons, p.SandboxWarnings = []string{h}, []string{h}
	q := program("second", "solutions/second.py", kase("fine", verdict.True, "", "", "", ""))
	r := report.Report{Spec: h, SpecFile: h, Programs: []report.Program{p, q}}
	r = finish(r)
	r.Tool.Version = h
	r.Error = h
	r.Interrupted = true
	r.Verdict = verdict.False
	return r
}

// manyPrograms is a generated run of n programs, every third false with
// a large output (the same 64 KiB for each, shared, so that the test holds
// little), every seventh undetermined, the rest true; and one files:
// entry of all of them.
func manyPrograms(n int) report.Report {
	var big strings.Builder
	for i := 0; big.Len() < 64<<10; i++ {
		fmt.Fprintf(&big, "line %d <&> of a long output\n", i)
	}
	out := big.String()
	want := strings.Replace(out, "line 100 ", "line one hundred ", 1)
	r := report.Report{Spec: "behaves.yml", SpecFile: "behaves.yml"}
	for i := range n {
		name := fmt.Sprintf("sample-%04d.py", i)
		var c report.Case
		switch {
		case i%3 == 0:
			c = kase("big", verdict.False, "stdout: differs", want, out, "")
		case i%7 == 0:
			c = kase("big", verdict.Undetermined, "image not present", want, "", "")
			c.Event.ExitCode = nil
		default:
			c = kase("big", verdict.True, "", "ok\n", "ok\n", "")
		}
		p := program("gen/"+name, "gen/"+name, c)
		p.Group = "gen"
		r.Programs = append(r.Programs, p)
	}
	return finish(r)
}

func reportOf(ps ...report.Program) report.Report {
	return report.Report{Spec: "behaves.yml", SpecFile: "behaves.yml", Programs: ps}
}
