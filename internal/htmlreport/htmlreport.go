package htmlreport

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/behaves-dev/behaves/internal/escape"
	"github.com/behaves-dev/behaves/internal/linediff"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

var (
	//go:embed page.js
	script string
	//go:embed page.css
	style string
	//go:embed page.tmpl
	pageSource string
)

// Hash returns the CSP source of inline content: 'sha256-<base64 of the
// SHA-256 of its exact bytes>'.
func Hash(content string) string {
	sum := sha256.Sum256([]byte(content))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// CSP is the page's Content-Security-Policy: nothing may load, and the one
// inline style sheet and the one inline script run only because their
// hashes are listed.
var CSP = "default-src 'none'; script-src " + Hash(script) + "; style-src " + Hash(style) +
	"; img-src 'none'; base-uri 'none'; form-action 'none'"

// The CSP goes into the template's own text, so that no escaping can touch
// it.
var page = template.Must(template.New("page").Parse(strings.Replace(pageSource, "@CSP@", CSP, 1)))

// Limits bound the page. The zero value of a field takes its default.
type Limits struct {
	// OutputBudget is the HTML (in bytes, an estimate) that all the
	// excerpts of expected and actual output share (default 8 MiB).
	OutputBudget int
	// SideLines and SideBytes bound each side of one diff (default 400
	// lines, 24 KiB); MinSideLines and MinSideBytes are what each side
	// gets at least while the budget lasts (default 12 lines, 1 KiB).
	SideLines, SideBytes       int
	MinSideLines, MinSideBytes int
	// MaxCases bounds the cases shown in detail (default 10,000, behaves'
	// --max-cases); past it, a program shows its reason only.
	MaxCases int
	// PageSize is how many programs the script shows at once (default 50).
	PageSize int
}

// DefaultLimits are the limits Render uses for a zero Limits.
var DefaultLimits = Limits{
	OutputBudget: 8 << 20, SideLines: 400, SideBytes: 24 << 10,
	MinSideLines: 12, MinSideBytes: 1 << 10, MaxCases: 10000, PageSize: 50,
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	set := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	set(&l.OutputBudget, d.OutputBudget)
	set(&l.SideLines, d.SideLines)
	set(&l.SideBytes, d.SideBytes)
	set(&l.MinSideLines, d.MinSideLines)
	set(&l.MinSideBytes, d.MinSideBytes)
	set(&l.MaxCases, d.MaxCases)
	set(&l.PageSize, d.PageSize)
	return l
}

// Display bounds for report text that is one line.
const (
	// filesMax bounds the files listed for one program, filesPageMax for
	// the page: a program may have 10,000 files, a run 10,000 programs.
	filesMax     = 200
	filesPageMax = 5000

	nameRunes   = 200
	reasonRunes = 500
	argRunes    = 120
	argsMax     = 20
	notesMax    = 5
)

// Render writes the page for r. r should come from reportread.Read (checked);
// Render trusts none of its text.
func Render(w io.Writer, r report.Report, lim Limits) error {
	lim = lim.withDefaults()
	v := build(r, lim)
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := page.Execute(bw, v); err != nil {
		return fmt.Errorf("rendering the HTML report: %w", err)
	}
	return bw.Flush()
}

// one is untrusted text shown on one line: escaped (escape.Text) and cut.
func one(s string, n int) string { return escape.Shorten(escape.Text(s), n) }

type view struct {
	Style                      template.CSS
	Script                     template.JS
	Verdict, Spec, RunID, Tool string
	Started, Duration          string
	Programs, Cases            report.Tally
	Bar                        []barPart
	Interrupted                bool
	Error                      string
	Notes                      []string
	SpecErrors                 []string
	Ks                         []string
	Groups                     []groupView
	Check                      struct{ True, False, Undetermined bool }
	PageSize                   int
	List                       []programView
	// Reuse is what a run given stored reports took from them (nil for a
	// run given none).
	Reuse *reuseView
}

// reuseView says how many invocations stored evidence answered, from
// which runs, and how many cases ran now for each reason.
type reuseView struct {
	Reused, Invocations int
	// From is the first source's run ID and About its commit and Actions
	// run ("" outside Actions); More the other sources' run IDs.
	From, About string
	More        []string
	Reasons     []reasonView
}

type reasonView struct {
	Cases  int
	Reason string
}

type barPart struct {
	Class, Label string
	X, W         string
}

type groupView struct {
	Name                         string
	N, True, False, Undetermined int
	Cells                        []passCell
}

type passCell struct{ Value, Reason string }

type programView struct {
	Index                       int
	Verdict, Name, File, Reason string
	// NotGating: the program's verdict does not decide the run's.
	NotGating bool
	// Folder is set for a program that is a folder (File is the folder),
	// Entry is its entry ("" for none).
	Folder          bool
	Entry           string
	Tally, Duration string
	Warnings        []string
	// Files lists what a program of more than one file delivered (nil
	// for a program of one file).
	Files *filesView
	// Build is set when the program's build failed and made every case
	// false: the page shows the build, once, instead of each case.
	Build     *buildView
	Cases     []caseView
	CasesMore string
}

// filesView is a program's files: a line that counts them and, when the
// report lists them, each with its size, the repository path of a file
// that is not at its own place in the folder (a with: file; for a
// program that is one file, every file) and a link's target.
type filesView struct {
	Summary string
	// Omitted says that the report left the list out (files_omitted).
	Omitted bool
	List    []fileView
	More    string
}

type fileView struct {
	Path, Size, Source, Target string
}

type buildView struct {
	Cases, Command, Exit, Flags string
	Streams                     []streamView
}

type caseView struct {
	Verdict, Name, Reason, Pos string
	// ReusedFrom is the run and execution whose stored evidence answered
	// the case; NotReused why a run given stored reports ran it now ("" for
	// neither).
	ReusedFrom, NotReused string
	// Command is what ran, args and all (escape.Argv); "" when the case
	// did not run, which shows its Args instead.
	Command            string
	Args               []string
	ArgsMore           string
	Stdin, Exit, Flags string
	SandboxError       string
	Streams            []streamView
}

type streamView struct {
	Name, Matcher, Verdict, Reason string
	Left, Right                    string
	Omitted                        string
	Rows                           []row
	Notes                          []string
}

type row struct {
	Class  string
	LN, RN string
	L, R   []seg
}

func build(r report.Report, lim Limits) view {
	v := view{
		Style: template.CSS(style), Script: template.JS(script),
		Verdict: r.Verdict.String(), Spec: one(r.SpecPath(), nameRunes),
		RunID: one(r.RunID, 80), Tool: one(r.Tool.Name+" "+r.Tool.Version, 80),
		Started:  r.StartedAt.UTC().Format(time.RFC3339),
		Duration: (time.Duration(r.DurationMS) * time.Millisecond).String(),
		Programs: r.Counts.Programs, Cases: r.Counts.Cases,
		Interrupted: r.Interrupted, Error: one(r.Error, reasonRunes),
		PageSize: lim.PageSize,
	}
	v.Bar = bar(r.Counts.Programs)
	v.Reuse = reuseOf(r.Reuse)
	for i, e := range r.SpecErrors {
		if i == 100 {
			v.SpecErrors = append(v.SpecErrors, fmt.Sprintf("… and %d more", len(r.SpecErrors)-i))
			break
		}
		v.SpecErrors = append(v.SpecErrors, one(fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Message), reasonRunes))
	}
	v.Ks, v.Groups = groupsView(r.Groups)
	c := r.Counts.Programs
	if c.False+c.Undetermined > 0 {
		v.Check.False, v.Check.Undetermined = true, true
	} else {
		v.Check.True, v.Check.False, v.Check.Undetermined = true, true, true
	}

	// Every stream of a case that is not true shares the output budget:
	// each side gets budget/(2·streams), within [MinSide, Side], while the
	// budget lasts.
	streams := 0
	for i := range r.Programs {
		p := &r.Programs[i]
		if n, _ := p.BuildFailed(); n > 0 {
			streams += 2 // the build's
			continue
		}
		for _, cs := range p.Cases {
			if cs.Verdict != verdict.True {
				streams += 2
			}
		}
	}
	b := &budget{left: lim.OutputBudget, lines: lim.SideLines, bytes: lim.SideBytes}
	if streams > 0 {
		per := lim.OutputBudget / (2 * streams)
		b.bytes = max(lim.MinSideBytes, min(lim.SideBytes, per))
		b.lines = max(lim.MinSideLines, min(lim.SideLines, lim.SideLines*b.bytes/lim.SideBytes))
	}
	detailed, filesLeft := 0, filesPageMax
	for i := range r.Programs {
		p := &r.Programs[i]
		pv := programView{
			Index: i, Verdict: p.Verdict.String(), NotGating: p.NotGating, Name: one(p.Name, nameRunes), File: one(p.File, nameRunes),
			Folder: p.Dir != "", Entry: one(p.Entry, nameRunes),
			Reason:   one(p.Reason, reasonRunes),
			Duration: timeOf(p),
			Files:    filesOf(p, &filesLeft),
		}
		var t report.Tally
		for _, cs := range p.Cases {
			t.Add(cs.Verdict)
		}
		pv.Tally = fmt.Sprintf("%s: %d true, %d false, %d undetermined", verdict.Count(t.Total, "case", "cases"), t.True, t.False, t.Undetermined)
		if n := p.ReusedCases(); n > 0 {
			pv.Tally += fmt.Sprintf(" · %d reused", n)
		}
		for k, s := range slices.Concat(p.AcquisitionReasons, p.SandboxWarnings) {
			if k == notesMax {
				pv.Warnings = append(pv.Warnings, fmt.Sprintf("… and %d more", len(p.AcquisitionReasons)+len(p.SandboxWarnings)-k))
				break
			}
			pv.Warnings = append(pv.Warnings, one(s, reasonRunes))
		}
		if n, reason := p.BuildFailed(); n > 0 {
			pv.Build = buildOf(p.Build, n, reason, b)
			v.List = append(v.List, pv)
			continue
		}
		left := 0
		for j := range p.Cases {
			cs := &p.Cases[j]
			if cs.Verdict == verdict.True {
				continue
			}
			if detailed == lim.MaxCases {
				left++
				continue
			}
			detailed++
			pv.Cases = append(pv.Cases, caseOf(r, cs, b))
		}
		if left > 0 {
			more := verdict.Plural(left, "case that is not true is", "cases that are not true are")
			pv.CasesMore = fmt.Sprintf("%d more %s not shown: the page shows %s in detail; the JSON report has them.", left, more, verdict.Count(lim.MaxCases, "case", "cases"))
		}
		v.List = append(v.List, pv)
	}
	if b.spent > 0 {
		v.Notes = append(v.Notes, fmt.Sprintf("The output of %s is not shown: the page's budget for output (%d KiB) is spent. The JSON report has it.", verdict.Count(b.spent, "stream", "streams"), lim.OutputBudget>>10))
	}
	if b.cut > 0 {
		v.Notes = append(v.Notes, fmt.Sprintf("%s cut at %s or %d KiB a side; each says what it leaves out.", verdict.Plural(b.cut, "1 excerpt of output is", fmt.Sprintf("%d excerpts of output are", b.cut)), verdict.Count(b.lines, "line", "lines"), b.bytes>>10))
	}
	return v
}

// filesOf is the account of p's files when it has more than one or is a
// folder (nil otherwise): at most filesMax of them, and at most *left
// over the page, which it lowers by the files it lists.
func filesOf(p *report.Program, left *int) *filesView {
	n := max(p.FileCount, len(p.Files))
	if p.Dir == "" && n <= 1 {
		return nil
	}
	switch {
	case p.FilesOmitted:
		// Its count and digest stay; the list was given up for the
		// cases' output.
		return &filesView{Omitted: true, Summary: fmt.Sprintf("%s (list left out of the report for its size budget)", verdict.Count(n, "file", "files"))}
	case len(p.Files) == 0:
		return nil // a report of an earlier behaves, which lists none
	}
	fv := &filesView{}
	var total int64
	for _, f := range p.Files {
		total += max(f.Bytes, 0)
	}
	fv.Summary = verdict.Count(len(p.Files), "file", "files") + ", " + size(total)
	for k, f := range p.Files {
		if k == filesMax || *left == 0 {
			fv.More = fmt.Sprintf("… and %d more %s: the JSON report lists them.", len(p.Files)-k, verdict.Plural(len(p.Files)-k, "file", "files"))
			break
		}
		*left--
		v := fileView{Path: one(f.Path, nameRunes), Size: size(f.Bytes), Target: one(f.Target, nameRunes)}
		if f.Target != "" {
			v.Size = "link"
		}
		// A folder's own file is at its place under the folder; anything
		// else (a with: file, a one-file program's files) says where in
		// the repository it came from.
		if p.Dir == "" || f.Source != path.Join(p.Dir, f.Path) {
			v.Source = one(f.Source, nameRunes)
		}
		fv.List = append(fv.List, v)
	}
	return fv
}

// size is a byte count for a person: bytes below 1 KiB, else KiB or MiB
// with one decimal.
func size(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	default:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	}
}

// reuseOf is the page's account of a run given stored reports, nil for a
// run given none.
func reuseOf(ru *report.Reuse) *reuseView {
	if ru == nil {
		return nil
	}
	rv := &reuseView{Reused: ru.Reused, Invocations: ru.Reused + ru.Ran}
	for k, s := range ru.Sources {
		if k > 0 {
			rv.More = append(rv.More, one(s.RunID, 80))
			continue
		}
		rv.From = one(s.RunID, 80)
		var about []string
		if sha := s.ShortCommit(); sha != "" {
			about = append(about, "commit "+one(sha, 12))
		}
		if id := s.GitHub.RunID; id != "" {
			run := "Actions run " + one(id, 20)
			if repo := s.GitHub.Repository; repo != "" {
				run += " of " + one(repo, nameRunes)
			}
			about = append(about, run)
		}
		rv.About = strings.Join(about, ", ")
	}
	for _, rc := range ru.NotReused {
		rv.Reasons = append(rv.Reasons, reasonView{Cases: rc.Cases, Reason: one(rc.Reason, 80)})
	}
	return rv
}

// budget is what is left of the page's output budget.
type budget struct {
	left         int
	lines, bytes int
	// spent counts the streams not shown for want of budget; cut the
	// excerpts shortened.
	spent, cut int
}

func bar(t report.Tally) []barPart {
	if t.Total == 0 {
		return nil
	}
	var parts []barPart
	x := 0.0
	for _, p := range []struct {
		class, name string
		n           int
	}{{"t", "true", t.True}, {"f", "false", t.False}, {"u", "undetermined", t.Undetermined}} {
		if p.n == 0 {
			continue
		}
		w := 1000 * float64(p.n) / float64(t.Total)
		parts = append(parts, barPart{Class: p.class, Label: fmt.Sprintf("%d %s", p.n, p.name),
			X: strconv.FormatFloat(x, 'f', 2, 64), W: strconv.FormatFloat(w, 'f', 2, 64)})
		x += w
	}
	return parts
}

func groupsView(gs []report.Group) ([]string, []groupView) {
	var ks []int
	for _, g := range gs {
		for key := range g.PassAt {
			if k, err := strconv.Atoi(key); err == nil && !slices.Contains(ks, k) {
				ks = append(ks, k)
			}
		}
	}
	slices.Sort(ks)
	keys := make([]string, len(ks))
	for i, k := range ks {
		keys[i] = strconv.Itoa(k)
	}
	var out []groupView
	for _, g := range gs {
		gv := groupView{Name: one(g.Name, nameRunes), N: g.N, True: g.True, False: g.False, Undetermined: g.Undetermined}
		for _, key := range keys {
			cell := passCell{Value: "n/a"}
			if p := g.PassAt[key]; p != nil {
				cell.Value = strconv.FormatFloat(*p, 'f', -1, 64)
			} else {
				cell.Reason = one(g.PassAtReasons[key], reasonRunes)
			}
			gv.Cells = append(gv.Cells, cell)
		}
		out = append(out, gv)
	}
	return keys, out
}

// timeOf is the time a program took: its build's and its runs'
// (report.Program.TimeMS), with the build's apart.
func timeOf(p *report.Program) string {
	s := (time.Duration(p.TimeMS()) * time.Millisecond).String()
	if p.Build != nil {
		s += " (build " + (time.Duration(p.Build.DurationMS) * time.Millisecond).String() + ")"
	}
	return s
}

func caseOf(r report.Report, c *report.Case, b *budget) caseView {
	e := &c.Event
	cv := caseView{
		Verdict: c.Verdict.String(), Name: one(c.Name, nameRunes), Reason: one(c.Reason, reasonRunes),
		Pos:          one(fmt.Sprintf("%s:%d:%d", r.CaseFile(c), c.Line, c.Col), nameRunes+20),
		SandboxError: one(e.SandboxError, reasonRunes),
	}
	switch {
	case c.ReusedFrom != nil:
		cv.ReusedFrom = fmt.Sprintf("run %s, execution %s", one(c.ReusedFrom.RunID, 80), one(c.ReusedFrom.ExecutionID, 80))
	case c.NotReused != nil:
		cv.NotReused = one(c.NotReused.Reason, 80)
		if c.NotReused.Detail != "" {
			cv.NotReused += ": " + one(c.NotReused.Detail, reasonRunes)
		}
	}
	if len(e.Command) > 0 {
		cv.Command = one(escape.Argv(e.Command), reasonRunes)
	}
	for k, a := range c.Args {
		if k == argsMax {
			cv.ArgsMore = fmt.Sprintf("… %d more", len(c.Args)-argsMax)
			break
		}
		cv.Args = append(cv.Args, one(a, argRunes))
	}
	if c.StdinFile != "" || c.StdinSize > 0 || e.StdinBytes > 0 {
		s := fmt.Sprintf("%s, %d accepted by the program", verdict.Count(c.StdinSize, "byte", "bytes"), e.StdinBytes)
		if c.StdinFile != "" {
			s = "file " + one(c.StdinFile, nameRunes) + ", " + s
		}
		if ex := c.StdinExcerptData(); len(ex) > 0 {
			s += ": " + escape.Shorten(escape.Text(string(ex)), argRunes)
		}
		cv.Stdin = s
	}
	cv.Exit = fmt.Sprintf("expected %s, got none (did not exit)", c.ExpectedExitCode())
	stop := e.Stopped()
	switch {
	case stop != "":
		// 137 is the sandbox's kill, not the program's code.
		cv.Exit = fmt.Sprintf("expected %s, got none: the sandbox stopped the program (%s)", c.ExpectedExitCode(), one(stop, reasonRunes))
	case e.ExitCode != nil:
		cv.Exit = fmt.Sprintf("expected %s, got %d", c.ExpectedExitCode(), *e.ExitCode)
	}
	if c.Expect.ExitCodeReason != "" && stop == "" {
		cv.Exit += ": " + one(c.Expect.ExitCodeReason, reasonRunes)
	}
	cv.Flags = flagsOf(e)
	if s, ok := stream("stdout", c.Expect.Stdout, c.Expected("stdout", c.Expect.Stdout), e.StdoutData(), e.StdoutBytes, e.StdoutTruncated, e.StdoutOmitted, b); ok {
		cv.Streams = append(cv.Streams, withCheckers(s, c))
	}
	if s, ok := stream("stderr", c.Expect.Stderr, c.Expected("stderr", c.Expect.Stderr), e.StderrData(), e.StderrBytes, e.StderrTruncated, e.StderrOmitted, b); ok {
		cv.Streams = append(cv.Streams, withCheckers(s, c))
	}
	return cv
}

// maxCheckerNotes bounds the checker runs a stream lists (a case runs at
// most 100 times).
const maxCheckerNotes = 10

// withCheckers adds to s, one of c's streams, what the checker that
// judged it did on each run: its exit and its first line, the checker's
// words, next to the verdict.
func withCheckers(s streamView, c *report.Case) streamView {
	runs := c.CheckerRunsOf(s.Name)
	for k, cr := range runs {
		if k == maxCheckerNotes {
			s.Notes = append(s.Notes, fmt.Sprintf("… and %d more checker runs: the JSON report has them.", len(runs)-k))
			break
		}
		s.Notes = append(s.Notes, one(cr.Summary(), reasonRunes))
	}
	return s
}

// flagsOf says how an event's run was stopped, if it was.
func flagsOf(e *report.Event) string {
	var flags []string
	if e.TimedOut {
		flags = append(flags, "timed out after "+(time.Duration(e.Limits.TimeoutMS)*time.Millisecond).String())
	}
	if e.ResourceLimit != "" {
		flags = append(flags, "resource limit: "+one(string(e.ResourceLimit), 40))
	}
	return strings.Join(flags, " · ")
}

// buildOf shows a failed build that made all n cases of its program
// false: what it ran, how it ended, and what it wrote (stderr first, where
// compilers write their errors), within the page's output budget.
func buildOf(bs *report.BuildStage, n int, reason string, b *budget) *buildView {
	bv := &buildView{
		Cases:   fmt.Sprintf("%s false: %s", verdict.Plural(n, "its one case", fmt.Sprintf("all %d cases", n)), one(reason, reasonRunes)),
		Command: one(escape.Argv(bs.Command), reasonRunes),
		Exit:    "none (did not exit)",
		Flags:   flagsOf(&bs.Event),
	}
	if bs.ExitCode != nil {
		bv.Exit = strconv.Itoa(*bs.ExitCode)
	}
	for _, o := range []struct {
		name      string
		kept      []byte
		total     int64
		truncated bool
	}{
		{"stderr", bs.StderrData(), bs.StderrBytes, bs.StderrTruncated},
		{"stdout", bs.StdoutData(), bs.StdoutBytes, bs.StdoutTruncated},
	} {
		if s, ok := stream(o.name, nil, nil, o.kept, o.total, o.truncated, false, b); ok {
			s.Left = "" // nothing is expected of a build's output
			bv.Streams = append(bv.Streams, s)
		}
	}
	return bv
}

// stream shows one stream of a case: its matcher and outcome, and the
// expected text next to the kept output, the differing lines marked when
// the matcher is equals. A stream nobody expected anything of is shown
// only when the program wrote to it.
func stream(name string, m *report.MatcherOutcome, expected, kept []byte, total int64, truncated, omitted bool, b *budget) (streamView, bool) {
	if m == nil && total == 0 && len(kept) == 0 && !omitted {
		return streamView{}, false
	}
	s := streamView{Name: name, Left: "expected", Right: "actual"}
	cmp := comparison{norm: verdict.NormalizeTrailing}
	var want []byte
	if m != nil {
		cmp = comparison{norm: m.Normalize, ignoreCase: m.IgnoreCase}
		s.Matcher = one(m.Describe(), 80)
		s.Verdict, s.Reason = m.Verdict.String(), one(m.Reason, reasonRunes)
		want = expected
		switch {
		case m.Kind == verdict.Checker:
			s.Left = "answer (given to the checker)"
		case !m.LinesAlign():
			s.Left = "expected (" + one(string(m.Kind), 20) + ")"
		}
	} else {
		s.Left = "expected (nothing)"
	}
	if truncated {
		s.Right = fmt.Sprintf("actual (%s written, the first %d kept)", verdict.Count(total, "byte", "bytes"), len(kept))
	} else {
		s.Right = fmt.Sprintf("actual (%s)", verdict.Count(total, "byte", "bytes"))
	}
	if omitted {
		s.Omitted = fmt.Sprintf("The output (%s written) was left out of the JSON report to keep it within its size budget (--max-report-size); the verdict was judged on it before.", verdict.Count(total, "byte", "bytes"))
		return s, true
	}
	if b.left < 2*(rowCost+64) {
		b.spent++
		s.Omitted = "Not shown: the page's budget for output is spent. The JSON report has it."
		return s, true
	}
	side := min(b.bytes, b.left/2)
	lw := cut(want, b.lines, side, cmp)
	la := cut(kept, b.lines, side, cmp)
	b.left -= lw.cost() + la.cost()
	if lw.cutBytes > 0 || la.cutBytes > 0 {
		b.cut++
	}
	s.Rows = rows(lw.lines, la.lines, m != nil && m.LinesAlign())
	if n := lw.note(); n != "" {
		s.Notes = append(s.Notes, "expected: "+n+"; the diff covers the lines shown.")
	}
	if n := la.note(); n != "" {
		s.Notes = append(s.Notes, "actual: "+n+"; the diff covers the lines shown.")
	}
	exact := m != nil && m.Normalize == verdict.NormalizeExact
	if exact && len(want) > 0 && lw.noEOL {
		s.Notes = append(s.Notes, "expected: no newline at end")
	}
	if exact && len(kept) > 0 && la.noEOL && la.cutBytes == 0 {
		s.Notes = append(s.Notes, "actual: no newline at end")
	}
	if len(want) == 0 && m != nil {
		s.Notes = append(s.Notes, "expected: empty")
	}
	if len(kept) == 0 {
		s.Notes = append(s.Notes, "actual: empty")
	}
	return s, true
}

// rows lays out two excerpts side by side. With diff, the lines are
// aligned by a line diff and the differing ones marked (chg: a line on
// each side that differ; del: only expected; add: only actual); without,
// they are shown in order, unmarked.
func rows(l, r []line, diff bool) []row {
	var out []row
	pair := func(class string, i, j int) {
		rw := row{Class: class}
		if i >= 0 {
			rw.LN, rw.L = strconv.Itoa(i+1), l[i].Segs
		}
		if j >= 0 {
			rw.RN, rw.R = strconv.Itoa(j+1), r[j].Segs
		}
		out = append(out, rw)
	}
	if !diff {
		for k := 0; k < max(len(l), len(r)); k++ {
			i, j := k, k
			if i >= len(l) {
				i = -1
			}
			if j >= len(r) {
				j = -1
			}
			pair("", i, j)
		}
		return out
	}
	a := make([]string, len(l))
	for i := range l {
		a[i] = l[i].key
	}
	bb := make([]string, len(r))
	for j := range r {
		bb[j] = r[j].key
	}
	ops := linediff.Lines(a, bb)
	i, j := 0, 0
	for k := 0; k < len(ops); k++ {
		o := ops[k]
		switch o.Kind {
		case linediff.Equal:
			for n := 0; n < o.N; n++ {
				pair("", i, j)
				i++
				j++
			}
		case linediff.Delete:
			ins := 0
			if k+1 < len(ops) && ops[k+1].Kind == linediff.Insert {
				ins = ops[k+1].N
				k++
			}
			for n := 0; n < max(o.N, ins); n++ {
				switch {
				case n < o.N && n < ins:
					pair("chg", i, j)
					i++
					j++
				case n < o.N:
					pair("del", i, -1)
					i++
				default:
					pair("add", -1, j)
					j++
				}
			}
		case linediff.Insert:
			for n := 0; n < o.N; n++ {
				pair("add", -1, j)
				j++
			}
		}
	}
	return out
}
