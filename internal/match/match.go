// Package match answers one question for both users of stored evidence
// (behaves rescore and behaves run --reuse): does this stored case answer
// this case of the spec as it is now, and if not, which part differs?
//
// Wants computes each case's evidence key from the spec (package
// evidence), Check holds a stored case against it: every part of the key
// in which one of its stored runs differs or that it did not record, its
// number of runs against the case's repeat, and what its runs and its
// reference's runs hold. It decides nothing: the policies are its
// callers'. rescore must answer every case, so any recorded difference is
// an error at the spec's position (and an unrecorded part only where the
// stored attempt ran); reuse runs whatever a stored case does not settle
// as a new run would.
package match

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/behaves-dev/behaves/internal/evidence"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// PartRepeat is the number of runs of a case (its repeat), as Check
// reports a stored case that ran another number of times.
const PartRepeat evidence.Part = "repeat"

// Want is a case of the spec as stored evidence must answer it.
type Want struct {
	Key    evidence.Key
	Repeat int
	// Checkers are, for a case with a checker matcher, the keys of its
	// checker's runs on stdout and on stderr (nil where the stream has
	// none), but for the output, which is each stored run's own.
	Checkers [2]*evidence.Checker
	// exp is the case's expectation: which streams of a stored run a
	// checker must have judged (verdict.CheckersWanted).
	exp verdict.Expectation
}

// Wants are the wanted keys of every case of sp's programs (wants[p][c]).
// all are the spec's programs, where same_as cases find their reference
// (nil: sp's own; a shard's run passes the whole spec's); resolve is
// evidence.ResolveImages's (nil: no engine to ask).
func Wants(sp *spec.Spec, all []spec.Program, resolve func(pin string) (string, error)) [][]Want {
	if all == nil {
		all = sp.Programs
	}
	inputs, inputOf := sp.References(all)
	byName := make(map[string]spec.Program, len(all))
	for _, p := range all {
		byName[p.Name] = p
	}
	// Each program's part of the key is computed once, for all its cases
	// (and a reference's for all the cases that compare with it, and a
	// checker's for all the streams it checks).
	refParts := map[string]evidence.Program{}
	checkerParts := map[string]evidence.Program{}
	checkers := make(map[string]spec.Checker, len(sp.Checkers))
	for _, ch := range sp.Checkers {
		checkers[ch.Name] = ch
	}
	wants := make([][]Want, len(sp.Programs))
	for i, p := range sp.Programs {
		part := evidence.WantProgram(sp.Job(p).Profile, p.Program) // ProgramName set as the run sets it
		wants[i] = make([]Want, len(p.Cases))
		for k, c := range p.Cases {
			var ref *evidence.Key
			refRuns := 0
			if name := referenceOf(c.Expect); name != "" {
				// The reference's whole key as the spec resolves it now:
				// its program, image, settings and build.
				if r, ok := byName[name]; ok && inputOf[i][k] >= 0 {
					rp, ok := refParts[r.Name]
					if !ok {
						rp = evidence.WantProgram(sp.Job(r).Profile, r.Program)
						refParts[r.Name] = rp
					}
					rk := evidence.WantFor(rp, c.Invocation, nil, 0)
					ref, refRuns = &rk, inputs[inputOf[i][k]].Repeat
				}
			}
			w := Want{Key: evidence.WantFor(part, c.Invocation, ref, refRuns), Repeat: max(c.Repeat, 1), exp: c.Expect}
			evidence.ResolveImages(&w.Key, resolve)
			for s, m := range []*verdict.Matcher{verdict.CheckerOf(c.Expect.Stdout), verdict.CheckerOf(c.Expect.Stderr)} {
				ch, ok := checkers[checkerName(m)]
				if !ok {
					continue // no checker matcher (the loader refuses one the spec lacks)
				}
				cp, ok := checkerParts[ch.Name]
				if !ok {
					cp = evidence.WantProgram(sp.CheckerJob(ch, nil).Profile, ch.Program)
					checkerParts[ch.Name] = cp
				}
				ck := evidence.WantChecker(ch.Name, cp, c.Invocation.Stdin, []byte(m.Answer))
				evidence.ResolveCheckerImages(&ck, resolve)
				w.Checkers[s] = &ck
			}
			wants[i][k] = w
		}
	}
	return wants
}

// referenceOf is the reference a case runs its input on: a same_as case's,
// or that of a checker matcher whose answer is its output; "" for none.
func referenceOf(exp verdict.Expectation) string {
	if exp.SameAs != nil {
		return exp.SameAs.Reference
	}
	return exp.AnswerReference()
}

// checkerName is m's checker ("" for nil).
func checkerName(m *verdict.Matcher) string {
	if m == nil {
		return ""
	}
	return m.Checker
}

// Found is what a stored case holds for a wanted case.
type Found struct {
	// Differences are every part in which the stored case does not stand
	// for the wanted one, each once: the key's (evidence.Diff; marked
	// Unrecorded where the stored report did not record the part), then
	// PartRepeat.
	Differences []evidence.Difference
	// Runs are its stored runs, in order (the case's event for a case
	// that ran once), and Whole is false when a run's output was left
	// out of the report (its size budget): the digest cannot be judged.
	Runs  []runner.Event
	Whole bool
	// References are a same_as case's stored reference runs, each with
	// the settings they were built from, and ReferencesWhole is false
	// when one's output was left out.
	References      []runner.Event
	ReferencesWhole bool
	// Checked are, for a case with a checker matcher, each stored run's
	// stored checker events, as verdict.JudgeCheckedRuns takes them (nil
	// for any other case), and Checkers the stored checker runs they come
	// from, in order. Only the streams a checker must judge have one
	// (verdict.CheckersWanted). CheckerDifferences are every part in which
	// such a stored checker run is not the checker's run the spec asks for
	// now (evidence.DiffChecker; the output compared is the stored run's),
	// or that it lacks: reuse runs the checker again whatever they say,
	// rescore refuses on any. An omitted checker output makes Whole false.
	Checked            []verdict.Checked
	Checkers           []report.CheckerRun
	CheckerDifferences []CheckerDifference
	// FailedBuild is set when every run is its program's failed build:
	// the case never ran, and the build's failure settles it false
	// whatever its input, so only the program's part of the key (the
	// program file, its image and settings, and the build) and the
	// repeat are compared.
	FailedBuild bool
}

// Check holds stored case oc of program attempt op against w.
func Check(w Want, op *report.Program, oc *report.Case) Found {
	events := []report.Event{oc.Event}
	if len(oc.Runs) > 1 {
		events = events[:0]
		for _, r := range oc.Runs {
			events = append(events, r.Event)
		}
	}
	f := Found{Whole: true, ReferencesWhole: true, FailedBuild: failedBuild(events)}
	add := func(d []evidence.Difference) {
		for _, x := range d {
			if !slices.ContainsFunc(f.Differences, func(o evidence.Difference) bool { return o.Part == x.Part && o.Msg == x.Msg }) {
				f.Differences = append(f.Differences, x)
			}
		}
	}
	if f.FailedBuild {
		add(evidence.DiffProgram(w.Key.Program, evidence.StoredProgram(op)))
	} else {
		for _, e := range events {
			add(evidence.Diff(w.Key, evidence.Stored(op, oc, e)))
		}
	}
	if n := len(events); n != w.Repeat {
		f.Differences = append(f.Differences, evidence.Difference{Part: PartRepeat,
			Msg: fmt.Sprintf("repeat is %d, the stored case ran %d %s", w.Repeat, n, evidence.Times(n))})
	}
	for _, e := range events {
		ev, whole := e.RunnerEvent()
		f.Whole = f.Whole && whole
		f.Runs = append(f.Runs, ev)
	}
	var refApplied *runner.Applied
	if oc.ReferenceApplied != nil {
		a := oc.ReferenceApplied.Runner()
		refApplied = &a
	}
	for _, e := range oc.ReferenceEvents {
		ev, whole := e.RunnerEvent()
		ev.Applied = refApplied // recorded again with the case
		f.ReferencesWhole = f.ReferencesWhole && whole
		f.References = append(f.References, ev)
	}
	f.checkers(w, op, oc) // after the references: a checker's answer may be their output
	return f
}

// failedBuild is true when every stored run of a case is its program's
// failed build (the case never ran).
func failedBuild(events []report.Event) bool {
	for _, e := range events {
		if e.BuildFailure == "" || e.SandboxError != "" {
			return false
		}
	}
	return len(events) > 0
}

// CheckerDifference is a Difference of a stored checker run, with the
// checker the spec names for its stream.
type CheckerDifference struct {
	Checker string
	evidence.Difference
}

// checkers fills in what f holds of the stored checker runs of oc that
// w's checker matchers need: one for each stream of each stored run that
// a checker must judge (f.Runs and f.References are in).
func (f *Found) checkers(w Want, op *report.Program, oc *report.Case) {
	if w.Checkers == [2]*evidence.Checker{} {
		return
	}
	f.Checked = make([]verdict.Checked, len(f.Runs))
	add := func(name string, d evidence.Difference) {
		x := CheckerDifference{Checker: name, Difference: d}
		if !slices.Contains(f.CheckerDifferences, x) {
			f.CheckerDifferences = append(f.CheckerDifferences, x)
		}
	}
	for r, ev := range f.Runs {
		out, errm := verdict.CheckersWanted(w.exp, f.References, ev)
		for s, x := range []struct {
			stream string
			m      *verdict.Matcher
			data   []byte
		}{{"stdout", out, ev.Stdout.Data}, {"stderr", errm, ev.Stderr.Data}} {
			want := w.Checkers[s]
			if x.m == nil || want == nil {
				continue
			}
			k := slices.IndexFunc(oc.CheckerRuns, func(cr report.CheckerRun) bool { return cr.Run == r && cr.Stream == x.stream })
			if k < 0 {
				add(want.Name, evidence.Difference{Part: evidence.PartChecker,
					Msg: fmt.Sprintf("the stored case has no run of it on %s of run %d", x.stream, r+1)})
				continue
			}
			cr := oc.CheckerRuns[k]
			wk := *want
			sum := sha256.Sum256(x.data) // the stored run's kept stream: what a checker is given
			wk.OutputSHA256 = hex.EncodeToString(sum[:])
			if x.m.AnswerReference != "" {
				// Its answer is the stored reference run's output (which
				// the reference's part of the key holds to the spec's).
				ans, _ := verdict.ReferenceAnswer(x.m, x.stream, f.References)
				sum := sha256.Sum256(ans)
				wk.AnswerSHA256 = hex.EncodeToString(sum[:])
			}
			for _, d := range evidence.DiffChecker(wk, evidence.StoredChecker(op.EvidenceFormat, cr)) {
				add(want.Name, d)
			}
			ce, whole := cr.Event.RunnerEvent()
			f.Whole = f.Whole && whole
			if x.stream == "stderr" {
				f.Checked[r].Stderr = &ce
			} else {
				f.Checked[r].Stdout = &ce
			}
			f.Checkers = append(f.Checkers, cr)
		}
	}
}
