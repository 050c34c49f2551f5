package record

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/behaves-dev/behaves/internal/escape"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// Expectation is what a program did for a case, as record writes it: its
// exit code and the bytes of its stdout and stderr (a stderr equals is
// written only when it wrote any).
type Expectation struct {
	ExitCode       int
	Stdout, Stderr string
}

// observe is what the case's runs show the program did, or why they cannot
// be recorded ("" when they can).
func observe(c *report.Case) (Expectation, string) {
	if c.Verdict == verdict.Undetermined {
		if c.Nondeterministic {
			return Expectation{}, "its runs disagree (nondeterministic): " + c.Reason
		}
		return Expectation{}, "it is undetermined: " + c.Reason
	}
	events := []report.Event{c.Event}
	if len(c.Runs) > 0 {
		events = events[:0]
		for _, r := range c.Runs {
			events = append(events, r.Event)
		}
	}
	var first Expectation
	for i, ev := range events {
		got, why := observeEvent(&ev)
		if why != "" {
			if len(events) > 1 {
				why = fmt.Sprintf("run %d of %d: %s", i+1, len(events), why)
			}
			return Expectation{}, why
		}
		if i == 0 {
			first = got
			continue
		}
		if d := differ(first, got, "run 1", fmt.Sprintf("run %d", i+1)); d != "" {
			return Expectation{}, "its runs differ: " + d
		}
	}
	return first, ""
}

// observeEvent is what one run shows, or why it cannot be recorded.
func observeEvent(ev *report.Event) (Expectation, string) {
	switch {
	case ev.BuildFailure != "":
		return Expectation{}, "its build failed"
	case ev.SandboxError != "":
		return Expectation{}, "the sandbox could not observe it: " + ev.SandboxError
	case ev.TimedOut:
		return Expectation{}, "it timed out"
	case ev.ResourceLimit == runner.LimitMemory:
		return Expectation{}, "it was killed at the memory limit"
	case ev.ResourceLimit != runner.LimitNone:
		return Expectation{}, fmt.Sprintf("the sandbox stopped it (%s limit)", ev.ResourceLimit)
	case ev.ExitCode == nil:
		return Expectation{}, "it left no exit code"
	}
	exp := Expectation{ExitCode: *ev.ExitCode}
	for _, s := range []struct {
		name               string
		text, b64          string
		truncated, omitted bool
		kept, written      int64
		into               *string
	}{
		{"stdout", ev.Stdout, ev.StdoutBase64, ev.StdoutTruncated, ev.StdoutOmitted, ev.StdoutKeptBytes, ev.StdoutBytes, &exp.Stdout},
		{"stderr", ev.Stderr, ev.StderrBase64, ev.StderrTruncated, ev.StderrOmitted, ev.StderrKeptBytes, ev.StderrBytes, &exp.Stderr},
	} {
		switch {
		case s.truncated:
			return Expectation{}, fmt.Sprintf("its %s was cut at the profile's output_limit (%s kept of %s): raise output_limit to record it",
				s.name, verdict.FormatSize(s.kept), verdict.FormatSize(s.written))
		case s.omitted:
			return Expectation{}, fmt.Sprintf("its %s was left out of the report (--max-report-size): raise --max-report-size to record it", s.name)
		}
		*s.into = s.text
		if s.b64 != "" {
			b, err := base64.StdEncoding.DecodeString(s.b64)
			if err != nil {
				return Expectation{}, fmt.Sprintf("its %s in the report does not decode: %v", s.name, err)
			}
			*s.into = string(b)
		}
		if int64(len(*s.into)) != s.kept {
			return Expectation{}, fmt.Sprintf("the report holds %d bytes of its %s, not the %d kept", len(*s.into), s.name, s.kept)
		}
	}
	return exp, ""
}

// differ says how b (named bName) differs from a (aName), "" when it
// does not: "run 2 exits 1, run 1 0", "sum/b.py wrote other stdout than
// sum/a.py (line 3: "Fizz" against "fizz")".
func differ(a, b Expectation, aName, bName string) string {
	switch {
	case a.ExitCode != b.ExitCode:
		return fmt.Sprintf("%s exits %d, %s %d", bName, b.ExitCode, aName, a.ExitCode)
	case a.Stdout != b.Stdout:
		return fmt.Sprintf("%s wrote other stdout than %s (%s)", bName, aName, firstDiff(b.Stdout, a.Stdout))
	case a.Stderr != b.Stderr:
		return fmt.Sprintf("%s wrote other stderr than %s (%s)", bName, aName, firstDiff(b.Stderr, a.Stderr))
	}
	return ""
}

// firstDiff names the first line where b and a differ, both shown short
// and escaped.
func firstDiff(b, a string) string {
	bl, al := strings.SplitAfter(b, "\n"), strings.SplitAfter(a, "\n")
	i := 0
	for i < len(bl) && i < len(al) && bl[i] == al[i] {
		i++
	}
	show := func(lines []string) string {
		if i >= len(lines) || lines[i] == "" {
			return "nothing"
		}
		return escape.Quote(escape.Shorten(lines[i], 60))
	}
	return fmt.Sprintf("line %d: %s against %s", i+1, show(bl), show(al))
}
