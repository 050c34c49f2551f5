// Package rescore judges stored evidence again: the events of an earlier
// report against the spec's current expectations, without running
// anything. It owns the rule of when stored evidence can answer: the
// program, how it ran and each case's input must be what the spec says
// now; anything else is an error that names what differs, never a silent
// re-run.
package rescore

import (
	"fmt"
	"slices"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/evidence"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// ReasonOmitted is the reason of a case whose stored output was left out of
// the report (its size budget): its digest cannot be judged.
const ReasonOmitted = "the stored report kept only a digest of this case's output (its size budget left the bytes out): rescoring cannot judge it; run it again"

// Evidence is what Match found: for each spec program, the stored
// observation and each case's judgement against the current spec, ready
// for assemble.Report.
type Evidence struct {
	Observations []runner.Observation
	Results      [][]verdict.CaseResult
	// Runs holds, for a case that ran more than once, each stored run
	// judged again (assemble.Input's Runs).
	Runs [][][]assemble.RunResult
	// References holds a same_as case's stored reference runs
	// (assemble.Input's References).
	References [][][]runner.Event
	Programs   []assemble.ProgramResult
}

// Match pairs each program of sp with its stored entry in old (by id) and
// each case with its stored case (by name), checks that the stored
// evidence answers for the spec as it is now, and judges it. Every
// mismatch is a spec.Error at the program's or the case's position in sp,
// naming what differs; any makes the result nil.
func Match(sp *spec.Spec, old report.Report, oldPath string) (*Evidence, spec.Errors) {
	var errs spec.Errors
	fail := func(pos spec.Pos, format string, args ...any) {
		errs = append(errs, spec.Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
	}
	if len(old.SpecErrors) > 0 {
		fail(spec.Pos{File: sp.Path, Line: 1, Col: 1}, "%s holds no evidence: its run stopped at spec errors and ran nothing", oldPath)
		return nil, errs
	}
	byID := make(map[string]*report.Program, len(old.Programs))
	for i := range old.Programs {
		byID[old.Programs[i].ID] = &old.Programs[i]
	}
	ev := &Evidence{
		Observations: make([]runner.Observation, len(sp.Programs)),
		Results:      make([][]verdict.CaseResult, len(sp.Programs)),
		Runs:         make([][][]assemble.RunResult, len(sp.Programs)),
		References:   make([][][]runner.Event, len(sp.Programs)),
		Programs:     make([]assemble.ProgramResult, len(sp.Programs)),
	}
	inputs, inputOf := sp.References(nil)
	byName := make(map[string]spec.Program, len(sp.Programs))
	for _, p := range sp.Programs {
		byName[p.Name] = p
	}
	for i, p := range sp.Programs {
		op := byID[p.ID]
		if op == nil {
			fail(p.Pos, "program %q (%s): %s has no evidence for it (id %s): run it with behaves run", p.Name, p.File, oldPath, p.ID)
			continue
		}
		prof := sp.Job(p).Profile // ProgramName set as the run sets it
		before := len(errs)
		if op.EvidenceFormat == 0 {
			// An unrecorded format is not "stopped early": the whole
			// attempt is of a behaves that recorded none.
			fail(p.Pos, "program %q: %s was written by an earlier behaves, which did not record its evidence format: run it again", p.Name, oldPath)
			continue
		}
		// What the stored attempt did not record because it stopped
		// before running anything is not held against it: its cases are
		// undetermined, and stay so. An attempt whose programs ran and
		// that recorded no settings is refused: nothing says what they
		// ran under.
		diffs := evidence.DiffProgram(evidence.WantProgram(prof, p.Program), evidence.StoredProgram(op))
		if !ranAny(op) {
			diffs = recorded(diffs)
		}
		for _, d := range diffs {
			switch {
			case d.Part == evidence.PartFormat:
				fail(p.Pos, "program %q: %s: run it again", p.Name, d.Msg)
			case d.Part == evidence.PartProgram:
				fail(p.Pos, "program %q: %s %s: run it again", p.Name, p.File, d.Msg)
			default:
				fail(p.Pos, "program %q: profile %q's %s: run it again", p.Name, p.Profile, d.Msg)
			}
		}
		stored := make(map[string]*report.Case, len(op.Cases))
		for k := range op.Cases {
			stored[op.Cases[k].Name] = &op.Cases[k]
		}
		obs := runner.Observation{
			ExecutionID:     op.ExecutionID,
			Acquisition:     op.Acquisition,
			Reasons:         slices.Clone(op.AcquisitionReasons),
			SandboxWarnings: slices.Clone(op.SandboxWarnings),
			Settings:        op.Settings,
			Events:          make([]runner.Event, len(p.Cases)),
		}
		if op.Build != nil {
			b, _ := op.Build.RunnerEvent() // its output is not judged again
			obs.Build = &b
		}
		results := make([]verdict.CaseResult, len(p.Cases))
		runs := make([][]assemble.RunResult, len(p.Cases))
		refRuns := make([][]runner.Event, len(p.Cases))
		for k, c := range p.Cases {
			oc := stored[c.Name]
			if oc == nil {
				fail(c.Pos, "case %q of program %q: %s has no such case: run it with behaves run", c.Name, p.Name, oldPath)
				continue
			}
			if want, got := max(c.Repeat, 1), oc.RunCount(); want != got {
				fail(c.Pos, "case %q of program %q: repeat is %d, the stored case ran %d %s: run it again", c.Name, p.Name, want, got, evidence.Times(got))
				continue
			}
			for _, d := range caseDiff(c, oc) {
				fail(c.Pos, "case %q of program %q: %s: run it again", c.Name, p.Name, d.Msg)
			}
			// A same_as case is judged against its stored reference runs,
			// which must be the reference's as the spec has it now.
			var refs []runner.Event
			refsWhole := true
			if sa := c.Expect.SameAs; sa != nil {
				in := inputOf[i][k]
				ref, ok := byName[sa.Reference]
				if in < 0 || !ok {
					fail(c.Pos, "case %q of program %q: its reference %q is not in the spec", c.Name, p.Name, sa.Reference)
					continue
				}
				var d []evidence.Difference
				refs, refsWhole, d = referenceDiff(sp, ref, inputs[in], c, oc, op.EvidenceFormat)
				for _, m := range d {
					msg := m.Msg
					if m.Part == evidence.PartReference+"."+evidence.PartProgram {
						msg = ref.File + " " + msg
					}
					fail(c.Pos, "case %q of program %q: reference %q: %s: run it again", c.Name, p.Name, sa.Reference, msg)
				}
				refRuns[k] = refs
			} else if d := evidence.DiffReference(nil, storedReferences(op.EvidenceFormat, c.Invocation.Args, oc)); len(d) > 0 {
				fail(c.Pos, "case %q of program %q: %s: run it again", c.Name, p.Name, d[0].Msg)
				continue
			}
			// Every stored run is judged again; the case's event is the
			// first run's.
			stored := []report.Event{oc.Event}
			if len(oc.Runs) > 1 {
				stored = stored[:0]
				for _, r := range oc.Runs {
					stored = append(stored, r.Event)
				}
			}
			rs := make([]assemble.RunResult, len(stored))
			judged := make([]verdict.CaseResult, len(stored))
			for r, se := range stored {
				e, whole := se.RunnerEvent()
				// Judged as the run engine judges a run, unless the stored
				// output (or the reference's) was left out.
				res := verdict.CaseResult{Verdict: verdict.Undetermined, Reason: ReasonOmitted}
				if whole && refsWhole {
					res = verdict.JudgeRun(c.Expect, refs, e)
				}
				rs[r], judged[r] = assemble.RunResult{Event: e, Result: res}, res
			}
			obs.Events[k] = rs[0].Event
			results[k] = verdict.Fold(judged).CaseResult
			if len(rs) > 1 {
				runs[k] = rs
			}
		}
		if len(errs) > before {
			continue
		}
		ev.Observations[i] = obs
		ev.Results[i] = results
		ev.Runs[i] = runs
		ev.References[i] = refRuns
		ev.Programs[i] = assemble.ProgramResult{Duration: time.Duration(op.DurationMS) * time.Millisecond}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return ev, nil
}

// ranAny is true when a case of op ran (its event has an exit code).
func ranAny(op *report.Program) bool {
	for _, c := range op.Cases {
		if c.Event.ExitCode != nil {
			return true
		}
	}
	return false
}

// recorded is d without the parts the stored run did not record.
func recorded(d []evidence.Difference) []evidence.Difference {
	out := d[:0:0]
	for _, x := range d {
		if !x.Unrecorded {
			out = append(out, x)
		}
	}
	return out
}

// referenceDiff checks a same_as case's stored reference runs against the
// reference's key now: its program, its image, as many runs as the
// reference makes of this input (the largest repeat of the cases that
// share it), and each run's input, command and limits under the
// reference's profile: the settings its runs were built from are the
// case's own record (ReferenceApplied), never the reference program's
// attempt, which is another attempt and may be another entry's. format is
// the stored attempt's. It returns the runs as events, whether all of
// their output was kept whole, and what differs.
func referenceDiff(sp *spec.Spec, ref spec.Program, in spec.ReferenceInput, c spec.Case, oc *report.Case, format int) ([]runner.Event, bool, []evidence.Difference) {
	want := slices.Repeat([]evidence.Key{evidence.Want(sp.Job(ref).Profile, ref.Program, c.Invocation, nil, 0)}, max(in.Repeat, 1))
	if oc.Expect.SameAs == nil {
		return nil, false, evidence.DiffReference(want, nil)
	}
	events := make([]runner.Event, 0, len(oc.ReferenceEvents))
	whole := true
	for _, se := range oc.ReferenceEvents {
		e, ok := se.RunnerEvent()
		e.Applied = oc.ReferenceApplied // recorded again with the case
		whole = whole && ok
		events = append(events, e)
	}
	return events, whole, evidence.DiffReference(want, storedReferences(format, c.Invocation.Args, oc))
}

// storedReferences are the keys of a case's stored reference runs
// (recorded under format), taken with the case's args now (a change of
// args is the case's own difference, not its reference's).
func storedReferences(format int, args []string, oc *report.Case) []evidence.Key {
	keys := make([]evidence.Key, len(oc.ReferenceEvents))
	for i, se := range oc.ReferenceEvents {
		keys[i] = evidence.StoredReference(format, args, se, oc.ReferenceApplied)
	}
	return keys
}

// caseDiff lists how a case's input (args, stdin) differs from the stored
// case's events (its event and each run's), each difference once.
func caseDiff(c spec.Case, oc *report.Case) []evidence.Difference {
	want := evidence.WantRun(c.Invocation)
	events := []report.Event{oc.Event}
	for _, r := range oc.Runs {
		events = append(events, r.Event)
	}
	var d []evidence.Difference
	for _, e := range events {
		for _, m := range recorded(evidence.DiffRun(want, evidence.StoredRun(oc.Args, e))) {
			if !slices.ContainsFunc(d, func(o evidence.Difference) bool { return o.Msg == m.Msg }) {
				d = append(d, m)
			}
		}
	}
	return d
}
