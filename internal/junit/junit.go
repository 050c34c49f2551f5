package junit

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/behaves-dev/behaves/internal/escape"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// DefaultMaxStreamBytes is how much of each stream of a case that is not
// true goes into the JUnit file when Options.MaxStreamBytes is 0.
const DefaultMaxStreamBytes = 4 << 10

// Bounds on the other untrusted text: a name or a message in an attribute,
// a line of a failure's details, and the spec errors listed.
const (
	maxAttrBytes   = 1 << 10
	maxLineBytes   = 2 << 10
	maxSpecErrors  = 100
	base64LineSize = 76
)

// Options tune Write.
type Options struct {
	// MaxStreamBytes bounds the bytes of each stream shown for a case
	// (0: DefaultMaxStreamBytes). Base64 takes 4 characters for 3 bytes.
	MaxStreamBytes int
}

// runSuite and runCase name the testsuite and testcase of a run that
// failed as a whole.
const (
	runSuite = "behaves"
	runCase  = "run"
)

// WriteFile writes the JUnit XML of r to path atomically: a reader sees
// the old file or the whole new one.
func WriteFile(path string, r report.Report, opt Options) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing JUnit %s: %w", path, err)
	}
	tmp := f.Name()
	err = Write(f, r, opt)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return errors.Join(fmt.Errorf("writing JUnit %s: %w", path, err), removeIfThere(tmp))
	}
	return nil
}

func removeIfThere(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// tally counts a suite's testcases the JUnit way.
type tally struct{ tests, failures, errors int }

func (t *tally) add(v verdict.Verdict) {
	t.tests++
	switch v {
	case verdict.True:
	case verdict.False:
		t.failures++
	default: // undetermined, and anything else: never a pass
		t.errors++
	}
}

// runFailed says why the run as a whole is not settled, or "".
func runFailed(r report.Report) string {
	switch {
	case r.Error != "":
		return r.Error
	case r.Interrupted:
		return "interrupted"
	case len(r.Programs) == 0:
		return "no program was judged"
	}
	return ""
}

// Write writes the JUnit XML of r to w.
func Write(w io.Writer, r report.Report, opt Options) error {
	if opt.MaxStreamBytes <= 0 {
		opt.MaxStreamBytes = DefaultMaxStreamBytes
	}
	x := &xw{w: bufio.NewWriterSize(w, 64<<10)}
	specFile := r.SpecPath()
	stamp := r.StartedAt.UTC().Format("2006-01-02T15:04:05")

	var total tally
	var totalMS int64
	failed := runFailed(r)
	if failed != "" {
		total.add(verdict.Undetermined)
	}
	for _, p := range r.Programs {
		totalMS += p.TimeMS()
		for _, c := range p.Cases {
			total.add(c.Verdict)
		}
	}
	x.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	x.open("testsuites", "name", runSuite, "tests", itoa(total.tests), "failures", itoa(total.failures),
		"errors", itoa(total.errors), "skipped", "0", "time", seconds(r.DurationMS), "timestamp", stamp)
	x.raw("\n")

	if failed != "" {
		x.raw("  ")
		x.open("testsuite", "name", runSuite, "tests", "1", "failures", "0", "errors", "1", "skipped", "0",
			"time", seconds(r.DurationMS), "timestamp", stamp, "file", specFile)
		x.raw("\n    ")
		x.open("testcase", "name", runCase, "classname", runSuite, "time", seconds(r.DurationMS), "file", specFile)
		x.raw("\n      ")
		x.open("error", "message", short(failed), "type", "run failed")
		x.cdata(runDetails(r, failed))
		x.close("error")
		x.raw("\n    ")
		x.close("testcase")
		x.raw("\n  ")
		x.close("testsuite")
		x.raw("\n")
	}

	for i := range r.Programs {
		p := &r.Programs[i]
		var t tally
		for _, c := range p.Cases {
			t.add(c.Verdict)
		}
		x.raw("  ")
		x.open("testsuite", "name", short(p.Name), "tests", itoa(t.tests), "failures", itoa(t.failures),
			"errors", itoa(t.errors), "skipped", "0", "time", seconds(p.TimeMS()), "timestamp", stamp,
			"file", short(p.File), "id", itoa(i))
		x.raw("\n    <properties>\n")
		for _, kv := range [][2]string{
			{"behaves.program_id", p.ID},
			{"behaves.verdict", p.Verdict.String()},
			{"behaves.gate", strconv.FormatBool(!p.NotGating)},
			{"behaves.reason", p.Reason},
			{"behaves.profile", p.Profile},
			{"behaves.file", p.File},
			{"behaves.spec", fmt.Sprintf("%s:%d:%d", specFile, p.Line, p.Col)},
			{"behaves.execution_id", p.ExecutionID},
		} {
			x.raw("      ")
			x.empty("property", "name", kv[0], "value", short(kv[1]))
			x.raw("\n")
		}
		if r.Reuse != nil {
			for _, kv := range reuseProperties(p) {
				x.raw("      ")
				x.empty("property", "name", kv[0], "value", short(kv[1]))
				x.raw("\n")
			}
		}
		x.raw("    </properties>\n")
		for k := range p.Cases {
			c := &p.Cases[k]
			x.raw("    ")
			attrs := []string{"name", short(c.Name), "classname", short(p.Name), "time", seconds(c.Event.DurationMS),
				"file", r.CaseFile(c), "line", itoa(c.Line)}
			prop, value := caseReuse(c)
			if c.Verdict == verdict.True && prop == "" {
				x.empty("testcase", attrs...)
				x.raw("\n")
				continue
			}
			x.open("testcase", attrs...)
			x.raw("\n      ")
			if prop != "" {
				// Where the case's evidence came from, or why it ran now
				// (a run given stored reports): first, as JUnit 5 and
				// Surefire place a testcase's properties.
				x.raw("<properties>")
				x.empty("property", "name", prop, "value", short(value))
				x.raw("</properties>")
				if c.Verdict == verdict.True {
					x.raw("\n    ")
					x.close("testcase")
					x.raw("\n")
					continue
				}
				x.raw("\n      ")
			}
			elem, typ := "error", "undetermined"
			switch {
			case c.Verdict == verdict.False:
				elem, typ = "failure", "false"
			case c.Nondeterministic:
				typ = "nondeterministic" // some runs true, some false (repeat)
			}
			reason := c.Reason
			if reason == "" {
				reason = c.Verdict.String()
			}
			x.open(elem, "message", short(reason), "type", typ)
			x.cdata(caseDetails(r, p, c))
			x.close(elem)
			for _, s := range []struct {
				elem string
				st   streamOf
			}{{"system-out", stdoutOf(c)}, {"system-err", stderrOf(c)}} {
				text := streamText(s.st, opt.MaxStreamBytes)
				if text == "" {
					continue
				}
				x.raw("\n      ")
				x.open(s.elem)
				x.cdata(text)
				x.close(s.elem)
			}
			x.raw("\n    ")
			x.close("testcase")
			x.raw("\n")
		}
		x.raw("  ")
		x.close("testsuite")
		x.raw("\n")
	}
	x.close("testsuites")
	x.raw("\n")
	if x.err != nil {
		return x.err
	}
	return x.w.Flush()
}

// maxReuseRuns bounds the runs a suite's behaves.reused_from_runs names:
// run IDs are at most 64 characters, so the list stays within an
// attribute's bound.
const maxReuseRuns = 12

// reuseProperties are a program's properties in a run given stored
// reports: its invocations reused and run now, and the runs its reused
// cases' evidence came from, each once, in case order.
func reuseProperties(p *report.Program) [][2]string {
	var reused, ran int
	var runs []string
	seen := map[string]bool{}
	for i := range p.Cases {
		c := &p.Cases[i]
		if !c.Reused() {
			ran += c.RunCount()
			continue
		}
		reused += c.RunCount()
		if id := c.ReusedFrom.RunID; !seen[id] {
			seen[id] = true
			runs = append(runs, id)
		}
	}
	from := strings.Join(runs[:min(len(runs), maxReuseRuns)], " ")
	if len(runs) > maxReuseRuns {
		from += fmt.Sprintf(" +%d more", len(runs)-maxReuseRuns)
	}
	return [][2]string{
		{"behaves.reused", itoa(reused)},
		{"behaves.ran", itoa(ran)},
		{"behaves.reused_from_runs", from},
	}
}

// caseReuse is a case's reuse property: behaves.reused_from (run_id/
// execution_id) for a reused case, behaves.not_reused (the reason) for
// one a run given stored reports ran now; "" for neither.
func caseReuse(c *report.Case) (name, value string) {
	switch {
	case c.ReusedFrom != nil:
		return "behaves.reused_from", c.ReusedFrom.RunID + "/" + c.ReusedFrom.ExecutionID
	case c.NotReused != nil:
		return "behaves.not_reused", c.NotReused.Reason
	}
	return "", ""
}

func itoa(n int) string { return strconv.Itoa(n) }

// seconds writes milliseconds as JUnit's seconds.
func seconds(ms int64) string {
	return strconv.FormatFloat(float64(max(ms, 0))/1000, 'f', 3, 64)
}

// runDetails is the body of a failed run's error: why, and every spec
// problem (up to maxSpecErrors).
func runDetails(r report.Report, failed string) string {
	var b strings.Builder
	line(&b, "the run failed: %s", failed)
	if r.Interrupted {
		line(&b, "the run was interrupted: what was not observed is undetermined")
	}
	for i, e := range r.SpecErrors {
		if i == maxSpecErrors {
			line(&b, "and %d more %s: the JSON report lists them all", len(r.SpecErrors)-maxSpecErrors, verdict.Plural(len(r.SpecErrors)-maxSpecErrors, "problem", "problems"))
			break
		}
		line(&b, "%s:%d:%d: %s", e.File, e.Line, e.Col, e.Message)
	}
	return b.String()
}

// line appends one line of details, cut at maxLineBytes.
func line(b *strings.Builder, format string, args ...any) {
	b.WriteString(cut(fmt.Sprintf(format, args...), maxLineBytes))
	b.WriteByte('\n')
}

// caseDetails is the body of a case's failure or error: where it is, what
// it expected, what happened.
func caseDetails(r report.Report, p *report.Program, c *report.Case) string {
	var b strings.Builder
	line(&b, "%s:%d:%d: %s / %s", r.CaseFile(c), c.Line, c.Col, p.Name, c.Name)
	line(&b, "verdict: %s: %s", c.Verdict, c.Reason)
	switch {
	case p.Dir == "":
		line(&b, "program: %s (profile %s)", p.File, p.Profile)
	case p.Entry == "":
		line(&b, "program: folder %s (profile %s)", p.Dir, p.Profile)
	default:
		line(&b, "program: folder %s, entry %s (profile %s)", p.Dir, p.Entry, p.Profile)
	}
	switch {
	case c.ReusedFrom != nil:
		line(&b, "reused: the stored evidence of run %s (execution %s), judged again", c.ReusedFrom.RunID, c.ReusedFrom.ExecutionID)
	case c.NotReused != nil:
		// The detail may quote a stored report: escaped to one line, so
		// that it cannot pass for another line of the details.
		line(&b, "ran now: %s: %s", c.NotReused.Reason, escape.Text(c.NotReused.Detail))
	}
	if len(c.Event.Command) > 0 {
		// What ran, args and all, split as a shell would read it.
		line(&b, "command: %s", escape.Argv(c.Event.Command))
	} else {
		line(&b, "args: %s", jsonText(c.Args))
	}
	if c.StdinSize > 0 {
		from := ""
		if c.StdinFile != "" {
			from = " from " + c.StdinFile
		}
		line(&b, "stdin: %s%s, starting %s", verdict.Count(c.StdinSize, "byte", "bytes"), from, jsonText(string(c.StdinExcerptData())))
	}
	ev := &c.Event
	code := "none (the container did not exit)"
	switch stop := ev.Stopped(); {
	case stop != "":
		// 137 is the sandbox's kill, not the program's code.
		code = "none: the sandbox stopped the program (" + stop + ")"
	case ev.ExitCode != nil:
		code = strconv.Itoa(*ev.ExitCode)
	}
	line(&b, "exit code: %s, expected %s%s", code, c.ExpectedExitCode(), outcome(c.Expect.ExitCodeVerdict, c.Expect.ExitCodeReason))
	for _, m := range []struct {
		name string
		mo   *report.MatcherOutcome
	}{{"stdout", c.Expect.Stdout}, {"stderr", c.Expect.Stderr}} {
		if m.mo == nil {
			continue
		}
		line(&b, "%s %s (%s)%s", m.name, jsonText(m.mo.ExpectedText()), m.mo.Describe(), outcome(m.mo.Verdict, m.mo.Reason))
		if m.mo.Expected != "" || m.mo.Actual != "" {
			line(&b, "  expected: %s", m.mo.Expected)
			line(&b, "  actual:   %s", m.mo.Actual)
		}
		for _, cr := range c.CheckerRunsOf(m.name) {
			line(&b, "  %s", cr.Summary())
		}
	}
	if ev.TimedOut {
		line(&b, "timed out after %s", ms(ev.Limits.TimeoutMS))
	}
	if ev.ResourceLimit != "" {
		line(&b, "resource limit: %s", ev.ResourceLimit)
	}
	if ev.SandboxError != "" {
		line(&b, "sandbox: %s", ev.SandboxError)
	}
	for _, why := range p.AcquisitionReasons {
		line(&b, "acquisition %s: %s", p.Acquisition, why)
	}
	line(&b, "stdout: %s written, %d kept%s; stderr: %s written, %d kept%s",
		verdict.Count(ev.StdoutBytes, "byte", "bytes"), ev.StdoutKeptBytes, cutMark(ev.StdoutTruncated),
		verdict.Count(ev.StderrBytes, "byte", "bytes"), ev.StderrKeptBytes, cutMark(ev.StderrTruncated))
	line(&b, "duration: %s; image %s", ms(ev.DurationMS), ev.ImageDigest)
	return b.String()
}

// jsonText is v in JSON (a string or a list of strings, quoted, with
// control characters as \uNNNN), without HTML escaping.
func jsonText(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func outcome(v verdict.Verdict, reason string) string {
	switch {
	case reason != "":
		return ": " + v.String() + ": " + reason
	case v == verdict.True:
		return ": true"
	}
	return ""
}

func cutMark(truncated bool) string {
	if truncated {
		return " (cut at output_limit)"
	}
	return ""
}

func ms(v int64) string { return strconv.FormatInt(v, 10) + "ms" }

// streamOf is what a case's report says about one of its streams.
type streamOf struct {
	name               string
	data               []byte
	written, kept      int64
	truncated, omitted bool
	sha256             string
}

func stdoutOf(c *report.Case) streamOf {
	e := &c.Event
	return streamOf{"stdout", e.StdoutData(), e.StdoutBytes, e.StdoutKeptBytes, e.StdoutTruncated, e.StdoutOmitted, e.StdoutSHA256}
}

func stderrOf(c *report.Case) streamOf {
	e := &c.Event
	return streamOf{"stderr", e.StderrData(), e.StderrBytes, e.StderrKeptBytes, e.StderrTruncated, e.StderrOmitted, e.StderrSHA256}
}

// streamText is a stream as a testcase shows it: its first maxBytes as
// text (Text) when it is UTF-8, else as base64, with a note when it was
// cut here, at output_limit, or left out of the report; "" for an empty
// stream.
func streamText(s streamOf, maxBytes int) string {
	if s.omitted {
		return fmt.Sprintf("[behaves: %s was left out of the report to keep it within --max-report-size: %s kept, sha256 %s]\n",
			s.name, verdict.Count(s.kept, "byte", "bytes"), s.sha256)
	}
	if len(s.data) == 0 {
		if s.written > 0 {
			return fmt.Sprintf("[behaves: %s: %s written, none kept]\n", s.name, verdict.Count(s.written, "byte", "bytes"))
		}
		return ""
	}
	var b strings.Builder
	shown := s.data
	if utf8.Valid(s.data) {
		if len(shown) > maxBytes {
			n := maxBytes
			for n > 0 && !utf8.RuneStart(shown[n]) {
				n--
			}
			shown = shown[:n]
		}
		b.WriteString(Text(string(shown)))
	} else {
		if len(shown) > maxBytes {
			shown = shown[:maxBytes]
		}
		fmt.Fprintf(&b, "[behaves: %s is not UTF-8; its first %s in base64:]\n", s.name, verdict.Count(len(shown), "byte", "bytes"))
		enc := base64.StdEncoding.EncodeToString(shown)
		for len(enc) > base64LineSize {
			b.WriteString(enc[:base64LineSize])
			b.WriteByte('\n')
			enc = enc[base64LineSize:]
		}
		b.WriteString(enc)
	}
	if len(shown) < len(s.data) || s.truncated {
		note := fmt.Sprintf("\n[behaves: %s: %d of %d kept %s shown", s.name, len(shown), len(s.data), verdict.Plural(len(s.data), "byte", "bytes"))
		if s.truncated {
			note += fmt.Sprintf("; the program wrote %s, cut at output_limit", verdict.Count(s.written, "byte", "bytes"))
		}
		b.WriteString(note + "; the JSON report holds every kept byte]")
	}
	return b.String()
}

// short is s made safe (Text) and cut to maxAttrBytes.
func short(s string) string { return cut(s, maxAttrBytes) }

// cut returns Text(s), cut to at most n bytes of s on a rune boundary and
// marked with "…" when cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return Text(s)
	}
	k := n
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return Text(s[:k]) + "…"
}

// Text returns s with every character XML 1.0 cannot carry, or would not
// carry as it is, made visible: a byte that is not part of valid UTF-8
// (lone surrogates included), a C0 control other than tab and newline,
// carriage return (a parser turns it into a newline) and DEL become
// \xNN; a C1 control, U+FFFE, U+FFFF and the bidi controls (U+202A–U+202E,
// U+2066–U+2069, U+200E, U+200F, U+061C) become \uNNNN. A backslash stays
// as it is (the JSON report holds the exact bytes). The result is always
// valid UTF-8 made of XML 1.0 characters.
func Text(s string) string {
	clean := true
	for _, r := range s {
		if !plain(r) {
			clean = false
			break
		}
	}
	if clean && utf8.ValidString(s) {
		return s
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			c := s[i]
			b.WriteString(`\x` + string(hex[c>>4]) + string(hex[c&0xF]))
		case r < 0x80 && !plain(r):
			b.WriteString(`\x` + string(hex[r>>4]) + string(hex[r&0xF]))
		case !plain(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// plain reports whether r may stand in XML text as it is: XML 1.0's Char
// production without carriage return, DEL, the C1 controls and the bidi
// controls (which a dashboard would apply, reordering the text around
// them, as the terminal's escaping also prevents).
func plain(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return true
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return false
	case r >= 0xD800 && r <= 0xDFFF, r == 0xFFFE, r == 0xFFFF, r > 0x10FFFF:
		return false
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return false // bidi controls: text that reads in another order than it is
	}
	return true
}

// xw writes XML, keeping the first error.
type xw struct {
	w   *bufio.Writer
	err error
}

func (x *xw) raw(s string) {
	if x.err == nil {
		_, x.err = x.w.WriteString(s)
	}
}

// start writes "<name" and the attributes, given as name, value pairs;
// values pass through Text and are escaped for an attribute (a tab and a
// newline as references, so that a parser keeps them).
func (x *xw) start(name string, attrs []string) {
	x.raw("<" + name)
	for i := 0; i+1 < len(attrs); i += 2 {
		x.raw(" " + attrs[i] + `="` + attrEscaper.Replace(Text(attrs[i+1])) + `"`)
	}
}

var attrEscaper = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&quot;", "\t", "&#x9;", "\n", "&#xA;")

func (x *xw) open(name string, attrs ...string) {
	x.start(name, attrs)
	x.raw(">")
}

func (x *xw) empty(name string, attrs ...string) {
	x.start(name, attrs)
	x.raw("/>")
}

func (x *xw) close(name string) { x.raw("</" + name + ">") }

// cdata writes s (through Text) as CDATA, split so that no "]]>" in s
// ends the section: "]]>" becomes "]]" + "]]><![CDATA[" + ">".
func (x *xw) cdata(s string) {
	x.raw("<![CDATA[")
	x.raw(strings.ReplaceAll(Text(s), "]]>", "]]]]><![CDATA[>"))
	x.raw("]]>")
}
