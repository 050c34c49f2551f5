package publish

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/behaves-dev/behaves/internal/escape"
	"github.com/behaves-dev/behaves/internal/ghlimits"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// Options controls the markdown renderers.
type Options struct {
	// RunURL links the workflow run (make it with RunURL); "" for no link.
	// A value that is not a plain http(s) URL is left out.
	RunURL string
	// Annotations says that the caller writes WorkflowCommands for this
	// report: the text then says how many annotations the runner does not
	// show.
	Annotations bool
	// CheckRun says that a check run is posted, carrying the first
	// CheckRunAnnotations annotations (github.MaxCheckRunAnnotations; this
	// package does not import the GitHub client): the text counts those it
	// does not carry, all of them when CheckRunAnnotations is 0.
	CheckRun            bool
	CheckRunAnnotations int
}

// Display bounds for report text in markdown.
const (
	nameMaxRunes   = 80
	reasonMaxRunes = 300
	argMaxRunes    = 120
	argsMax        = 20
	notesMax       = 5
	messageRunes   = 1000
	// noteReserve is what the trimming note may take; it holds numbers
	// only, so its size is known in advance.
	noteReserve = 1024
)

// stage is one level of detail. The renderers try them in order and keep
// the first whose text fits the budget whole.
type stage struct {
	// trueRows lists true programs in the table.
	trueRows bool
	// blockBytes and blockLines bound each block of output or expected
	// text.
	blockBytes, blockLines int
}

var stages = []stage{
	{trueRows: true, blockBytes: 4096, blockLines: 40},  // all
	{trueRows: false, blockBytes: 4096, blockLines: 40}, // failing only
	{trueRows: false, blockBytes: 512, blockLines: 8},   // shortened
}

// Summary returns the job summary for GITHUB_STEP_SUMMARY, strictly below
// StepSummaryLimit bytes.
func Summary(r report.Report, opt Options) string {
	return render(r, opt, StepSummaryLimit-1, "")
}

// Comment returns the pull-request comment body, at most
// ghlimits.CommentBytes bytes, starting with Marker(r) on a line of its own.
func Comment(r report.Report, opt Options) string {
	return render(r, opt, ghlimits.CommentBytes, Marker(r)+"\n")
}

// CheckRunSummary returns a check run's output.summary, at most
// ghlimits.CheckRunSummaryBytes bytes.
func CheckRunSummary(r report.Report, opt Options) string {
	return render(r, opt, ghlimits.CheckRunSummaryBytes, "")
}

// Headline returns one line of counts for r, e.g. "3 of 40 programs false,
// 2 undetermined". It holds numbers only, so it is safe anywhere (a check
// run's title, a log line).
func Headline(r report.Report) string {
	pc := r.Counts.Programs
	switch {
	case len(r.SpecErrors) > 0:
		return fmt.Sprintf("the spec has %d %s; nothing ran", len(r.SpecErrors), verdict.Plural(len(r.SpecErrors), "error", "errors"))
	case pc.Total == 0:
		return "no program was judged"
	case pc.True == pc.Total:
		return fmt.Sprintf("all %d %s true", pc.Total, verdict.Plural(pc.Total, "program", "programs"))
	}
	return fmt.Sprintf("%d of %d %s false, %d undetermined%s", pc.False, pc.Total, verdict.Plural(pc.Total, "program", "programs"), pc.Undetermined, pc.NondeterministicText())
}

var (
	repositoryRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)
	runIDRE      = regexp.MustCompile(`^[0-9]{1,20}$`)
	linkRE       = regexp.MustCompile(`^https?://[A-Za-z0-9.:\-\[\]]+(/[A-Za-z0-9_.~\-/]*)?$`)
)

// RunURL returns the link to a workflow run,
// "<serverURL>/<repository>/actions/runs/<runID>", from the values of
// GITHUB_SERVER_URL, GITHUB_REPOSITORY and GITHUB_RUN_ID, or an error
// naming the value that is not what the runner sets.
func RunURL(serverURL, repository, runID string) (string, error) {
	u, err := url.Parse(serverURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil ||
		u.RawQuery != "" || u.Fragment != "" || strings.Trim(u.Path, "/") != "" {
		return "", fmt.Errorf("GITHUB_SERVER_URL %q is not an http or https URL of a server", serverURL)
	}
	if !repositoryRE.MatchString(repository) {
		return "", fmt.Errorf("GITHUB_REPOSITORY %q is not owner/name", repository)
	}
	if !runIDRE.MatchString(runID) {
		return "", fmt.Errorf("GITHUB_RUN_ID %q is not a number", runID)
	}
	link := u.Scheme + "://" + u.Host + "/" + repository + "/actions/runs/" + runID
	if !linkRE.MatchString(link) {
		return "", fmt.Errorf("GITHUB_SERVER_URL %q has characters a link cannot hold", serverURL)
	}
	return link, nil
}

// render tries each stage and returns the first text that fits budget
// bytes whole, else the last stage's, with what it left out counted.
func render(r report.Report, opt Options, budget int, marker string) string {
	var out string
	for _, st := range stages {
		d := &doc{r: &r, opt: opt, st: st}
		var complete bool
		out, complete = d.render(budget, marker)
		if complete {
			break
		}
	}
	return out
}

// doc renders one stage.
type doc struct {
	r   *report.Report
	opt Options
	st  stage

	body strings.Builder
	left int // bytes the body may still take
	full bool

	rowsOmitted, trueRowsLeftOut, casesOmitted, specErrorsOmitted int
}

// add appends piece to the body if it fits; once one piece does not, the
// body is full and takes nothing more (so that a table or a list is never
// continued after a gap).
func (d *doc) add(piece string) bool {
	if d.full || len(piece) > d.left {
		d.full = true
		return false
	}
	d.left -= len(piece)
	d.body.WriteString(piece)
	return true
}

func (d *doc) render(budget int, marker string) (string, bool) {
	head := marker + d.head()
	foot := d.foot()
	d.left = budget - len(head) - len(foot) - noteReserve
	d.specErrors()
	d.table()
	d.samples()
	d.notes()
	d.details()
	complete := d.rowsOmitted+d.casesOmitted+d.specErrorsOmitted == 0
	return head + d.note(budget) + d.body.String() + foot, complete
}

func mark(v verdict.Verdict) string {
	switch v {
	case verdict.True:
		return "✅"
	case verdict.False:
		return "❌"
	default:
		return "⚠️"
	}
}

func (d *doc) head() string {
	r := d.r
	var sb strings.Builder
	fmt.Fprintf(&sb, "## %s behaves: %s\n\n", mark(r.Verdict), Headline(*r))
	fmt.Fprintf(&sb, "Spec %s · ", code(r.SpecPath(), nameMaxRunes))
	if cc := r.Counts.Cases; cc.Total > 0 {
		fmt.Fprintf(&sb, "%d %s: %d true, %d false, %d undetermined%s · ", cc.Total, verdict.Plural(cc.Total, "case", "cases"), cc.True, cc.False, cc.Undetermined, cc.NondeterministicText())
	}
	fmt.Fprintf(&sb, "%s\n\n", ms(r.DurationMS))
	if r.Reuse != nil {
		sb.WriteString(d.reuse(r.Reuse))
	}
	if r.Interrupted {
		sb.WriteString("**The run was interrupted**: what was not observed is undetermined.\n\n")
	}
	if r.Error != "" {
		fmt.Fprintf(&sb, "**The run failed**: %s\n\n", code(r.Error, messageRunes))
	}
	return sb.String()
}

// reuse is the paragraph of a run given stored reports: how many
// invocations their evidence answered, from which run (its commit and its
// Actions run, linked when the run's own link gives the server), and how
// many cases ran now for each reason (at most notesMax of them). Its size
// is bounded: one source is named, and the reasons are short.
func (d *doc) reuse(ru *report.Reuse) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "**Reused** %d of %d %s", ru.Reused, ru.Reused+ru.Ran, verdict.Plural(ru.Reused+ru.Ran, "invocation", "invocations"))
	if len(ru.Sources) > 0 {
		s := ru.Sources[0]
		fmt.Fprintf(&sb, " from run %s", code(s.RunID, nameMaxRunes))
		var about []string
		if sha := s.ShortCommit(); sha != "" {
			about = append(about, "commit "+code(sha, 12))
		}
		if id := s.GitHub.RunID; id != "" {
			run := "Actions run " + code(id, 20)
			if link := d.sourceRunURL(s.GitHub); link != "" {
				run = fmt.Sprintf("[Actions run %s](%s)", id, link)
			}
			if repo := s.GitHub.Repository; repo != "" && repo != d.r.GitHub.Repository {
				run += " of " + code(repo, nameMaxRunes+60)
			}
			about = append(about, run)
		}
		if len(about) > 0 {
			sb.WriteString(" (" + strings.Join(about, ", ") + ")")
		}
		if n := len(ru.Sources) - 1; n > 0 {
			fmt.Fprintf(&sb, " and %d more %s", n, verdict.Plural(n, "run", "runs"))
		}
	}
	sb.WriteString(".")
	if len(ru.NotReused) > 0 {
		parts := make([]string, 0, notesMax+1)
		for k, rc := range ru.NotReused {
			if k == notesMax {
				parts = append(parts, fmt.Sprintf("… %d more %s", len(ru.NotReused)-notesMax, verdict.Plural(len(ru.NotReused)-notesMax, "reason", "reasons")))
				break
			}
			parts = append(parts, fmt.Sprintf("%d %s", rc.Cases, code(rc.Reason, reasonMaxRunes)))
		}
		fmt.Fprintf(&sb, " Ran now (cases by reason): %s.", strings.Join(parts, ", "))
	}
	sb.WriteString("\n\n")
	return sb.String()
}

// sourceRunURL links a stored run's Actions run on the server of this
// run's own link (opt.RunURL), built by RunURL from the source's
// repository and run ID; "" when either is missing or not in its form.
func (d *doc) sourceRunURL(g report.GitHub) string {
	if !linkRE.MatchString(d.opt.RunURL) {
		return ""
	}
	u, err := url.Parse(d.opt.RunURL)
	if err != nil {
		return ""
	}
	link, err := RunURL(u.Scheme+"://"+u.Host, g.Repository, g.RunID)
	if err != nil {
		return ""
	}
	return link
}

func (d *doc) foot() string {
	r := d.r
	var sb strings.Builder
	sb.WriteString("\n---\n\n")
	// The foot holds numbers only, and the body's budget is what the head
	// and the foot leave: these sentences never push the text past it.
	errs, warns := countAnnotations(r)
	notSent := 0
	if d.opt.CheckRun {
		notSent = max(errs+warns-d.opt.CheckRunAnnotations, 0)
	}
	if d.opt.Annotations {
		if omitted := max(errs-AnnotationsPerTypePerStep, 0) + max(warns-AnnotationsPerTypePerStep, 0); omitted > 0 {
			where := "the JSON report has every case"
			switch {
			case d.opt.CheckRun && notSent == 0:
				where = "the check run carries them all"
			case d.opt.CheckRun:
				where = fmt.Sprintf("the check run carries the first %d", d.opt.CheckRunAnnotations)
			}
			fmt.Fprintf(&sb, "%d more %s than the runner shows (it keeps %d errors and %d warnings a step): %s.\n\n",
				omitted, verdict.Plural(omitted, "annotation", "annotations"), AnnotationsPerTypePerStep, AnnotationsPerTypePerStep, where)
		}
	}
	if notSent > 0 {
		fmt.Fprintf(&sb, "%d of the %d annotations were not sent to the check run: it carries the first %d, so that publishing takes a bounded number of API requests. The JSON report has every case.\n\n",
			notSent, errs+warns, d.opt.CheckRunAnnotations)
	}
	fmt.Fprintf(&sb, "behaves %s · run %s", code(r.Tool.Version, nameMaxRunes), code(r.RunID, nameMaxRunes))
	if linkRE.MatchString(d.opt.RunURL) {
		fmt.Fprintf(&sb, " · [workflow run](%s)", d.opt.RunURL)
	}
	sb.WriteString("\n")
	return sb.String()
}

// note says what this stage left out, or "" when nothing was.
func (d *doc) note(budget int) string {
	var parts []string
	if d.trueRowsLeftOut > 0 {
		parts = append(parts, fmt.Sprintf("the %d true %s left out of the table", d.trueRowsLeftOut, verdict.Plural(d.trueRowsLeftOut, "program is", "programs are")))
	}
	if d.st.blockBytes < stages[0].blockBytes {
		parts = append(parts, fmt.Sprintf("output is cut to %d bytes and %d lines a block", d.st.blockBytes, d.st.blockLines))
	}
	if d.specErrorsOmitted > 0 {
		parts = append(parts, fmt.Sprintf("%d %s not listed", d.specErrorsOmitted, verdict.Plural(d.specErrorsOmitted, "spec error is", "spec errors are")))
	}
	if d.rowsOmitted > 0 {
		parts = append(parts, fmt.Sprintf("%d %s not in the table", d.rowsOmitted, verdict.Plural(d.rowsOmitted, "program is", "programs are")))
	}
	if d.casesOmitted > 0 {
		parts = append(parts, fmt.Sprintf("%d %s not described", d.casesOmitted, verdict.Plural(d.casesOmitted, "case that is not true is", "cases that are not true are")))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("> **Trimmed** to stay within GitHub's limit of %d bytes: %s. The JSON report has everything.\n\n", budget, strings.Join(parts, "; "))
}

func (d *doc) specErrors() {
	errs := d.r.SpecErrors
	if len(errs) == 0 {
		return
	}
	d.add("### Spec errors\n\n| Where | Problem |\n| --- | --- |\n")
	for i, e := range errs {
		where := fmt.Sprintf("%s:%d:%d", specErrorFile(d.r, e), e.Line, e.Col)
		if !d.add(fmt.Sprintf("| %s | %s |\n", cell(where, nameMaxRunes+20), cell(e.Message, messageRunes))) {
			d.specErrorsOmitted = len(errs) - i
			break
		}
	}
	d.add("\n")
}

func (d *doc) table() {
	progs := d.r.Programs
	if len(progs) == 0 {
		return
	}
	// A run given stored reports says, for each program, how many of its
	// cases they answered.
	reused := d.r.Reuse != nil
	if reused {
		d.add("| | Program | Passed | Failed | Undetermined | Reused | Time | Image |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n")
	} else {
		d.add("| | Program | Passed | Failed | Undetermined | Time | Image |\n| --- | --- | ---: | ---: | ---: | ---: | --- |\n")
	}
	for i := range progs {
		p := &progs[i]
		if p.Verdict == verdict.True && !d.st.trueRows {
			d.trueRowsLeftOut++
			continue
		}
		var t report.Tally
		for _, c := range p.Cases {
			t.Add(c.Verdict)
		}
		counts := fmt.Sprintf("%d | %d | %d", t.True, t.False, t.Undetermined)
		if reused {
			counts += fmt.Sprintf(" | %d", p.ReusedCases())
		}
		took := ms(p.TimeMS()) // the build's and the runs' (report.Program.TimeMS)
		if p.Build != nil {
			took += " (build " + ms(p.Build.DurationMS) + ")"
		}
		row := fmt.Sprintf("| %s %s | %s | %s | %s | %s |\n", mark(p.Verdict), p.VerdictText(),
			cell(p.Name, nameMaxRunes), counts, took, imageCell(p))
		if !d.add(row) {
			d.rowsOmitted++
		}
	}
	d.add("\n")
}

// imageCell is the program's image in short form: the name (if any) and
// the first 12 hex digits of its digest.
func imageCell(p *report.Program) string {
	img := p.Settings.Image
	if img == "" {
		img = p.Settings.ImageID
	}
	if img == "" {
		return "—"
	}
	name, digest, found := strings.Cut(img, "@")
	if !found {
		name, digest = "", img
	}
	if algo, hexd, ok := strings.Cut(digest, ":"); ok && len(hexd) > 12 {
		digest = algo + ":" + hexd[:12]
	}
	if name != "" {
		digest = escape.Shorten(name, 40) + "@" + digest
	}
	return cell(digest, 80)
}

// samplesMaxEntries bounds the files: entries the summary lists.
const samplesMaxEntries = 50

// samples writes, for every files: glob entry (the report's groups), how
// many of its samples are true and pass@k.
func (d *doc) samples() {
	var lines []string
	for i, g := range d.r.Groups {
		if i == samplesMaxEntries {
			lines = append(lines, fmt.Sprintf("- … %d more %s in the JSON report\n", len(d.r.Groups)-i, verdict.Plural(len(d.r.Groups)-i, "entry", "entries")))
			break
		}
		l := fmt.Sprintf("- %s: %d of %s true", code(g.Name, nameMaxRunes), g.True, verdict.Count(g.N, "sample", "samples"))
		if g.Undetermined > 0 {
			l += fmt.Sprintf(", %d undetermined", g.Undetermined)
		}
		if pk := g.PassAtText(); pk != "" {
			l += " · " + pk
		}
		lines = append(lines, l+"\n")
		for _, k := range g.Ks() {
			if why, ok := g.NullReason(k); ok {
				lines = append(lines, fmt.Sprintf("  - pass@%d: %s\n", k, code(why, reasonMaxRunes)))
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	d.add("**Samples** (`files:` entries)\n\n")
	for _, l := range lines {
		d.add(l)
	}
	d.add("\n")
}

// notes lists, for every program the sandbox did not observe whole or
// could not clean up after, what it said (a program none of whose cases ran
// says it in its own block instead).
func (d *doc) notes() {
	headed := false
	for i := range d.r.Programs {
		p := &d.r.Programs[i]
		incomplete := p.Incomplete()
		if _, n := p.SharedNoEvidenceReason(); n > 1 || (!incomplete && len(p.SandboxWarnings) == 0) {
			continue
		}
		if !headed {
			d.add("**Sandbox notes**\n\n")
			headed = true
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, "- %s\n", code(p.Name, nameMaxRunes))
		var sub strings.Builder
		d.programNotes(&sub, p)
		for _, l := range strings.SplitAfter(strings.TrimSuffix(sub.String(), "\n"), "\n") {
			sb.WriteString("  " + l)
		}
		sb.WriteString("\n")
		d.add(sb.String())
	}
	if headed {
		d.add("\n")
	}
}

// details writes a collapsible block for every case that is not true:
// false ones first, then undetermined ones, each in spec order. A program
// none of whose cases ran, all for one reason (its image is missing), gets
// one block for all of them.
func (d *doc) details() {
	headed := false
	shared := sharedByProfile(d.r.Programs)
	for _, v := range []verdict.Verdict{verdict.False, verdict.Undetermined} {
		for i := range d.r.Programs {
			p := &d.r.Programs[i]
			if n, reason := p.BuildFailed(); n > 0 {
				// One block for the program: its build failed, no case ran.
				if v == verdict.False {
					if !headed {
						d.add("### Cases that are not true\n\n")
						headed = true
					}
					if d.full || !d.add(d.buildBlock(p, reason, n)) {
						d.casesOmitted += n
					}
				}
				continue
			}
			if reason, n := p.SharedNoEvidenceReason(); n > 1 {
				if v == verdict.Undetermined {
					if !headed {
						d.add("### Cases that are not true\n\n")
						headed = true
					}
					block := d.programBlock(p, reason, n)
					if g := shared[i]; g != nil {
						// Several programs of one profile, none of whose cases
						// ran, for one reason (its image is missing): said
						// once, at the first of them.
						if g[0] != i {
							continue
						}
						block, n = d.profileBlock(g, reason)
					}
					if d.full || !d.add(block) {
						d.casesOmitted += n
					}
				}
				continue
			}
			for j := range p.Cases {
				c := &p.Cases[j]
				if c.Verdict != v {
					continue
				}
				if !headed {
					d.add("### Cases that are not true\n\n")
					headed = true
				}
				if d.full || !d.add(d.caseBlock(p, c)) {
					d.casesOmitted++
				}
			}
		}
	}
}

// buildBlock is the one block for a program whose build failed: what the
// build ran, how it ended, and what it wrote.
func (d *doc) buildBlock(p *report.Program, reason string, n int) string {
	b := p.Build
	var sb strings.Builder
	fmt.Fprintf(&sb, "<details>\n<summary>%s %s: %s false: %s</summary>\n\n",
		mark(verdict.False), htmlCode(p.Name, nameMaxRunes), verdict.Plural(n, "its one case", fmt.Sprintf("all %d cases", n)), htmlCode(reason, reasonMaxRunes))
	fmt.Fprintf(&sb, "- spec: %s\n", code(fmt.Sprintf("%s:%d:%d", d.r.SpecPath(), p.Line, p.Col), nameMaxRunes+20))
	sb.WriteString(programWhere(p))
	if loc, ok := locate(p); ok && loc.build {
		// The compiler names the file as the sandbox saw it (./calc.go in
		// the program's folder): this is the repository's.
		fmt.Fprintf(&sb, "- build error in: %s\n", code(position(loc.file, loc.line, loc.col), nameMaxRunes+40))
	}
	fmt.Fprintf(&sb, "- build command: %s\n", code(escape.Argv(b.Command), reasonMaxRunes))
	got := "none (did not exit)"
	if b.ExitCode != nil {
		got = "`" + strconv.Itoa(*b.ExitCode) + "`"
	}
	fmt.Fprintf(&sb, "- build exit code: %s\n", got)
	if f := flags(&b.Event); f != "" {
		fmt.Fprintf(&sb, "- flags: %s\n", f)
	}
	sb.WriteString("\n")
	d.stream(&sb, "stderr", nil, nil, b.StderrData(), b.StderrBytes, b.StderrTruncated)
	d.stream(&sb, "stdout", nil, nil, b.StdoutData(), b.StdoutBytes, b.StdoutTruncated)
	sb.WriteString("</details>\n\n")
	return sb.String()
}

// sharedByProfile groups the programs none of whose cases ran, all for
// one reason (report.Program.SharedNoEvidenceReason), by profile and reason: for each program of a
// group of two or more, the indices of the group's programs in order.
func sharedByProfile(progs []report.Program) map[int][]int {
	type key struct{ profile, reason string }
	groups := map[key][]int{}
	for i := range progs {
		if reason, n := progs[i].SharedNoEvidenceReason(); n > 1 {
			k := key{progs[i].Profile, reason}
			groups[k] = append(groups[k], i)
		}
	}
	out := map[int][]int{}
	for _, g := range groups {
		if len(g) > 1 {
			for _, i := range g {
				out[i] = g
			}
		}
	}
	return out
}

// profileBlock is the one block for the programs of one profile whose
// cases never ran for one reason: the reason once, then each program (at
// most notesMax) with its place; and how many cases it stands for.
func (d *doc) profileBlock(group []int, reason string) (string, int) {
	first := &d.r.Programs[group[0]]
	cases := 0
	for _, i := range group {
		cases += len(d.r.Programs[i].Cases)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "<details>\n<summary>%s profile %s: all %d cases of %d programs undetermined: %s</summary>\n\n",
		mark(verdict.Undetermined), htmlCode(first.Profile, nameMaxRunes), cases, len(group), htmlCode(reason, reasonMaxRunes))
	for k, i := range group {
		if k == notesMax {
			fmt.Fprintf(&sb, "- … %d more %s\n", len(group)-notesMax, verdict.Plural(len(group)-notesMax, "program", "programs"))
			break
		}
		p := &d.r.Programs[i]
		fmt.Fprintf(&sb, "- %s: %s, spec %s\n", code(p.Name, nameMaxRunes), code(p.File, nameMaxRunes+40),
			code(fmt.Sprintf("%s:%d:%d", d.r.SpecPath(), p.Line, p.Col), nameMaxRunes+20))
	}
	sb.WriteString("\n</details>\n\n")
	return sb.String(), cases
}

// programBlock is the one block for a program whose cases never ran.
func (d *doc) programBlock(p *report.Program, reason string, n int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "<details>\n<summary>%s %s: all %d cases undetermined: %s</summary>\n\n",
		mark(verdict.Undetermined), htmlCode(p.Name, nameMaxRunes), n, htmlCode(reason, reasonMaxRunes))
	fmt.Fprintf(&sb, "- spec: %s\n", code(fmt.Sprintf("%s:%d:%d", d.r.SpecPath(), p.Line, p.Col), nameMaxRunes+20))
	sb.WriteString(programWhere(p))
	d.programNotes(&sb, p)
	sb.WriteString("\n</details>\n\n")
	return sb.String()
}

// programNotes lists what the sandbox said about the whole program when
// it did not observe everything, and what it could not clean up.
func (d *doc) programNotes(sb *strings.Builder, p *report.Program) {
	if p.Incomplete() {
		fmt.Fprintf(sb, "- acquisition: %s\n", code(string(p.Acquisition), 20))
		for k, a := range p.AcquisitionReasons {
			if k == notesMax {
				fmt.Fprintf(sb, "  - … %d more\n", len(p.AcquisitionReasons)-notesMax)
				break
			}
			fmt.Fprintf(sb, "  - %s\n", code(a, reasonMaxRunes))
		}
	}
	for k, w := range p.SandboxWarnings {
		if k == notesMax {
			fmt.Fprintf(sb, "- … %d more sandbox %s\n", len(p.SandboxWarnings)-notesMax, verdict.Plural(len(p.SandboxWarnings)-notesMax, "warning", "warnings"))
			break
		}
		fmt.Fprintf(sb, "- sandbox warning: %s\n", code(w, reasonMaxRunes))
	}
}

func (d *doc) caseBlock(p *report.Program, c *report.Case) string {
	var sb strings.Builder
	sb.WriteString("<details>\n<summary>")
	fmt.Fprintf(&sb, "%s %s / %s", mark(c.Verdict), htmlCode(p.Name, nameMaxRunes), htmlCode(c.Name, nameMaxRunes))
	if c.Reason != "" {
		fmt.Fprintf(&sb, ": %s", htmlCode(c.Reason, reasonMaxRunes))
	}
	if c.Reused() {
		sb.WriteString(" · reused")
	}
	sb.WriteString("</summary>\n\n")

	e := &c.Event
	fmt.Fprintf(&sb, "- spec: %s\n", code(fmt.Sprintf("%s:%d:%d", d.r.CaseFile(c), c.Line, c.Col), nameMaxRunes+20))
	sb.WriteString(programWhere(p))
	switch {
	case c.ReusedFrom != nil:
		fmt.Fprintf(&sb, "- reused: the stored evidence of run %s (execution %s), judged again\n",
			code(c.ReusedFrom.RunID, nameMaxRunes), code(c.ReusedFrom.ExecutionID, nameMaxRunes))
	case c.NotReused != nil:
		fmt.Fprintf(&sb, "- ran now: %s", code(c.NotReused.Reason, reasonMaxRunes))
		if c.NotReused.Detail != "" {
			fmt.Fprintf(&sb, ": %s", code(c.NotReused.Detail, reasonMaxRunes))
		}
		sb.WriteString("\n")
	}
	if len(e.Command) > 0 {
		// What ran, args and all, split as a shell would read it.
		fmt.Fprintf(&sb, "- command: %s\n", code(escape.Argv(e.Command), reasonMaxRunes))
	} else {
		sb.WriteString("- args:")
		if len(c.Args) == 0 {
			sb.WriteString(" none")
		}
		for k, a := range c.Args {
			if k == argsMax {
				fmt.Fprintf(&sb, " … %d more", len(c.Args)-argsMax)
				break
			}
			sb.WriteString(" " + code(a, argMaxRunes))
		}
		sb.WriteString("\n")
	}
	// The report keeps the start of stdin (report.StdinExcerptMax bytes),
	// its size and what the program accepted of it; the block follows the
	// list.
	stdin := c.StdinExcerptData()
	if c.StdinFile != "" || c.StdinSize > 0 || e.StdinBytes > 0 {
		sb.WriteString("- stdin:")
		if c.StdinFile != "" {
			sb.WriteString(" file " + code(c.StdinFile, nameMaxRunes+40) + ",")
		}
		fmt.Fprintf(&sb, " %s, %d accepted by the program\n", verdict.Count(c.StdinSize, "byte", "bytes"), e.StdinBytes)
	}
	got := "none (did not exit)"
	stop := e.Stopped()
	switch {
	case stop != "":
		// 137 is the sandbox's kill, not the program's code.
		got = "none: the sandbox stopped the program (" + code(stop, reasonMaxRunes) + ")"
	case e.ExitCode != nil:
		got = "`" + strconv.Itoa(*e.ExitCode) + "`"
	}
	if sa := c.Expect.SameAs; sa != nil {
		fmt.Fprintf(&sb, "- same as reference %s (%s; the exit code and %s compared): what is expected below is the reference's run 1\n",
			code(sa.Reference, reasonMaxRunes), verdict.Count(len(c.ReferenceEvents), "run", "runs"), code(strings.Join(sa.Streams, ", "), reasonMaxRunes))
	}
	fmt.Fprintf(&sb, "- exit code: expected `%s`, got %s", c.ExpectedExitCode(), got)
	if c.Expect.ExitCodeReason != "" && stop == "" {
		fmt.Fprintf(&sb, ": %s", code(c.Expect.ExitCodeReason, reasonMaxRunes))
	}
	sb.WriteString("\n")
	if f := flags(e); f != "" {
		fmt.Fprintf(&sb, "- flags: %s\n", f)
	}
	if e.SandboxError != "" {
		fmt.Fprintf(&sb, "- sandbox error: %s\n", code(e.SandboxError, reasonMaxRunes))
	}
	caseRuns(&sb, c)
	sb.WriteString("\n")
	if len(stdin) > 0 {
		if int64(len(stdin)) < c.StdinSize {
			fmt.Fprintf(&sb, "**stdin** (the first %d of %s):\n\n", len(stdin), verdict.Count(c.StdinSize, "byte", "bytes"))
		} else {
			fmt.Fprintf(&sb, "**stdin** (%s):\n\n", verdict.Count(len(stdin), "byte", "bytes"))
		}
		d.block(&sb, stdin, false)
	}
	d.stream(&sb, "stdout", c.Expect.Stdout, c.Expected("stdout", c.Expect.Stdout), e.StdoutData(), e.StdoutBytes, e.StdoutTruncated)
	d.stream(&sb, "stderr", c.Expect.Stderr, c.Expected("stderr", c.Expect.Stderr), e.StderrData(), e.StderrBytes, e.StderrTruncated)
	sb.WriteString("</details>\n\n")
	return sb.String()
}

// caseRuns lists the runs of a case that ran more than once: how many of
// each verdict, then each run that is not true with its reason (at most
// notesMax). The exit code and streams shown are the first run's.
func caseRuns(sb *strings.Builder, c *report.Case) {
	if len(c.Runs) == 0 {
		return
	}
	rt := c.RunTally()
	fmt.Fprintf(sb, "- runs: %d (%d true, %d false, %d undetermined); the exit code and output shown are run 1's\n",
		rt.Total, rt.True, rt.False, rt.Undetermined)
	shown := 0
	for k, r := range c.Runs {
		if r.Verdict == verdict.True {
			continue
		}
		if shown == notesMax {
			fmt.Fprintf(sb, "  - … %d more in the JSON report\n", rt.Total-rt.True-shown)
			break
		}
		shown++
		fmt.Fprintf(sb, "  - run %d: %s %s: %s\n", k+1, mark(r.Verdict), r.Verdict, code(r.Reason, reasonMaxRunes))
	}
}

// flags names what the sandbox recorded: timed_out, resource_limit and
// truncated streams.
func flags(e *report.Event) string {
	var f []string
	if e.TimedOut {
		f = append(f, fmt.Sprintf("`timed_out` (after %s)", ms(e.Limits.TimeoutMS)))
	}
	if e.ResourceLimit != "" {
		f = append(f, "`resource_limit` "+code(string(e.ResourceLimit), 20))
	}
	if e.StdoutTruncated {
		f = append(f, fmt.Sprintf("`stdout_truncated` (%s written)", verdict.Count(e.StdoutBytes, "byte", "bytes")))
	}
	if e.StderrTruncated {
		f = append(f, fmt.Sprintf("`stderr_truncated` (%s written)", verdict.Count(e.StderrBytes, "byte", "bytes")))
	}
	return strings.Join(f, " · ")
}

// stream writes a stream's matcher and outcome, the expected text and an
// excerpt of the output; a stream nobody expected anything of only when
// the program wrote to it.
func (d *doc) stream(sb *strings.Builder, name string, m *report.MatcherOutcome, want, kept []byte, total int64, truncated bool) {
	if m == nil && total == 0 && len(kept) == 0 {
		return
	}
	// Only under exact comparison does a final newline matter enough to
	// point out its absence.
	exact := m != nil && m.Normalize == verdict.NormalizeExact
	if m != nil {
		fmt.Fprintf(sb, "**%s** (%s): %s %s", name, code(m.Describe(), 60), mark(m.Verdict), m.Verdict)
		if m.Reason != "" {
			fmt.Fprintf(sb, ": %s", code(m.Reason, reasonMaxRunes))
		}
		sb.WriteString("\n\n")
		// An equals check that failed on the whole output: the diff
		// first, then the texts in full (case blocks never nest, so they
		// follow it rather than folding one more level down).
		// Against an empty side the diff says no more than the blocks.
		if m.LinesAlign() && m.Verdict == verdict.False && !truncated && int64(len(kept)) == total && len(kept) > 0 && m.Value != "" {
			diff := unifiedDiff([]byte(m.Value), kept, m.Normalize != verdict.NormalizeExact)
			ex := newExcerpt(diff, d.st.blockBytes, d.st.blockLines)
			ex.fenceAs(sb, "diff")
			if ex.rest > 0 {
				fmt.Fprintf(sb, "*… %d more %s of the diff not shown*\n", ex.rest, verdict.Plural(ex.rest, "byte", "bytes"))
			}
			sb.WriteString("\n")
		}
		sb.WriteString(m.ExpectedLabel() + ":\n\n")
		d.block(sb, want, exact)
	} else {
		fmt.Fprintf(sb, "**%s** (no expectation)\n\n", name)
	}
	if truncated {
		fmt.Fprintf(sb, "actual (%s written, the first %d kept):\n\n", verdict.Count(total, "byte", "bytes"), len(kept))
	} else {
		fmt.Fprintf(sb, "actual (%s):\n\n", verdict.Count(total, "byte", "bytes"))
	}
	d.block(sb, kept, exact)
}

// block writes an excerpt of untrusted text as a fenced block; with
// markEOL, a missing final newline is pointed out.
func (d *doc) block(sb *strings.Builder, data []byte, markEOL bool) {
	if len(data) == 0 {
		sb.WriteString("*(empty)*\n\n")
		return
	}
	ex := newExcerpt(data, d.st.blockBytes, d.st.blockLines)
	ex.fence(sb)
	switch {
	case ex.rest > 0:
		fmt.Fprintf(sb, "*… %d more %s not shown*\n", ex.rest, verdict.Plural(ex.rest, "byte", "bytes"))
	case markEOL && ex.noEOL:
		sb.WriteString("*no newline at end*\n")
	}
	sb.WriteString("\n")
}

func ms(v int64) string { return (time.Duration(v) * time.Millisecond).String() }

// programWhere is a program's line of its details: its file, or for a
// program that is a folder of files, its folder and entry.
func programWhere(p *report.Program) string {
	if p.Dir == "" {
		return fmt.Sprintf("- program file: %s\n", code(p.File, nameMaxRunes+40))
	}
	s := fmt.Sprintf("- program folder: %s", code(p.Dir, nameMaxRunes+40))
	if p.Entry != "" {
		s += fmt.Sprintf(", entry %s", code(p.Entry, nameMaxRunes+40))
	}
	return s + "\n"
}
