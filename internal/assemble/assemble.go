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

// ProgramResult is what a program's attempt adds to its cases. Its
// verdict and reason are not here: Report folds them from the cases
// (report.Folded), as reportread.Read recomputes them, so that no caller can
// give a program a verdict its cases do not give.
type ProgramResult struct {
	// Duration is the attempt's wall time; when zero, the report uses the
	// sum of the cases' run times.
	Duration time.Duration
}

// Input is everything Report assembles. Observations, Results and
// Programs are index-aligned with Spec.Programs (and
// Observations[i].Events and Results[i] with the program's cases); a
// missing entry (a run stopped before reaching it) makes that program or
// case undetermined with a reason saying so.
type Input struct {
	Spec         *spec.Spec
	Observations []runner.Observation
	// Results are the cases' verdicts: for a case that ran more than once,
	// the fold of its runs (verdict.Fold).
	Results [][]verdict.CaseResult
	// Runs[i][j] are the runs of case j of program i when it ran more than
	// once (nil otherwise); Observations[i].Events[j] is then the first
	// run's event.
	Runs [][][]RunResult
	// References[i][j] are the reference's runs of case j of program i
	// when it is same_as (nil otherwise): its reference_events.
	References  [][][]runner.Event
	Programs    []ProgramResult
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
		r.Programs = make([]report.Program, 0, len(in.Spec.Programs))
		for i, sp := range in.Spec.Programs {
			r.Programs = append(r.Programs, program(in, i, sp))
		}
	}
	return report.Folded(r, in.PassAt)
}

// program assembles program i of the spec, without its verdict and
// reason (report.Folded folds them from its cases).
func program(in Input, i int, sp spec.Program) report.Program {
	p := report.Program{
		ID:            sp.ID,
		Name:          sp.Name,
		Group:         sp.Group,
		File:          sp.File,
		Profile:       sp.Profile,
		Line:          sp.Pos.Line,
		Col:           sp.Pos.Col,
		ProgramSHA256: report.ProgramDigest(sp.Program),
		// Stored evidence is reused and rescored only under the format
		// this behaves records, so every program's evidence is of it.
		EvidenceFormat: report.EvidenceFormat,
		Cases:          make([]report.Case, 0, len(sp.Cases)),
	}
	var obs runner.Observation
	if i < len(in.Observations) {
		obs = in.Observations[i]
		p.ExecutionID = obs.ExecutionID
		p.Acquisition = obs.Acquisition
		p.AcquisitionReasons = append([]string{}, obs.Reasons...)
		p.SandboxWarnings = append([]string{}, obs.SandboxWarnings...)
		p.Settings = report.SettingsOf(obs.Settings)
		if obs.Build != nil {
			b := report.BuildStage{Event: report.EventOf(*obs.Build), Tmpfs: map[string]int64{}}
			if n := obs.Build.BuildOutputBytes; n != nil {
				b.OutputBytes = new(*n)
			}
			b.SetOutput(obs.Build.Stdout.Data, obs.Build.Stderr.Data)
			if in.Spec != nil {
				if bs := in.Spec.Profiles[sp.Profile].Runtime.Build; bs != nil {
					b.OutputSize = bs.OutputSize
					maps.Copy(b.Tmpfs, bs.Tmpfs)
				}
			}
			p.Build = &b
		}
	} else {
		p.Acquisition = runner.AcquisitionError
		p.AcquisitionReasons = []string{reasonNotRun}
	}
	if i < len(in.Programs) {
		p.DurationMS = in.Programs[i].Duration.Milliseconds()
	}
	var results []verdict.CaseResult
	if i < len(in.Results) {
		results = in.Results[i]
	}
	var runs [][]RunResult
	if i < len(in.Runs) {
		runs = in.Runs[i]
	}
	var refs [][]runner.Event
	if i < len(in.References) {
		refs = in.References[i]
	}
	var sum time.Duration
	for j, sc := range sp.Cases {
		var ev *runner.Event
		if j < len(obs.Events) {
			ev = &obs.Events[j]
			sum += ev.Duration
		}
		var res *verdict.CaseResult
		if j < len(results) {
			res = &results[j]
		}
		var rs []RunResult
		if j < len(runs) {
			rs = runs[j]
		}
		c := caseWithOutput(sc, ev, res, rs)
		if j < len(refs) {
			for _, r := range refs[j] {
				e := report.EventOf(r)
				e.SetOutput(r.Stdout.Data, r.Stderr.Data)
				c.ReferenceEvents = append(c.ReferenceEvents, e)
			}
			c.ReferenceApplied = referenceApplied(refs[j])
		}
		p.Cases = append(p.Cases, c)
	}
	if p.DurationMS == 0 {
		p.DurationMS = sum.Milliseconds()
	}
	return p
}

// caseWithOutput assembles one case from the spec, its event, its result
// and, when it ran more than once, its runs; a nil event or result (the
// run stopped before it) makes it undetermined with a reason saying so.
func caseWithOutput(sc spec.Case, ev *runner.Event, res *verdict.CaseResult, runs []RunResult) report.Case {
	c := entry(sc, ev, res, runs)
	if ev != nil {
		c.Event.SetOutput(ev.Stdout.Data, ev.Stderr.Data)
	}
	for k := range c.Runs {
		c.Runs[k].Event.SetOutput(runs[k].Event.Stdout.Data, runs[k].Event.Stderr.Data)
	}
	return c
}

// entry is caseWithOutput without the output itself (the events' counts
// and digests of it are there): what a reportwrite.Writer spools the output
// into. With more than one run, the case holds every run's event and
// verdict, and is nondeterministic as their fold says.
func entry(sc spec.Case, ev *runner.Event, res *verdict.CaseResult, runs []RunResult) report.Case {
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
		Verdict:    verdict.Undetermined,
	}
	if mo.Normalize == "" {
		mo.Normalize = verdict.NormalizeTrailing
	}
	if ch != nil {
		mo.Verdict, mo.Reason = ch.Verdict, ch.Reason
		mo.Expected, mo.Actual = ch.Expected, ch.Actual
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
