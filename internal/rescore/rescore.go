// Package rescore judges stored evidence again: the events of an earlier
// report against the spec's current expectations, without running
// anything. Whether a stored case answers a case of the spec now is
// package match's to say; rescore's policy is that every case must be
// answered: anything that differs is an error at the spec's position that
// names it, never a silent re-run. A case a checker judges is judged with
// the stored checker runs whose key is the spec's now (the checker's
// files, image, settings and build, the input, the stored run's output and
// the answer); rescore runs no checker, so any other is refused, naming
// the checker.
package rescore

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/evidence"
	"github.com/behaves-dev/behaves/internal/match"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// ReasonOmitted is the reason of a case whose stored output was left out of
// the report (its size budget): its digest cannot be judged.
const ReasonOmitted = "the stored report kept only a digest of this case's output (its size budget left the bytes out): rescoring cannot judge it; run it again"

// Match pairs each program of sp with its stored entry in old (by id) and
// each case with its stored case (by name), checks that the stored
// evidence answers for the spec as it is now, and judges it: the records
// of sp's programs, ready for assemble.Report. Every mismatch is a
// spec.Error at the program's or the case's position in sp, naming what
// differs; any makes the result nil.
func Match(sp *spec.Spec, old report.Report, oldPath string) ([]assemble.Program, spec.Errors) {
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
	var records []assemble.Program
	wants := match.Wants(sp, nil, nil)
	for i, p := range sp.Programs {
		op := byID[p.ID]
		if op == nil {
			fail(p.Pos, "program %q (%s): %s has no evidence for it (id %s): run it with behaves run", p.Name, p.File, oldPath, p.ID)
			continue
		}
		before := len(errs)
		if op.EvidenceFormat == 0 {
			// An unrecorded format is not "stopped early": the whole
			// attempt is of a behaves that recorded none.
			fail(p.Pos, "program %q: %s was written by an earlier behaves, which did not record its evidence format: run it again", p.Name, oldPath)
			continue
		}
		byName := make(map[string]*report.Case, len(op.Cases))
		for k := range op.Cases {
			byName[op.Cases[k].Name] = &op.Cases[k]
		}
		obs := runner.Observation{
			ExecutionID:     op.ExecutionID,
			Acquisition:     op.Acquisition,
			Reasons:         slices.Clone(op.AcquisitionReasons),
			SandboxWarnings: slices.Clone(op.SandboxWarnings),
			Settings:        op.Settings.Runner(),
		}
		if op.Build != nil {
			b, _ := op.Build.RunnerEvent() // its output is not judged again
			obs.Build = &b
		}
		rec := assemble.Program{Spec: p, Attempt: obs, Duration: time.Duration(op.DurationMS) * time.Millisecond}
		atProgram := map[string]bool{} // the program's differences, each named once
		for k, c := range p.Cases {
			rec.Cases = append(rec.Cases, assemble.Case{Spec: c})
			oc := byName[c.Name]
			if oc == nil {
				fail(c.Pos, "case %q of program %q: %s has no such case: run it with behaves run", c.Name, p.Name, oldPath)
				continue
			}
			f := match.Check(wants[i][k], op, oc)
			differs := false
			for _, d := range f.Differences {
				// What a stored case did not record because it never ran
				// is not held against it: it is undetermined, and stays
				// so. A case that ran and left a part unrecorded is
				// refused: nothing says what it ran under.
				if d.Unrecorded && !ran(f.Runs) {
					continue
				}
				differs = true
				switch where := caseLevel(d.Part); {
				case where == "":
					if !atProgram[d.Msg] {
						atProgram[d.Msg] = true
						fail(p.Pos, "%s: run it again", programMsg(p, d))
					}
				case where == "reference" && referenceName(c) != "":
					msg := d.Msg
					if d.Part == evidence.PartReference+"."+evidence.PartProgram {
						msg = referenceFile(sp, c) + " " + msg
					}
					fail(c.Pos, "case %q of program %q: reference %q: %s: run it again", c.Name, p.Name, referenceName(c), msg)
				default:
					fail(c.Pos, "case %q of program %q: %s: run it again", c.Name, p.Name, d.Msg)
				}
			}
			// A checked case needs a stored checker run whose key is the
			// spec's now for every stream a checker must judge: rescore
			// runs no checker.
			for _, d := range f.CheckerDifferences {
				differs = true
				fail(c.Pos, "case %q of program %q: checker %q: %s: run it again", c.Name, p.Name, d.Checker, checkerMsg(sp, d))
			}
			if differs {
				continue
			}
			// Every stored run is judged again, as the run engine judges
			// runs, unless its output (or the reference's) was left out.
			kc := &rec.Cases[k]
			var judged []verdict.CaseResult
			if f.Whole && f.ReferencesWhole {
				judged, kc.Result = verdict.JudgeCheckedRuns(c.Expect, f.References, f.Runs, f.Checked)
			} else {
				judged = slices.Repeat([]verdict.CaseResult{{Verdict: verdict.Undetermined, Reason: ReasonOmitted}}, len(f.Runs))
				kc.Result = verdict.Fold(judged).CaseResult
			}
			for r, e := range f.Runs {
				kc.Runs = append(kc.Runs, assemble.RunResult{Event: e, Result: judged[r]})
			}
			if referenceName(c) != "" {
				kc.References = f.References
			}
			kc.Checkers = storedChecks(f.Checkers)
		}
		if len(errs) > before {
			continue
		}
		records = append(records, rec)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return records, nil
}

// ran is true when a stored run of the case ran (it has an exit code).
func ran(runs []runner.Event) bool {
	return slices.ContainsFunc(runs, func(e runner.Event) bool { return e.ExitCode != nil })
}

// caseLevel says where a difference belongs: "" for the program's (its
// file, image, settings and build: the same for every case), "reference"
// for a same_as case's reference, "case" for the case's own input and
// repeat.
func caseLevel(part evidence.Part) string {
	switch {
	case part == evidence.PartArgs || part == evidence.PartStdin || part == match.PartRepeat:
		return "case"
	case part == evidence.PartReference || strings.HasPrefix(string(part), string(evidence.PartReference)+"."):
		return "reference"
	}
	return ""
}

// programMsg says how the program's part of the key differs.
func programMsg(p spec.Program, d evidence.Difference) string {
	switch d.Part {
	case evidence.PartFormat:
		return fmt.Sprintf("program %q: %s", p.Name, d.Msg)
	case evidence.PartProgram:
		return fmt.Sprintf("program %q: %s %s", p.Name, p.File, d.Msg)
	}
	return fmt.Sprintf("program %q: profile %q's %s", p.Name, p.Profile, d.Msg)
}

// referenceName is the reference a case runs its input on: a same_as
// case's, or that of a checker matcher whose answer is its output; "" for
// none.
func referenceName(c spec.Case) string {
	if c.Expect.SameAs != nil {
		return c.Expect.SameAs.Reference
	}
	return c.Expect.AnswerReference()
}

// referenceFile is the file of a case's reference program.
func referenceFile(sp *spec.Spec, c spec.Case) string {
	for _, p := range sp.Programs {
		if p.Name == referenceName(c) {
			return p.File
		}
	}
	return referenceName(c)
}

// checkerMsg says how a stored checker run differs from the spec's, its
// files and profile named as the spec names them.
func checkerMsg(sp *spec.Spec, d match.CheckerDifference) string {
	var ch spec.Checker
	for _, c := range sp.Checkers {
		if c.Name == d.Checker {
			ch = c
		}
	}
	switch d.Part {
	case evidence.PartChecker, evidence.PartCheckerInput, evidence.PartCheckerOutput, evidence.PartCheckerAnswer,
		evidence.PartChecker + "." + evidence.PartFormat:
		return d.Msg
	case evidence.PartChecker + "." + evidence.PartProgram:
		return ch.File + " " + d.Msg
	}
	return fmt.Sprintf("profile %q's %s", ch.Profile, d.Msg)
}

// storedChecks are stored checker runs as a report records them again.
func storedChecks(crs []report.CheckerRun) []assemble.CheckerRun {
	var out []assemble.CheckerRun
	for _, cr := range crs {
		ev, _ := cr.Event.RunnerEvent() // whole: match.Check says so
		x := assemble.CheckerRun{Checker: cr.Checker, Run: cr.Run, Stream: cr.Stream,
			ProgramSHA256: cr.ProgramSHA256, InputSHA256: cr.InputSHA256, OutputSHA256: cr.OutputSHA256, AnswerSHA256: cr.AnswerSHA256,
			BuildImageID: cr.BuildImageID, BuildRepoDigest: cr.BuildRepoDigest, Event: ev}
		if cr.Applied != nil {
			a := cr.Applied.Runner()
			x.Applied = &a
		}
		out = append(out, x)
	}
	return out
}
