package terminal

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/behaves-dev/behaves/internal/escape"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// DefaultMaxCaseDetails is how many cases that are not true the terminal
// rendering describes before it only counts the rest (the JSON report has
// them all): as many as a run's reportwrite.Writer keeps the start of the
// output of.
const DefaultMaxCaseDetails = report.DefaultExcerpts

// Display bounds for one block of program output or expected text.
const (
	blockMaxLines = 40
	// blockMaxBytes is what a Writer's summary holds of a stream, so that
	// a run's rendering shows as much as a rendering of its report.
	blockMaxBytes = report.ExcerptMax
	nameMaxRunes  = 60
	lineMaxRunes  = 500
)

// Options controls Write.
type Options struct {
	// GitHubActions wraps the whole rendering in a stop-commands region
	// (set it when GITHUB_ACTIONS=true), so that nothing in it becomes a
	// workflow command.
	GitHubActions bool
	// Token is the stop-commands token: random, 16 to 128 characters of
	// [A-Za-z0-9_-]. Empty means Write draws one with NewToken.
	Token string
	// MaxCaseDetails bounds how many cases that are not true are described
	// (0 means DefaultMaxCaseDetails; negative means no bound).
	MaxCaseDetails int
	// Verbose also shows the checks that passed in the cases described
	// (run and rescore -v).
	Verbose bool
	// After are behaves' own lines that end the rendering (where it wrote
	// the report), escaped like the rest and inside the same
	// stop-commands region.
	After []string
	// Color paints the verdicts and the expected and actual labels with
	// ANSI colours (for a terminal: the caller decides, see --color). Only
	// behaves' own words are painted; report text is escaped exactly as
	// without it, so no report text can carry a colour or any other
	// escape sequence.
	Color bool
}

// NewToken returns a random stop-commands token (32 hex digits).
func NewToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

func validToken(t string) error {
	if len(t) < 16 || len(t) > 128 {
		return fmt.Errorf("stop-commands token must have 16 to 128 characters, has %d", len(t))
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("stop-commands token may hold only letters, digits, '_' and '-'")
		}
	}
	return nil
}

// Write renders r for a person: for every program that is not true
// (or left sandbox warnings) its reason and, for each case that is not
// true, the spec position, the reason and what was expected next to what
// came out; then a table of programs and a summary line.
//
// All text from the report is treated as untrusted: it is escaped (see
// escape.Text), each line of program output or expected text is
// prefixed with "| ", and with opt.GitHubActions the whole rendering sits
// between "::stop-commands::<token>" and "::<token>::".
func Write(w io.Writer, r report.Report, opt Options) error {
	max := opt.MaxCaseDetails
	if max == 0 {
		max = DefaultMaxCaseDetails
	}
	t := &term{spec: r.Spec, left: max, verbose: opt.Verbose, color: opt.Color}
	end, err := t.inert(opt)
	if err != nil {
		return fmt.Errorf("rendering report: %w", err)
	}
	t.header(r)
	for i := range r.Programs {
		t.program(&r.Programs[i])
	}
	if t.skipped > 0 {
		more := verdict.Plural(t.skipped, "case that is not true is", "cases that are not true are")
		t.printf("… %d more %s not described here; the JSON report has every case.\n\n", t.skipped, more)
	}
	t.table(r)
	t.summary(r)
	for _, l := range opt.After {
		t.printf("%s\n", escape.Text(l))
	}
	end()
	if _, err := w.Write(t.buf.Bytes()); err != nil {
		return fmt.Errorf("writing report to the terminal: %w", err)
	}
	return nil
}

// PrintMessages is WriteMessages for behaves' own lines on a log:
// githubActions puts them in a stop-commands region, and a failure to
// write them is said on w as one plain line.
func PrintMessages(w io.Writer, githubActions bool, lines ...string) {
	if err := WriteMessages(w, lines, Options{GitHubActions: githubActions}); err != nil {
		fmt.Fprintf(w, "behaves: %v\n", err)
	}
}

// WriteMessages writes behaves' own messages that carry untrusted text (a
// spec problem quotes the spec's keys, names and values): each one escaped
// to a single line (see escape.Text) and, with opt.GitHubActions, all of
// them in a stop-commands region, exactly as Write treats a report.
func WriteMessages(w io.Writer, lines []string, opt Options) error {
	t := &term{}
	end, err := t.inert(opt)
	if err != nil {
		return fmt.Errorf("writing messages: %w", err)
	}
	for _, l := range lines {
		t.printf("%s\n", escape.Text(l))
	}
	end()
	if _, err := w.Write(t.buf.Bytes()); err != nil {
		return fmt.Errorf("writing messages: %w", err)
	}
	return nil
}

// inert opens a stop-commands region when opt.GitHubActions (else nothing)
// and returns the function that closes it.
func (t *term) inert(opt Options) (end func(), err error) {
	if !opt.GitHubActions {
		return func() {}, nil
	}
	token := opt.Token
	if token == "" {
		token = NewToken()
	}
	if err := validToken(token); err != nil {
		return nil, err
	}
	// The leading newline makes sure the command starts a line even if
	// something before left one open.
	t.printf("\n::stop-commands::%s\n", token)
	return func() { t.printf("::%s::\n", token) }, nil
}

type term struct {
	buf     bytes.Buffer
	spec    string
	left    int // case descriptions left; negative: no bound
	skipped int
	verbose bool
	color   bool
	// saidFor names, for each profile and reason that stopped every case
	// of a program, the program whose description said it.
	saidFor map[[2]string]string
}

// SGR colours.
const (
	green  = "32"
	red    = "31"
	yellow = "33"
	// defaultColor is the terminal's own foreground: an escape as long as
	// the others, for alignment.
	defaultColor = "39"
)

// paint wraps s, behaves' own words (never report text), in an SGR colour
// when colour is on.
func (t *term) paint(sgr, s string) string {
	if !t.color {
		return s
	}
	return "\x1b[" + sgr + "m" + s + "\x1b[0m"
}

// verdict is v's word, in its colour.
func (t *term) verdict(v verdict.Verdict) string {
	switch v {
	case verdict.True:
		return t.paint(green, v.String())
	case verdict.False:
		return t.paint(red, v.String())
	}
	return t.paint(yellow, v.String())
}

// printf writes to the buffer. Every string argument must already be
// escaped.
func (t *term) printf(format string, args ...any) { fmt.Fprintf(&t.buf, format, args...) }

func (t *term) pos(line, col int) string {
	return t.posIn("", line, col)
}

// posIn is a position in file, or in the spec when file is "" (a case
// written in the spec).
func (t *term) posIn(file string, line, col int) string {
	s := ""
	if file == "" {
		file = t.spec
	}
	if file != "" {
		s = oneLine(file) + ":"
	}
	if col > 0 {
		return fmt.Sprintf("%s%d:%d", s, line, col)
	}
	return fmt.Sprintf("%s%d", s, line)
}

func (t *term) header(r report.Report) {
	t.printf("behaves %s · spec %s · run %s\n\n", oneLine(r.Tool.Version), oneLine(r.Spec), oneLine(r.RunID))
}

func (t *term) program(p *report.Program) {
	if p.Verdict == verdict.True && len(p.SandboxWarnings) == 0 {
		return
	}
	var tally report.Tally
	for _, c := range p.Cases {
		tally.Add(c.Verdict)
		if c.Nondeterministic {
			tally.Nondeterministic++
		}
	}
	nondet := ""
	if tally.Nondeterministic > 0 {
		nondet = fmt.Sprintf("; %d nondeterministic", tally.Nondeterministic)
	}
	if n := p.ReusedCases(); n > 0 {
		nondet += fmt.Sprintf("; %d reused", n)
	}
	gate := ""
	if p.NotGating {
		gate = " (not gating)"
	}
	t.printf("== %s: %s%s (%d of %s true%s)\n", oneLine(p.Name), t.verdict(p.Verdict), gate, tally.True, verdict.Count(tally.Total, "case", "cases"), nondet)
	where := "file " + oneLine(p.File)
	if p.Dir != "" { // a program that is a folder of files
		where = "dir " + oneLine(p.Dir)
		if p.Entry != "" {
			where += " · entry " + oneLine(p.Entry)
		}
	}
	t.printf("   %s · profile %s · %s\n", where, oneLine(p.Profile), t.pos(p.Line, p.Col))
	// The program's reason is its deciding case's: said below, unless
	// the bound leaves every case of the program undescribed.
	if p.Reason != "" && t.left == 0 {
		t.printf("   reason: %s\n", oneLine(p.Reason))
	}
	if p.Acquisition != "" && p.Acquisition != "complete" {
		t.printf("   acquisition: %s\n", oneLine(string(p.Acquisition)))
		// A reason every case shares is said once, on the cases' line
		// (an image missing: each case's sandbox error is the same).
		shared := sharedBareReason(p)
		for _, a := range p.AcquisitionReasons {
			if oneLine(a) != shared {
				t.printf("     - %s\n", oneLine(a))
			}
		}
	}
	for _, wmsg := range p.SandboxWarnings {
		t.printf("   sandbox warning: %s\n", oneLine(wmsg))
	}
	if n, reason := p.BuildFailed(); n > 0 {
		// The build failed and no case ran: what the build did, once.
		b := p.Build
		got := "none (did not exit)"
		if b.ExitCode != nil {
			got = fmt.Sprint(*b.ExitCode)
		}
		t.printf("   build: %s · exit code %s\n", escape.Shorten(escape.Argv(b.Command), lineMaxRunes), got)
		if data := b.StderrData(); len(data) > 0 || b.StderrBytes > 0 {
			t.printf("   build stderr (%s):\n", verdict.Count(b.StderrBytes, "byte", "bytes"))
			t.blockOf("     ", data, b.StderrBytes, false)
		} else if data := b.StdoutData(); len(data) > 0 || b.StdoutBytes > 0 {
			t.printf("   build stdout (%s):\n", verdict.Count(b.StdoutBytes, "byte", "bytes"))
			t.blockOf("     ", data, b.StdoutBytes, false)
		}
		t.printf("   %s  %s: %s\n\n", t.verdict(verdict.False), verdict.Plural(n, "its one case", fmt.Sprintf("all %d cases", n)), oneLine(reason))
		return
	}

	// Cases with no evidence at all (the sandbox never ran them) and one
	// shared reason are summed up in one line.
	if reason := sharedBareReason(p); reason != "" {
		// Said once a profile: an image missing stops every program of it.
		k := [2]string{p.Profile, reason}
		if first, ok := t.saidFor[k]; ok {
			t.printf("   %s  all %d cases: as for %s (profile %s)\n\n", t.verdict(verdict.Undetermined), len(p.Cases), first, oneLine(p.Profile))
			return
		}
		if t.saidFor == nil {
			t.saidFor = map[[2]string]string{}
		}
		t.saidFor[k] = escape.Shorten(escape.Text(p.Name), nameMaxRunes)
		t.printf("   %s  all %d cases: %s\n\n", t.verdict(verdict.Undetermined), len(p.Cases), reason)
		return
	}
	for i := range p.Cases {
		c := &p.Cases[i]
		if c.Verdict == verdict.True {
			continue
		}
		if t.left == 0 {
			t.skipped++
			continue
		}
		t.left--
		t.caseDetail(c)
	}
	t.printf("\n")
}

// sharedBareReason is the one reason (escaped, one line) of a program of
// more than one case none of which has evidence to show, or "".
func sharedBareReason(p *report.Program) string {
	if reason, n := p.SharedNoEvidenceReason(); n > 1 {
		return oneLine(reason)
	}
	return ""
}

// caseDetail describes one case that is not true: each reason once (the
// case's is its deciding check's, so it is said only when no check shown
// says it), the checks that did not pass (all of them with Verbose), and
// a stopped run's kill never as the program's exit code.
func (t *term) caseDetail(c *report.Case) {
	t.printf("   %s  %s  (%s)%s\n", t.verdict(c.Verdict), oneLine(c.Name), t.posIn(c.File, c.Line, c.Col), reusedTag(c))
	if nr := c.NotReused; nr != nil {
		t.printf("     ran now: %s", oneLine(nr.Reason))
		if nr.Detail != "" {
			t.printf(": %s", oneLine(nr.Detail))
		}
		t.printf("\n")
	}
	if c.NoEvidence() {
		if c.Reason != "" {
			t.printf("     reason: %s\n", oneLine(c.Reason))
		}
		return
	}
	e := &c.Event
	stop := e.Stopped()
	showExit := t.verbose || c.Expect.ExitCodeVerdict != verdict.True
	shows := func(m *report.MatcherOutcome) bool { return m != nil && (t.verbose || m.Verdict != verdict.True) }
	stated := showExit && c.Expect.ExitCodeVerdict == c.Verdict ||
		shows(c.Expect.Stdout) && c.Expect.Stdout.Verdict == c.Verdict ||
		shows(c.Expect.Stderr) && c.Expect.Stderr.Verdict == c.Verdict ||
		e.SandboxError != "" && oneLine(e.SandboxError) == oneLine(c.Reason)
	if c.Reason != "" && !stated {
		t.printf("     reason: %s\n", oneLine(c.Reason))
	}
	if len(e.Command) > 0 {
		// What ran, args and all, split as a shell would read it.
		t.printf("     command: %s\n", escape.Shorten(escape.Argv(e.Command), lineMaxRunes))
	} else {
		args := make([]string, len(c.Args))
		for i, a := range c.Args {
			args[i] = escape.Shorten(escape.Quote(a), lineMaxRunes)
		}
		t.printf("     args: [%s]\n", strings.Join(args, ", "))
	}
	t.stdin(c)
	t.runs(c)
	if sa := c.Expect.SameAs; sa != nil {
		t.printf("     same as reference %s (%s; the exit code and %s compared): what is expected below is the reference's run 1\n",
			escape.Shorten(escape.Quote(sa.Reference), lineMaxRunes), verdict.Count(len(c.ReferenceEvents), "run", "runs"), oneLine(strings.Join(sa.Streams, ", ")))
	}
	if showExit {
		switch {
		case stop != "":
			// 137 is the sandbox's kill, not the program's code.
			t.printf("     exit code: expected %s, none: the sandbox stopped the program (%s) → %s\n", c.ExpectedExitCode(), oneLine(stop), t.verdict(c.Expect.ExitCodeVerdict))
		default:
			got := "none (did not exit)"
			if e.ExitCode != nil {
				got = fmt.Sprint(*e.ExitCode)
			}
			t.printf("     exit code: expected %s, got %s → %s", c.ExpectedExitCode(), got, t.verdict(c.Expect.ExitCodeVerdict))
			// The judge's "exit code 1, expected 0" says what the line
			// already does; what follows it (the stderr hint) is new.
			why := c.Expect.ExitCodeReason
			if rest, ok := strings.CutPrefix(why, "exit code "+got+", expected "+c.ExpectedExitCode()); ok {
				t.printf("%s", oneLine(rest))
			} else if why != "" {
				t.printf(": %s", oneLine(why))
			}
			t.printf("\n")
		}
	}
	if stop == "" && e.ResourceLimit != "" {
		t.printf("     wrote past a limit (%s) before it exited by itself\n", oneLine(string(e.ResourceLimit)))
	}
	if stop != "" && !showExit {
		t.printf("     stopped by the sandbox: %s\n", oneLine(stop))
	}
	if e.SandboxError != "" {
		t.printf("     sandbox error: %s\n", oneLine(e.SandboxError))
	}
	stdout, stderr := c.HeldOutput()
	t.stream("stdout", c.Expect.Stdout, c.Expected("stdout", c.Expect.Stdout), stdout, streamFacts{e.StdoutKeptBytes, e.StdoutBytes, e.StdoutTruncated, e.StdoutOmitted})
	t.stream("stderr", c.Expect.Stderr, c.Expected("stderr", c.Expect.Stderr), stderr, streamFacts{e.StderrKeptBytes, e.StderrBytes, e.StderrTruncated, e.StderrOmitted})
}

// stdin describes a case's stdin, as the summary and the HTML report do:
// its file, its size, what the program accepted of it, and the start the
// report keeps, bounded and escaped like program output.
func (t *term) stdin(c *report.Case) {
	e := &c.Event
	if c.StdinFile == "" && c.StdinSize == 0 && e.StdinBytes == 0 {
		return
	}
	file := ""
	if c.StdinFile != "" {
		file = "file " + oneLine(c.StdinFile) + ", "
	}
	t.printf("     stdin: %s%s, %d accepted by the program\n", file, verdict.Count(c.StdinSize, "byte", "bytes"), e.StdinBytes)
	if data := c.StdinExcerptData(); len(data) > 0 {
		t.blockIn("       ", data, c.StdinSize, false, stdinMaxLines)
	}
}

// runsShown bounds the runs a case's description lists.
const runsShown = 10

// runs describes the runs of a case that ran more than once: how many of
// each verdict, and each run that is not true with its reason. What
// follows (exit code, streams) is the first run's.
func (t *term) runs(c *report.Case) {
	if len(c.Runs) == 0 {
		return
	}
	rt := c.RunTally()
	t.printf("     runs: %d (%d true, %d false, %d undetermined); the expectation and output below are run 1's\n",
		rt.Total, rt.True, rt.False, rt.Undetermined)
	shown := 0
	for k, r := range c.Runs {
		if r.Verdict == verdict.True {
			continue
		}
		if shown == runsShown {
			t.printf("       … more runs in the JSON report\n")
			break
		}
		shown++
		t.printf("       run %d: %s: %s\n", k+1, r.Verdict, oneLine(r.Reason))
	}
}

// streamFacts are what the event says of one stream besides its bytes.
type streamFacts struct {
	kept, total int64
	truncated   bool
	omitted     bool
}

// stream shows one stream: its matcher and outcome, the expected value and
// the output kept (shown may be only its start). A stream nobody expected
// anything of is shown only when the program wrote to it.
func (t *term) stream(name string, m *report.MatcherOutcome, want, shown []byte, f streamFacts) {
	kept := max(f.kept, int64(len(shown)))
	if m == nil && f.total == 0 && kept == 0 {
		return
	}
	// A check that passed is not described (-v does), but what the
	// program wrote stays: it is the context of the check that failed.
	passed := m != nil && m.Verdict == verdict.True && !t.verbose
	const indent = "       "
	// Only under exact comparison does a final newline matter enough to
	// point out its absence.
	exact := m != nil && m.Normalize == verdict.NormalizeExact
	switch {
	case passed:
		t.printf("     %s (its check passed)\n", name)
	case m != nil:
		t.printf("     %s (%s) → %s", name, oneLine(m.Describe()), t.verdict(m.Verdict))
		if m.Reason != "" {
			// The line names its stream already.
			t.printf(": %s", oneLine(strings.TrimPrefix(m.Reason, name+": ")))
		}
		t.printf("\n%s%s\n", indent, t.paint(green, m.ExpectedLabel()+":"))
		t.block(indent, want, exact)
	default:
		t.printf("     %s (no expectation)\n", name)
	}
	actual := fmt.Sprintf("actual (%s):", verdict.Count(f.total, "byte", "bytes"))
	if f.truncated {
		actual = fmt.Sprintf("actual (%s written, first %d kept):", verdict.Count(f.total, "byte", "bytes"), kept)
	}
	if m != nil && m.Verdict != verdict.True {
		actual = t.paint(red, actual)
	}
	t.printf("%s%s\n", indent, actual)
	if f.omitted {
		t.printf("%s(left out of the JSON report to keep it within --max-report-size; its stdout_sha256/stderr_sha256 identify it)\n", indent)
	}
	if kept > 0 && len(shown) == 0 {
		if f.omitted {
			t.printf("%s(not held in memory either)\n", indent)
		} else {
			t.printf("%s(not held in memory: see the JSON report)\n", indent)
		}
		return
	}
	t.blockOf(indent, shown, kept, exact)
}

// block writes text as prefixed, escaped lines, bounded for display; with
// markEOL, a missing final newline is pointed out.
func (t *term) block(indent string, data []byte, markEOL bool) {
	t.blockOf(indent, data, int64(len(data)), markEOL)
}

// stdinMaxLines bounds the stdin a case's description shows: the input
// is context there, the output the evidence.
const stdinMaxLines = 8

// blockOf is block for data that may be only the first bytes of total.
func (t *term) blockOf(indent string, data []byte, total int64, markEOL bool) {
	t.blockIn(indent, data, total, markEOL, blockMaxLines)
}

// blockIn is blockOf showing at most maxLines lines.
func (t *term) blockIn(indent string, data []byte, total int64, markEOL bool, maxLines int) {
	if len(data) == 0 {
		t.printf("%s(empty)\n", indent)
		return
	}
	shown := data
	if len(shown) > blockMaxBytes {
		cut := blockMaxBytes
		for k := 0; k < utf8.UTFMax && cut > 0 && !utf8.RuneStart(shown[cut]); k++ {
			cut--
		}
		shown = shown[:cut]
	}
	if shown[len(shown)-1] == '\n' {
		shown = shown[:len(shown)-1]
	}
	lines := strings.Split(string(shown), "\n")
	if len(lines) > maxLines {
		lines = lines[:maxLines]
	}
	consumed := 0 // bytes of data shown, newlines included
	for _, l := range lines {
		if l == "" {
			t.printf("%s|\n", indent)
		} else {
			t.printf("%s| %s\n", indent, escape.Text(l))
		}
		consumed += len(l)
		if consumed < len(data) && data[consumed] == '\n' {
			consumed++
		}
	}
	switch {
	case int64(consumed) < total:
		t.printf("%s… %d more %s not shown\n", indent, total-int64(consumed), verdict.Plural(total-int64(consumed), "byte", "bytes"))
	case markEOL && data[len(data)-1] != '\n':
		t.printf("%s\\ no newline at end\n", indent)
	}
}

func (t *term) table(r report.Report) {
	tw := tabwriter.NewWriter(&t.buf, 0, 0, 2, ' ', 0)
	// Every verdict cell is painted, so the header's is too (in the
	// default colour): the escapes are as long in every row and the
	// columns stay aligned.
	fmt.Fprintf(tw, "PROGRAM\t%s\tPASSED\tFAILED\tUNDETERMINED\tTIME\n", t.paint(defaultColor, "VERDICT"))
	for i := range r.Programs {
		p := &r.Programs[i]
		var tally report.Tally
		for _, c := range p.Cases {
			tally.Add(c.Verdict)
		}
		name := escape.Shorten(escape.Text(p.Name), nameMaxRunes)
		if p.NotGating {
			name += " (not gating)"
		}
		// The time is the program's build and runs together; the build's
		// is shown apart, since it is paid once however many cases run.
		took := ms(p.TimeMS())
		if p.Build != nil {
			took += " (build " + ms(p.Build.DurationMS) + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\n", name,
			t.verdict(p.Verdict), tally.True, tally.False, tally.Undetermined, took)
	}
	_ = tw.Flush() // writes to a bytes.Buffer
	t.printf("\n")
	t.groups(r)
}

// groups writes a table of the `files:` entries: their samples' verdicts
// and pass@k.
func (t *term) groups(r report.Report) {
	if len(r.Groups) == 0 {
		return
	}
	tw := tabwriter.NewWriter(&t.buf, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "SAMPLES	N	TRUE	FALSE	UNDETERMINED	PASS@K\n")
	for _, g := range r.Groups {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\n", escape.Shorten(escape.Text(g.Name), nameMaxRunes), g.N, g.True, g.False, g.Undetermined, g.PassAtText())
	}
	_ = tw.Flush()
	for _, g := range r.Groups {
		for _, k := range g.Ks() {
			if why, ok := g.NullReason(k); ok {
				t.printf("%s: pass@%d: %s\n", escape.Shorten(escape.Text(g.Name), nameMaxRunes), k, oneLine(why))
			}
		}
	}
	t.printf("\n")
}

func (t *term) summary(r report.Report) {
	if r.Interrupted {
		t.printf("behaves: the run was interrupted; what was not observed is undetermined\n")
	}
	if r.Error != "" {
		t.printf("behaves: the run failed: %s\n", oneLine(r.Error))
	}
	pc, cc := r.Counts.Programs, r.Counts.Cases
	t.printf("behaves: %s · programs: %d true, %d false, %d undetermined%s · cases: %d true, %d false, %d undetermined%s · %s\n",
		t.verdict(r.Verdict), pc.True, pc.False, pc.Undetermined, pc.NondeterministicText(),
		cc.True, cc.False, cc.Undetermined, cc.NondeterministicText(), ms(r.DurationMS))
	t.reuse(r.Reuse)
}

// reuse says what a run given stored reports took from them: how many
// invocations their evidence answered and from which run, then how many
// cases ran now for each reason. Nothing for a run given none.
func (t *term) reuse(ru *report.Reuse) {
	if ru == nil {
		return
	}
	t.printf("behaves: reused %d of %s%s\n", ru.Reused, verdict.Count(ru.Reused+ru.Ran, "invocation", "invocations"), sourcesText(ru.Sources))
	if len(ru.NotReused) == 0 {
		return
	}
	parts := make([]string, len(ru.NotReused))
	for i, rc := range ru.NotReused {
		parts[i] = fmt.Sprintf("%d %s", rc.Cases, oneLine(rc.Reason))
	}
	t.printf("behaves: ran now: %s\n", strings.Join(parts, ", "))
}

// sourcesText names the first stored run (its commit and Actions run when
// it has them) and how many more there are: " from run R (commit C,
// Actions run N) +2 more", or "" without sources.
func sourcesText(sources []report.ReuseSource) string {
	if len(sources) == 0 {
		return ""
	}
	s := sources[0]
	out := " from run " + oneLine(s.RunID)
	var about []string
	if sha := s.ShortCommit(); sha != "" {
		about = append(about, "commit "+oneLine(sha))
	}
	if s.GitHub.RunID != "" {
		about = append(about, "Actions run "+oneLine(s.GitHub.RunID))
	}
	if len(about) > 0 {
		out += " (" + strings.Join(about, ", ") + ")"
	}
	if n := len(sources) - 1; n > 0 {
		out += fmt.Sprintf(" +%d more", n)
	}
	return out
}

// reusedTag marks a case that stored evidence answered, naming the run it
// came from ("" for a case that ran now).
func reusedTag(c *report.Case) string {
	if c.ReusedFrom == nil {
		return ""
	}
	return "  [reused from run " + oneLine(c.ReusedFrom.RunID) + "]"
}

// oneLine returns s escaped (escape.Text) and cut to lineMaxRunes.
func oneLine(s string) string { return escape.Shorten(escape.Text(s), lineMaxRunes) }

func ms(v int64) string { return (time.Duration(v) * time.Millisecond).String() }
