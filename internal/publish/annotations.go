package publish

import (
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/behaves-dev/behaves/internal/escape"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// Level is an annotation's type, as the runner and the Checks API name it
// (the Checks API says "failure" for error; a sink maps it).
type Level string

// The annotation levels behaves uses.
const (
	LevelError   Level = "error"
	LevelWarning Level = "warning"
)

// Bounds on annotation text other than the message.
const (
	titleMaxRunes      = 200
	rawDetailsMaxRunes = 8192
)

// Annotation is one annotation as data: what a check run sends (every one
// of them) and what Command writes for the runner's log. Title, Message and
// RawDetails are inert text (escaped by escape.Text; RawDetails keeps its
// own line breaks between escaped lines).
type Annotation struct {
	Level Level
	// Path is the file, relative to the repository root and
	// slash-separated; "" when the report names no usable path (then the
	// annotation belongs to the run, not to a file).
	Path string
	// StartLine and EndLine are 1-based; Col is 1-based, 0 for none.
	StartLine, EndLine, Col int
	// Title is "<program> / <case>" (or "spec" for a spec error).
	Title string
	// Message is one line, at most AnnotationMessageLimit runes.
	Message string
	// RawDetails holds what was expected next to what came out, one item a
	// line.
	RawDetails string
}

// AnnotationOptions controls Annotations.
type AnnotationOptions struct {
	// LineCount returns how many lines the file at a repository-relative
	// path has, or 0 when it does not know. This package reads no files,
	// and a line number found in a program's output is the program's word:
	// with LineCount the annotation on a program file is clamped to the
	// file's last line. Without it (nil) the line is only clamped to >= 1.
	// The caller must resolve the path inside the workspace itself (the
	// path comes from the report).
	LineCount func(path string) int
}

// Annotations returns every annotation for r, the most useful first:
//
//  1. the spec errors, in the report's order (nothing ran);
//  2. for each false program in spec order, one error at the program
//     file (so that it shows in the diff of the generated code), which
//     describes its deciding case: the runner's ten errors a step go to
//     ten programs before any program gets a second;
//  3. an error at the spec file for each other false case, round by
//     round: the first of every program, then the second, and so on;
//  4. last, an error at the spec file for each case a program-file error
//     already describes (useful in the check run, which has room);
//  5. one warning for each profile and reason that left cases with no
//     evidence at all (an image missing), at the first of them;
//  6. a warning at the spec file for each other undetermined case, in
//     the same round-robin order.
//
// Command and WorkflowCommands write them for the runner, which shows only
// the first AnnotationsPerTypePerStep of each level.
func Annotations(r report.Report, opt AnnotationOptions) []Annotation {
	var out []Annotation
	specFile := repoPath(r.SpecFile)
	for _, e := range r.SpecErrors {
		p := repoPath(specErrorFile(&r, e))
		out = append(out, Annotation{
			Level: LevelError, Path: p, StartLine: max(e.Line, 1), EndLine: max(e.Line, 1), Col: max(e.Col, 0),
			Title: "behaves: spec error", Message: oneLine(e.Message, AnnotationMessageLimit),
		})
	}
	described := map[*report.Case]bool{} // by a program-file error
	for i := range r.Programs {
		if a, at, ok := programAnnotation(&r.Programs[i], opt); ok {
			out = append(out, a)
			if at != nil {
				described[at] = true
			}
		}
	}
	out = append(out, roundRobin(r.Programs, verdict.False, LevelError, specFile, func(c *report.Case) bool { return !described[c] })...)
	out = append(out, roundRobin(r.Programs, verdict.False, LevelError, specFile, func(c *report.Case) bool { return described[c] })...)
	out = append(out, sandboxWarnings(r.Programs, specFile)...)
	out = append(out, roundRobin(r.Programs, verdict.Undetermined, LevelWarning, specFile, func(c *report.Case) bool { return !c.NoEvidence() })...)
	return out
}

// sandboxWarnings is one warning for each profile and reason that left
// cases with no evidence at all (an image missing: every case of every
// program of that profile says the same), at the first such case, naming
// the profile and how many cases and programs it stands for: said once,
// not once a case.
func sandboxWarnings(progs []report.Program, specFile string) []Annotation {
	groups := noEvidenceGroups(progs)
	out := make([]Annotation, 0, len(groups))
	for _, g := range groups {
		a := caseAnnotation(g.prog, g.first, LevelWarning, specFile)
		if g.cases > 1 {
			profile := oneLine(g.prog.Profile, titleMaxRunes)
			a.Title = escape.Shorten("profile "+profile, titleMaxRunes)
			cases := fmt.Sprintf("%d cases", g.cases)
			if g.programs > 1 {
				cases += fmt.Sprintf(" of %d programs", g.programs)
			}
			a.Message = escape.Shorten(fmt.Sprintf("%s (all %s of profile %s, none ran)", caseMessage(g.first), cases, profile), AnnotationMessageLimit)
		}
		out = append(out, a)
	}
	return out
}

// noEvidenceGroup is the undetermined cases with no evidence that share a
// profile and a reason.
type noEvidenceGroup struct {
	first           *report.Case
	prog            *report.Program
	cases, programs int
	last            int // the index of the last program counted
}

// noEvidenceGroups returns the groups in the order of their first case.
func noEvidenceGroups(progs []report.Program) []*noEvidenceGroup {
	type key struct{ profile, reason string }
	var order []*noEvidenceGroup
	groups := map[key]*noEvidenceGroup{}
	for i := range progs {
		p := &progs[i]
		for j := range p.Cases {
			c := &p.Cases[j]
			if c.Verdict != verdict.Undetermined || !c.NoEvidence() {
				continue
			}
			k := key{p.Profile, c.Reason}
			g := groups[k]
			if g == nil {
				g = &noEvidenceGroup{first: c, prog: p, last: -1}
				groups[k] = g
				order = append(order, g)
			}
			g.cases++
			if g.last != i {
				g.programs, g.last = g.programs+1, i
			}
		}
	}
	return order
}

// countAnnotations counts what Annotations returns by level, without
// building them (the summary needs only the numbers).
func countAnnotations(r *report.Report) (errs, warns int) {
	errs = len(r.SpecErrors)
	for i := range r.Programs {
		p := &r.Programs[i]
		if hasProgramAnnotation(p) {
			errs++
		}
		for j := range p.Cases {
			switch c := &p.Cases[j]; {
			case c.Verdict == verdict.False:
				errs++
			case c.Verdict == verdict.Undetermined && !c.NoEvidence():
				warns++
			}
		}
	}
	return errs, warns + len(noEvidenceGroups(r.Programs))
}

// roundRobin returns an annotation at the spec file for every case with
// verdict v that keep admits (nil: every one): the first such case of
// each program, then the second, …
func roundRobin(progs []report.Program, v verdict.Verdict, level Level, specFile string, keep func(*report.Case) bool) []Annotation {
	picked := make([][]*report.Case, len(progs))
	rounds := 0
	for i := range progs {
		for j := range progs[i].Cases {
			if c := &progs[i].Cases[j]; c.Verdict == v && (keep == nil || keep(c)) {
				picked[i] = append(picked[i], c)
			}
		}
		rounds = max(rounds, len(picked[i]))
	}
	var out []Annotation
	for k := 0; k < rounds; k++ {
		for i := range progs {
			if k < len(picked[i]) {
				out = append(out, caseAnnotation(&progs[i], picked[i][k], level, specFile))
			}
		}
	}
	return out
}

// caseAnnotation is the annotation at a case: in its cases file when it
// has one (a path the report makes unusable gives an annotation on no
// file, never one at the spec's line of another file), else in the spec.
func caseAnnotation(p *report.Program, c *report.Case, level Level, specFile string) Annotation {
	line := max(c.Line, 1)
	file := specFile
	if c.File != "" {
		file = repoPath(c.File)
	}
	t := title(p.Name, c.Name)
	if p.NotGating {
		// Its verdict does not decide the run's: it is a warning at most.
		level, t = LevelWarning, escape.Shorten(t+" (not gating)", titleMaxRunes)
	}
	return Annotation{
		Level: level, Path: file, StartLine: line, EndLine: line, Col: max(c.Col, 0),
		Title:      t,
		Message:    caseMessage(c),
		RawDetails: rawDetails(c),
	}
}

func title(program, kase string) string {
	return escape.Shorten(oneLine(program, titleMaxRunes)+" / "+oneLine(kase, titleMaxRunes), titleMaxRunes)
}

// caseMessage is the case's one-line reason (the judge writes it: expected
// vs got, timed out after 5s, …), or its verdict when it has none.
func caseMessage(c *report.Case) string {
	if c.Reason == "" {
		return c.Verdict.String()
	}
	return oneLine(c.Reason, AnnotationMessageLimit)
}

// programAnnotation is the error at a false program's own file: at the
// file and line its failed build's output or a false case's stderr names
// (see locate), else its file (a folder program's entry) at line 1; at is
// the case it describes (nil for a program false with no false case). A
// program whose build failed is annotated as its build, naming the file.
func programAnnotation(p *report.Program, opt AnnotationOptions) (a Annotation, at *report.Case, ok bool) {
	file := programFile(p)
	if p.Verdict != verdict.False || file == "" && p.Dir == "" {
		return Annotation{}, nil, false
	}
	var first *report.Case
	falseCases := 0
	for j := range p.Cases {
		if p.Cases[j].Verdict == verdict.False {
			falseCases++
			if first == nil {
				first = &p.Cases[j]
			}
		}
	}
	at, line, col := first, 1, 0
	loc, found := locate(p)
	if found {
		at, file, line, col = loc.c, loc.file, loc.line, loc.col
	}
	if file == "" { // a folder program without an entry, and no frame in its files
		return Annotation{}, nil, false
	}
	if opt.LineCount != nil {
		if n := opt.LineCount(file); n > 0 && line > n {
			line, col = n, 0
		}
	}
	a = Annotation{Level: LevelError, Path: file, StartLine: line, EndLine: line, Col: col}
	if p.NotGating {
		a.Level = LevelWarning
	}
	if at == nil {
		// False with no false case (a report from elsewhere may say so).
		a.Title = oneLine(p.Name, titleMaxRunes)
		a.Message = oneLine(p.Reason, AnnotationMessageLimit)
		if a.Message == "" {
			a.Message = "false"
		}
		return a, nil, true
	}
	a.Title = title(p.Name, at.Name)
	msg := caseMessage(at)
	if n, reason := p.BuildFailed(); n > 0 {
		// Every case is false by the build, which the annotation is
		// about: titled so, naming the file the compiler named (the
		// build's own message names it as the sandbox saw it).
		a.Title = title(p.Name, "build")
		msg = oneLine(reason, AnnotationMessageLimit)
		if found && loc.build {
			msg = "build failed in " + position(file, line, col) + ": " + strings.TrimPrefix(msg, "build failed: ")
		}
		if n == 1 {
			msg += " (its one case false)"
		} else {
			msg = fmt.Sprintf("%s (all %d cases false)", msg, n)
		}
		falseCases = 0
	}
	switch {
	case falseCases == 2:
		msg += " (and 1 more false case)"
	case falseCases > 2:
		msg = fmt.Sprintf("%s (and %d more false cases)", msg, falseCases-1)
	}
	a.Message = escape.Shorten(msg, AnnotationMessageLimit)
	a.RawDetails = rawDetails(at)
	return a, at, true
}

// rawDetails lists what the case expected next to what came out, in the
// judge's short display forms.
func rawDetails(c *report.Case) string {
	var lines []string
	got := "none (did not exit)"
	switch stop := c.Event.Stopped(); {
	case stop != "":
		// 137 is the sandbox's kill, not the program's code.
		got = "none: the sandbox stopped the program (" + stop + ")"
	case c.Event.ExitCode != nil:
		got = strconv.Itoa(*c.Event.ExitCode)
	}
	lines = append(lines, fmt.Sprintf("exit code: expected %d, got %s", c.Expect.ExitCode, got))
	for _, s := range []struct {
		name string
		m    *report.MatcherOutcome
	}{{"stdout", c.Expect.Stdout}, {"stderr", c.Expect.Stderr}} {
		if s.m == nil {
			continue
		}
		line := fmt.Sprintf("%s: %s: expected %s, got %s", s.name, s.m.Verdict, oneLine(s.m.Expected, rawDetailsMaxRunes), oneLine(s.m.Actual, rawDetailsMaxRunes))
		if s.m.Reason != "" {
			line += " (" + oneLine(s.m.Reason, rawDetailsMaxRunes) + ")"
		}
		lines = append(lines, line)
	}
	if c.Event.TimedOut {
		lines = append(lines, "timed out")
	}
	if c.Event.ResourceLimit != "" {
		lines = append(lines, "killed at the "+oneLine(string(c.Event.ResourceLimit), titleMaxRunes)+" limit")
	}
	if c.Event.SandboxError != "" {
		lines = append(lines, "sandbox: "+oneLine(c.Event.SandboxError, rawDetailsMaxRunes))
	}
	return escape.Shorten(strings.Join(lines, "\n"), rawDetailsMaxRunes)
}

// specErrorFile is the file a spec error is in, relative to the repository
// root when the report says where that is: the spec's spec_file for the
// spec itself, and for another file the spec names (a cases file), whose
// path is given the way the spec's is, the same place relative to the
// spec's folder. Otherwise it is the path as the report gives it (repoPath
// decides whether an annotation may use it).
func specErrorFile(r *report.Report, e report.SpecError) string {
	if e.File == r.Spec || e.File == "" {
		if r.SpecFile != "" {
			return r.SpecFile
		}
		return e.File
	}
	if r.SpecFile == "" {
		return e.File
	}
	rel, err := filepath.Rel(filepath.Dir(r.Spec), e.File)
	if err != nil {
		return e.File
	}
	return path.Join(path.Dir(r.SpecFile), filepath.ToSlash(rel))
}

// hasProgramAnnotation says whether programAnnotation annotates p, as
// cheaply as it can: only a folder program without an entry has to look
// for a position in one of its files (locate).
func hasProgramAnnotation(p *report.Program) bool {
	switch {
	case p.Verdict != verdict.False:
		return false
	case programFile(p) != "":
		return true
	case p.Dir == "":
		return false
	}
	loc, found := locate(p)
	return found && loc.file != ""
}

// programFile is the repository file a false program's annotation is at
// (unless its output names another line; see locate): its file, or a
// folder program's entry ("" for a folder program without one, or a path
// that is not a clean repository path).
func programFile(p *report.Program) string {
	if p.Dir == "" {
		return repoPath(p.File)
	}
	if p.Entry == "" || repoPath(p.Dir) == "" || repoPath(p.Entry) == "" {
		return ""
	}
	return repoPath(path.Join(p.Dir, p.Entry))
}

// repoPath returns p when it is a clean, relative, slash-separated path
// inside the repository with no control or bidi character, else "". The
// report is untrusted: an absolute path, a "..", a backslash or an escape
// never becomes a file= property.
func repoPath(p string) string {
	if p == "" || escape.Text(p) != p || strings.ContainsRune(p, '\\') ||
		path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") {
		return ""
	}
	return p
}

// Command returns a as one workflow command line (without a newline):
// "::error file=…,line=…,endLine=…,col=…,title=…::message". Properties are
// escaped for properties and the message for data, as the runner unescapes
// them. The message was cut to AnnotationMessageLimit runes before this
// escaping, so that the runner, which cuts after unescaping, keeps it whole.
// The line starts with "::", so the runner parses it as this command
// (ActionCommand.TryParseV2) and never looks for a legacy "##[" command in
// the message; report text in it has no line break left to start another.
func (a Annotation) Command() string {
	var props []string
	if a.Path != "" {
		props = append(props, "file="+escapeProperty(a.Path))
		if a.StartLine > 0 {
			props = append(props, "line="+strconv.Itoa(a.StartLine))
			props = append(props, "endLine="+strconv.Itoa(max(a.EndLine, a.StartLine)))
		}
		if a.Col > 0 {
			props = append(props, "col="+strconv.Itoa(a.Col))
		}
	}
	if a.Title != "" {
		props = append(props, "title="+escapeProperty(a.Title))
	}
	cmd := "::" + string(a.Level)
	if len(props) > 0 {
		cmd += " " + strings.Join(props, ",")
	}
	return cmd + "::" + escapeData(a.Message)
}

// WorkflowCommands returns the command lines for the runner: the first
// AnnotationsPerTypePerStep annotations of each level, in the order given
// (Annotations puts the most useful first), and how many were left out. The
// runner would drop those silently; the summary says how many there are.
func WorkflowCommands(anns []Annotation) (lines []string, omitted int) {
	seen := map[Level]int{}
	for _, a := range anns {
		if seen[a.Level] >= AnnotationsPerTypePerStep {
			omitted++
			continue
		}
		seen[a.Level]++
		lines = append(lines, a.Command())
	}
	return lines, omitted
}

// escapeData escapes a command's message as the runner's
// ActionCommand.Unescape undoes it.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a command property's value; ':' and ',' would
// otherwise end the property or the property list.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
