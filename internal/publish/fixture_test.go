package publish

import (
	"strings"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

func intp(v int) *int { return &v }

const testImage = "python@sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

// program builds a report program whose verdict follows its cases (false
// dominates, then undetermined), as verdict.Program folds them.
func program(name, file string, line int, cases ...report.Case) report.Program {
	p := report.Program{
		ID: "id-" + name, Name: name, File: file, Profile: "python", Line: line, Col: 5,
		Acquisition: runner.AcquisitionComplete,
		Settings:    report.Settings{Image: testImage, ProgramDir: "/program", Container: report.Container{ProgramMount: "volume:behaves-run-0001-program:/program:ro"}},
		DurationMS:  int64(100 * len(cases)),
		Verdict:     verdict.True,
		Cases:       cases,
	}
	und := false
	for _, c := range cases {
		switch c.Verdict {
		case verdict.False:
			if p.Verdict != verdict.False {
				p.Verdict, p.Reason = verdict.False, c.Name+": "+c.Reason
			}
		case verdict.Undetermined:
			und = true
			if p.Reason == "" {
				p.Reason = c.Name + ": " + c.Reason
			}
		}
	}
	if und && p.Verdict != verdict.False {
		p.Verdict = verdict.Undetermined
	}
	return p
}

// kase builds a case that exited with code and printed stdout and stderr,
// expected exit 0 and stdout equal to want.
func kase(name string, line int, v verdict.Verdict, reason string, code *int, want, stdout, stderr string, args ...string) report.Case {
	return report.Case{
		Name: name, Line: line, Col: 11, Args: args, Verdict: v, Reason: reason,
		Expect: report.Expect{
			ExitCodeVerdict: verdict.True,
			Stdout: &report.MatcherOutcome{Kind: verdict.Equals, Value: want, Normalize: verdict.NormalizeTrailing,
				Verdict: v, Expected: oneLine(want, 200), Actual: oneLine(stdout, 200)},
		},
		Event: report.Event{
			ExitCode: code, Stdout: stdout, Stderr: stderr,
			StdoutBytes: int64(len(stdout)), StderrBytes: int64(len(stderr)),
			Command:    append([]string{"python3", "-I", "/program/main.py"}, args...),
			DurationMS: 42,
			Limits:     report.Limits{TimeoutMS: 5000, MemoryBytes: 128 << 20},
		},
	}
}

func finish(r report.Report) report.Report {
	r.Schema = report.Schema
	r.Tool = report.Tool{Name: report.ToolName, Version: "v0.1.0-test"}
	r.RunID = "run-0001"
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
	r.Groups = report.GroupsOf(r.Programs, []int{1, 2})
	switch {
	case r.Counts.Programs.False > 0:
		r.Verdict = verdict.False
	case r.Counts.Programs.Undetermined > 0 || len(r.Programs) == 0:
		r.Verdict = verdict.Undetermined
	default:
		r.Verdict = verdict.True
	}
	return r
}

const fizz = "1\n2\nFizz\n4\nBuzz\n"

// fixture is a small run: a true program, a false one whose traceback
// names its file, one timed out, one truncated (undetermined), one whose
// image is missing, and a files: glob of three samples.
func fixture() report.Report {
	traceback := "Traceback (most recent call last):\n" +
		"  File \"/program/main.py\", line 9, in <module>\n    main()\n" +
		"  File \"/program/main.py\", line 4, in main\n    print(1/0)\n" +
		"ZeroDivisionError: division by zero\n"
	loop := kase("loop", 24, verdict.False, "timed out after 5s", nil, "", "", "", "--forever")
	loop.Event.TimedOut, loop.Event.ExitCode = true, intp(137) // Docker records its kill as 137
	loop.Expect.ExitCodeVerdict, loop.Expect.ExitCodeReason = verdict.False, "timed out after 5s"
	loop.Expect.Stdout = nil
	loop.StdinSize, loop.StdinExcerpt, loop.Event.StdinBytes = 4, "3\n5\n", 4
	big := kase("many lines", 44, verdict.Undetermined, "stdout: truncated at 25 of 1048576 bytes; the kept part agrees",
		intp(0), "line 1\n", "line 1\nline 2\nline 3\nli", "")
	big.Event.StdoutTruncated, big.Event.StdoutBytes = true, 1<<20
	missing := func(name string, line int) report.Case {
		c := kase(name, line, verdict.Undetermined, "image not present", nil, "x", "", "")
		c.Event.SandboxError = "image not present"
		return c
	}
	sample := func(base string, v verdict.Verdict, out string) report.Program {
		reason := ""
		if v == verdict.False {
			reason = `stdout: expected "1\n2\nFizz\n4\nBuzz", got "1\n2\n3"`
		}
		p := program("samples/"+base, "samples/fizzbuzz/"+base, 70, kase("up to 5", 14, v, reason, intp(0), fizz, out, "", "5"))
		p.Group = "samples"
		return p
	}
	crash := kase("up to 5", 14, verdict.False, "exit code: expected 0, got 1", intp(1), fizz, "", traceback, "5")
	crash.Expect.ExitCodeVerdict = verdict.False
	r := report.Report{
		Spec: "behaves.yml", SpecFile: "behaves.yml",
		Programs: []report.Program{
			program("fizzbuzz", "solutions/fizzbuzz.py", 10, kase("up to 5", 14, verdict.True, "", intp(0), fizz, fizz, "", "5")),
			program("crash", "solutions/crash.py", 20, crash, loop),
			program("big-output", "solutions/big.py", 40, big),
			program("missing-image", "solutions/missing.py", 60, missing("a", 64), missing("b", 66)),
			sample("a.py", verdict.True, fizz),
			sample("b.py", verdict.False, "1\n2\n3\n"),
			sample("c.py", verdict.True, fizz),
		},
	}
	r.Programs[2].Acquisition = runner.AcquisitionPartial
	r.Programs[2].AcquisitionReasons = []string{"create fails: creating container: connection reset"}
	r.Programs[2].SandboxWarnings = []string{"volume behaves-333 not removed: device busy"}
	r.Programs[3].Settings = report.Settings{}
	r.Programs[3].Acquisition = runner.AcquisitionError
	r.Programs[3].AcquisitionReasons = []string{"image not present: pull it before scoring"}
	return finish(r)
}

// hostile is text that tries every trick against the markdown and the
// runner's log: HTML, links, images, mentions, references, table cells,
// backtick runs of length 1 to 10, headings, a copy of the comment marker,
// a lone CR, a bidi override and a NUL.
func hostile() string {
	var sb strings.Builder
	sb.WriteString("</details></summary><img src=x onerror=alert(1)> [x](javascript:alert(1)) ![i](http://evil.example/i.png) ")
	sb.WriteString("@octocat #123 | a | b | <script>alert(2)</script> www.evil.example ")
	for n := 1; n <= 10; n++ {
		sb.WriteString(strings.Repeat("`", n) + "x ")
	}
	sb.WriteString("\n# heading\n" + markerPrefix + strings.Repeat("0", 64) + markerSuffix + "\n")
	sb.WriteString("<!-- behaves:comment spec=0 -->\rcr alone \u202egnp.exe\x00nul\n")
	sb.WriteString("::error::forged\n##[error]forged\n</details>\n```\n~~~\n</pre>\n")
	return sb.String()
}

// hostileReport puts hostile text in every string a report carries.
func hostileReport() report.Report {
	h := hostile()
	c := kase(h, 14, verdict.False, h, intp(1), h, h, h, h, "`"+h+"`")
	c.Expect.ExitCodeReason = h
	c.Expect.Stdout.Reason = h
	c.Expect.Stdout.Kind = verdict.Kind(h)
	c.StdinFile = h
	c.StdinSize, c.StdinExcerpt = int64(len(h))+100, h
	c.Event.ResourceLimit = runner.ResourceLimit(h)
	c.Event.SandboxError = h
	u := kase("u"+h, 15, verdict.Undetermined, h, nil, h, "", h)
	p := program(h, h, 10, c, u)
	p.Group = h // a files: entry's name, in the samples lines
	p.Reason = h
	p.Settings.Image = h
	p.Acquisition, p.AcquisitionReasons, p.SandboxWarnings = runner.AcquisitionPartial, []string{h}, []string{h}
	q := program("second", "solutions/second.py", 20, kase("fine", 16, verdict.True, "", intp(0), "", "", ""))
	// Two cases that never ran, for one hostile reason: one block.
	never := func(name string) report.Case {
		c := kase(name, 30, verdict.Undetermined, h, nil, h, "", "")
		c.Event.Command = nil
		return c
	}
	m := program("m"+h, "m"+h, 30, never("a"), never("b"))
	m.Acquisition, m.AcquisitionReasons = runner.AcquisitionError, []string{h}
	r := finish(report.Report{Spec: h, SpecFile: h, Programs: []report.Program{p, q, m}})
	r.Tool.Version = h
	r.RunID = h
	r.Error = h
	r.Interrupted = true
	return r
}

// hostileSpecErrors is a report of a spec that could not be loaded, its
// problems quoting hostile text.
func hostileSpecErrors() report.Report {
	h := hostile()
	return finish(report.Report{Spec: h, Error: h, SpecErrors: []report.SpecError{
		{File: h, Line: 3, Col: 5, Message: h},
		{File: "behaves.yml", Line: 4, Col: 1, Message: "fine"},
	}})
}

// missingImageCase is a case that never ran because its image is missing,
// as the runner reports one: undetermined, its sandbox error its reason.
func missingImageCase(name string) report.Case {
	c := kase(name, 30, verdict.Undetermined, "image not present: pull it before scoring", nil, "x", "", "")
	c.Event.SandboxError = "image not present: pull it before scoring"
	return c
}
