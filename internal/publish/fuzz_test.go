package publish

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// withText is a report with s in every string a person or a program
// controls: names, args, expected values, output, reasons, paths.
func withText(s string) report.Report {
	c := kase(s, 14, verdict.False, s, intp(1), s, s, s, s)
	c.Expect.ExitCodeReason, c.StdinFile, c.Event.SandboxError = s, s, s
	u := kase("u"+s, 15, verdict.Undetermined, s, nil, s, "", s)
	p := program(s, s, 10, c, u)
	p.SandboxWarnings = []string{s}
	r := finish(report.Report{Spec: s, SpecFile: s, Programs: []report.Program{p}})
	r.Tool.Version, r.RunID, r.Error = s, s, s
	return r
}

// FuzzInert checks, for any text in a report, what the renderers promise
// whatever the markdown renderer: the comment holds exactly one marker, on
// its first line; no output holds a raw CR, NUL or invalid UTF-8; every
// code span's delimiter is longer than any backtick run in the text it
// wraps; and every workflow command is one line that parses back to its
// annotation.
func FuzzInert(f *testing.F) {
	f.Add(hostile())
	f.Add("`")
	f.Add("a\rb\x00c\xff\u202e")
	f.Add(markerPrefix + strings.Repeat("a", 64) + markerSuffix)
	f.Fuzz(func(t *testing.T, s string) {
		r := withText(s)
		opt := Options{RunURL: testRunURL, Annotations: true}
		comment := Comment(r, opt)
		if strings.Count(comment, markerPrefix) != 1 || !strings.HasPrefix(comment, Marker(r)+"\n") {
			t.Fatalf("the comment does not hold exactly one marker, first: %q", comment)
		}
		for name, md := range map[string]string{"comment": comment, "summary": Summary(r, opt)} {
			if strings.ContainsAny(md, "\r\x00") || !utf8.ValidString(md) {
				t.Fatalf("%s holds a CR, a NUL or invalid UTF-8: %q", name, md)
			}
		}
		for _, in := range []string{s, "|" + s, s + "`"} {
			span := code(in, 80)
			body := strings.Trim(span, "`")
			if delim := len(span) - len(strings.TrimLeft(span, "`")); longestRun(body, '`') >= delim {
				t.Fatalf("code(%q) = %q: a backtick run inside can close it", in, span)
			}
		}
		anns := Annotations(r, AnnotationOptions{})
		lines, _ := WorkflowCommands(anns)
		for i, line := range lines {
			c, ok := parseCommand(line)
			if !ok || strings.ContainsAny(line, "\r\n") || c.data != anns[i].Message || c.props["title"] != anns[i].Title {
				t.Fatalf("command %q does not parse back to %+v", line, anns[i])
			}
		}
	})
}
