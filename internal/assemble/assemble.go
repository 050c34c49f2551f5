package assemble

import (
	"maps"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// RunResult is one run of a case as Report and Writer.AddCase take it:
// the evidence and its judgement alone.
type RunResult struct {
	Event  runner.Event
	Result verdict.CaseResult
}

// Program is the record of one program of the spec: its attempt and one
// record per case, in the spec's order. The run engine, reuse and rescore
// make it; Report and Writer.AddCase consume it. Its verdict and reason
// are not here: Report folds them from the cases (report.Folded), as
// reportread.Read recomputes them, so that no caller can give a program a
// verdict its cases do not give.
type Program struct {
	// Spec is the spec's program.
	Spec spec.Program
	// Attempt is what the program's attempt came to: its execution ID,
	// acquisition, sandbox warnings, settings and build. Its Events are
	// not read: each case holds its own runs.
	Attempt runner.Observation
	// Duration is the attempt's wall time; when zero, the report uses the
	// sum of the cases' run times.
	Duration time.Duration
	// Cases are the program's cases, one per case of Spec, in its order.
	Cases []Case
}

// Input is everything Report assembles. Programs are the spec's programs'
// records, in the spec's order; a case record without runs or verdict (a
// run stopped before reaching it) is undetermined with a reason saying so.
type Input struct {
	Spec        *spec.Spec
	Programs    []Program
	RunID       string
	StartedAt   time.Time
	Duration    time.Duration
	Interrupted bool
	// Err is why the run itself failed (nil otherwise).
	Err     error
	Version string
	// SpecPath is the spec file as given, for a report without a Spec (the
	// spec could not be loaded, or the run has not loaded it yet).
	SpecPath string
	// SpecErrors are the spec's problems when it could not be loaded.
	SpecErrors []spec.Error
	GitHub     report.GitHub
	// PassAt are the k of pass@k for the groups (report.DefaultPassAt
	// when empty).
	PassAt []int
	// Shard is the report's shard (nil for a run of the whole spec).
	Shard *report.Shard
	// Filter are the --program patterns the run was selected by (nil:
	// every program ran).
	Filter []string
	// Reuse holds the stored reports a run was given (nil: none); its
	// counts fold from the cases.
	Reuse *report.Reuse
}

// Reasons used when the input lacks an entry.
const (
	reasonNotRun    = "not run"
	reasonNotJudged = "not judged"
)

// Report assembles the report. It is a pure function of its input (it
// reads no files and judges nothing); the order is the spec's.
func Report(in Input) report.Report {
	r := report.Report{
		Schema:      report.Schema,
		Tool:        report.Tool{Name: report.ToolName, Version: in.Version},
		RunID:       in.RunID,
		StartedAt:   in.StartedAt.UTC(),
		DurationMS:  in.Duration.Milliseconds(),
		Interrupted: in.Interrupted,
		Spec:        in.SpecPath,
		GitHub:      in.GitHub,
		Shard:       in.Shard,
		Filter:      in.Filter,
		Reuse:       in.Reuse,
		Programs:    []report.Program{},
	}
	if in.Err != nil {
		r.Error = in.Err.Error()
	}
	for _, e := range in.SpecErrors {
		r.SpecErrors = append(r.SpecErrors, report.SpecError{File: e.Pos.File, Line: e.Pos.Line, Col: e.Pos.Col, Message: e.Msg})
	}
	if in.Spec != nil {
		r.Spec = in.Spec.Path
		r.SpecFile = relSlash(in.Spec.Root, in.Spec.Path)
		r.Programs = make([]report.Program, 0, len(in.Programs))
		for _, p := range in.Programs {
			r.Programs = append(r.Programs, program(in.Spec, p))
		}
	}
	return report.Folded(r, in.PassAt)
}

// program assembles a program's record, without its verdict and reason
// (report.Folded folds them from its cases).
func program(sp *spec.Spec, rec Program) report.Program {
	prog, obs := rec.Spec, rec.Attempt
	p := report.Program{
		ID:            prog.ID,
		Name:          prog.Name,
		Group:         prog.Group,
		File:          prog.File,
		Profile:       prog.Profile,
		Line:          prog.Pos.Line,
		Col:           prog.Pos.Col,
		ProgramSHA256: prog.Program.Digest(),
		Dir:           folderOf(prog),
		Entry:         entryOf(prog),
		NotGating:     prog.NotGating,
		Files:         filesOf(prog),
		FileCount:     len(prog.Program.Files) + len(prog.Program.Links),
		// Stored evidence is reused and rescored only under the format
		// this behaves records, so every program's evidence is of it.
		EvidenceFormat:     report.EvidenceFormat,
		Cases:              make([]report.Case, 0, len(rec.Cases)),
		ExecutionID:        obs.ExecutionID,
		Acquisition:        obs.Acquisition,
		AcquisitionReasons: append([]string{}, obs.Reasons...),
		SandboxWarnings:    append([]string{}, obs.SandboxWarnings...),
		Settings:           report.SettingsOf(obs.Settings),
		DurationMS:         rec.Duration.Milliseconds(),
	}
	if p.Acquisition == "" {
		p.Acquisition = runner.AcquisitionError
		p.AcquisitionReasons = []string{reasonNotRun}
	}
	if obs.Build != nil {
		b := report.BuildStage{Event: report.EventOf(*obs.Build), Tmpfs: map[string]int64{}}
		if n := obs.Build.BuildOutputBytes; n != nil {
			b.OutputBytes = new(*n)
		}
		b.SetOutput(obs.Build.Stdout.Data, obs.Build.Stderr.Data)
		if bs := sp.Profiles[prog.Profile].Runtime.Build; bs != nil {
			b.OutputSize = bs.OutputSize
			maps.Copy(b.Tmpfs, bs.Tmpfs)
		}
		p.Build = &b
	}
	var sum time.Duration
	for _, k := range rec.Cases {
		if len(k.Runs) > 0 {
			sum += k.Runs[0].Event.Duration
		}
		p.Cases = append(p.Cases, caseWithOutput(k))
	}
	if p.DurationMS == 0 {
		p.DurationMS = sum.Milliseconds()
	}
	return p
}

// caseWithOutput assembles one case from its record; a record without
// runs or verdict (the run stopped before it) is undetermined with a
// reason saying so.
func caseWithOutput(k Case) report.Case {
	c := entry(k)
	if len(k.Runs) > 0 {
		ev := k.Runs[0].Event
		c.Event.SetOutput(ev.Stdout.Data, ev.Stderr.Data)
	}
	for r := range c.Runs {
		c.Runs[r].Event.SetOutput(k.Runs[r].Event.Stdout.Data, k.Runs[r].Event.Stderr.Data)
	}
	for r, ev := range k.References {
		c.ReferenceEvents[r].SetOutput(ev.Stdout.Data, ev.Stderr.Data)
	}
	for r, cr := range k.Checkers {
		c.CheckerRuns[r].Event.SetOutput(cr.Event.Stdout.Data, cr.Event.Stderr.Data)
	}
	return c
}

// entry is caseWithOutput without the output itself (the events' counts
// and digests of it are there): what a reportwrite.Writer spools the output
// into. With more than one run, the case holds every run's event and
// verdict, and is nondeterministic as their fold says.
func entry(k Case) report.Case {
	sc, runs := k.Spec, k.Runs
	var ev *runner.Event
	if len(runs) > 0 {
		ev = &runs[0].Event
	}
	// A zero result (undetermined, with no reason) is one not given: the
	// case did not run, or was not judged.
	var res *verdict.CaseResult
	if k.Result.Verdict != verdict.Undetermined || k.Result.Reason != "" {
		res = &k.Result
	}
	c := report.Case{
		Name:      sc.Name,
		File:      sc.File,
		Line:      sc.Pos.Line,
		Col:       sc.Pos.Col,
		Args:      append([]string{}, sc.Invocation.Args...),
		StdinFile: sc.StdinFile,
	}
	c.SetStdin(sc.Invocation.Stdin)
	if ev != nil {
		c.Event = report.EventOf(*ev)
	} else {
		c.Event = report.EventOf(runner.Event{})
	}
	var checks []verdict.Check
	switch {
	case res != nil:
		c.Verdict, c.Reason, checks = res.Verdict, res.Reason, res.Checks
	case ev == nil:
		c.Verdict, c.Reason = verdict.Undetermined, reasonNotRun
	case ev.SandboxError != "":
		c.Verdict, c.Reason = verdict.Undetermined, ev.SandboxError
	default:
		c.Verdict, c.Reason = verdict.Undetermined, reasonNotJudged
	}
	exp := sc.Expect
	if sa := exp.SameAs; sa != nil {
		exp.ExitCode = 0
		if res != nil && res.Derived != nil {
			exp.ExitCode = res.Derived.ExitCode
		}
	}
	c.Expect = expect(exp, checks)
	if sa := exp.SameAs; sa != nil {
		c.Expect.SameAs = &report.SameAs{Reference: sa.Reference, Streams: append([]string{}, sa.Streams...), Normalize: sa.Normalize, IgnoreCase: sa.IgnoreCase}
	}
	c.Runs = []report.Run{}
	c.ReferenceEvents = []report.Event{}
	if len(runs) > 1 {
		results := make([]verdict.CaseResult, len(runs))
		for k, r := range runs {
			results[k] = r.Result
			c.Runs = append(c.Runs, report.Run{Verdict: r.Result.Verdict, Reason: r.Result.Reason, Event: report.EventOf(r.Event)})
		}
		c.Nondeterministic = verdict.Fold(results).Nondeterministic
	}
	for _, r := range k.References {
		c.ReferenceEvents = append(c.ReferenceEvents, report.EventOf(r))
	}
	c.ReferenceApplied = referenceApplied(k.References)
	c.CheckerRuns = make([]report.CheckerRun, 0, len(k.Checkers))
	for _, cr := range k.Checkers {
		rc := report.CheckerRun{
			Checker: cr.Checker, Run: cr.Run, Stream: cr.Stream,
			ProgramSHA256: cr.ProgramSHA256, InputSHA256: cr.InputSHA256, OutputSHA256: cr.OutputSHA256, AnswerSHA256: cr.AnswerSHA256,
			BuildImageID: cr.BuildImageID, BuildRepoDigest: cr.BuildRepoDigest,
			Event: report.EventOf(cr.Event),
		}
		if cr.Applied != nil {
			a := report.AppliedOf(*cr.Applied)
			rc.Applied = &a
		}
		c.CheckerRuns = append(c.CheckerRuns, rc)
	}
	c.ReusedFrom, c.NotReused = k.ReusedFrom, k.NotReused
	return c
}

// expect is the case's expectation with the outcome of each check.
func expect(exp verdict.Expectation, checks []verdict.Check) report.Expect {
	e := report.Expect{ExitCode: exp.ExitCode}
	var out, errc *verdict.Check
	for k := range checks {
		ch := &checks[k]
		switch ch.What {
		case "exit_code":
			e.ExitCodeVerdict, e.ExitCodeReason = ch.Verdict, ch.Reason
		case "stdout":
			out = ch
		case "stderr":
			errc = ch
		}
	}
	e.Stdout = matcherOutcome(exp.Stdout, out)
	e.Stderr = matcherOutcome(exp.Stderr, errc)
	return e
}

func matcherOutcome(m *verdict.Matcher, ch *verdict.Check) *report.MatcherOutcome {
	if m == nil && ch != nil {
		m = ch.Matcher
	}
	if m == nil {
		return nil
	}
	mo := &report.MatcherOutcome{
		Kind:       m.Kind,
		Value:      m.Value,
		IgnoreCase: m.IgnoreCase,
		Normalize:  m.Normalize,
		Unordered:  m.Unordered,
		Lines:      m.Lines,
		Subset:     m.Subset,
		Abs:        m.Abs,
		Rel:        m.Rel,
		Matchers:   []report.MatcherOutcome{},
		Verdict:    verdict.Undetermined,
		Checker:    m.Checker,
		AnswerFile: m.AnswerFile,
		// The reference's output, which the case's reference_events hold.
		AnswerReference: m.AnswerReference,
	}
	if mo.Normalize == "" {
		mo.Normalize = verdict.NormalizeTrailing
	}
	if m.Kind == verdict.Checker {
		mo.Value = m.Answer
	}
	if ch != nil {
		mo.Verdict, mo.Reason = ch.Verdict, ch.Reason
		mo.Expected, mo.Actual = ch.Expected, ch.Actual
	}
	for i := range m.All {
		var part *verdict.Check
		if ch != nil && i < len(ch.Parts) {
			part = &ch.Parts[i]
		}
		mo.Matchers = append(mo.Matchers, *matcherOutcome(&m.All[i], part))
	}
	return mo
}

// relSlash returns path relative to root, slash-separated, or "" when path
// is not inside root. Relative paths are taken against the working
// directory.
func relSlash(root, path string) string {
	if root == "" || path == "" {
		return ""
	}
	if filepath.IsAbs(root) != filepath.IsAbs(path) {
		var err error
		if root, err = filepath.Abs(root); err != nil {
			return ""
		}
		if path, err = filepath.Abs(path); err != nil {
			return ""
		}
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// referenceApplied is what a same_as case's reference runs were built
// from: their attempt's, when every run recorded the same (nil when one
// recorded none: the case's key then leaves the reference's settings
// unrecorded, and it is never reused).
func referenceApplied(refs []runner.Event) *report.Applied {
	if len(refs) == 0 || refs[0].Applied == nil {
		return nil
	}
	for _, r := range refs[1:] {
		if r.Applied == nil || !reflect.DeepEqual(*r.Applied, *refs[0].Applied) {
			return nil
		}
	}
	a := report.AppliedOf(refs[0].Applied.Clone())
	return &a
}

// folderOf is a folder program's folder ("" for a one-file program).
func folderOf(p spec.Program) string {
	if !p.Program.Folder {
		return ""
	}
	return p.File
}

// filesOf is what prog delivers, with where each file comes from.
func filesOf(prog spec.Program) []report.ProgramFile {
	l := prog.Program.List()
	out := make([]report.ProgramFile, len(l))
	for i, e := range l {
		out[i] = report.ProgramFile{Path: e.Path, Source: prog.Source(e.Path), Mode: e.Mode, Bytes: e.Bytes, SHA256: e.SHA256, Target: e.Target}
	}
	return out
}

// entryOf is a folder program's entry ("" for none, and for a one-file
// program).
func entryOf(p spec.Program) string {
	if !p.Program.Folder {
		return ""
	}
	return p.Program.Entry
}
