package verdict

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/behaves-dev/behaves/internal/runner"
)

// JudgeSameAs judges a differential case: the candidate's event ev
// against the events of the reference program's runs of the same
// invocation (args and stdin), in run order. It is a pure function.
//
// The reference must answer first. The case is undetermined, with a reason
// naming the reference, when:
//
//   - the reference has no run (it did not run);
//   - a run of the reference could not be observed, failed to build, was
//     stopped (timeout, memory, output ceiling) or left no exit code: what
//     the reference does for this input is not known;
//   - the reference is nondeterministic for this input: a later run
//     differs from its first under the same comparison.
//
// Otherwise the reference's first run stands for the expectation (Derived):
// its exit code, and for each stream of sa.Streams an equals matcher
// holding its kept output, with sa's normalisation and case folding. The
// candidate is judged as Judge judges an equals matcher, so a candidate
// stream cut at output_limit follows the equals rules. A reference stream
// that was cut is known only up to its certain prefix: the candidate is
// false when its own certain output cannot start the same way (or, under
// normalize exact, when both wrote a different number of bytes), else
// undetermined.
func JudgeSameAs(sa SameAs, refs []runner.Event, ev runner.Event) CaseResult {
	name := "reference " + strconv.Quote(sa.Reference)
	if why := referenceProblem(refs); why != "" {
		return refUndetermined(sa, ev, name+": "+why)
	}
	exp := derive(sa, refs[0])
	for i := 1; i < len(refs); i++ {
		if r := against(sa, exp, refs[0], refs[i]); r.Verdict == False {
			return refUndetermined(sa, ev, fmt.Sprintf("%s is nondeterministic for this input: run %d of %d differs from run 1 (%s)",
				name, i+1, len(refs), r.Reason))
		}
	}
	res := against(sa, exp, refs[0], ev)
	if res.Verdict == False && ev.BuildFailure == "" {
		res.Reason = "not the same as " + name + ": " + res.Reason
	}
	res.Derived = &exp
	return res
}

// referenceProblem says why the reference's runs cannot stand for an
// expectation, or "".
// unfinished says why a run was not observed to its own end (a sandbox
// error, a failed build, a stop, no exit code), or "" when it was.
func unfinished(ev runner.Event) string {
	switch {
	case ev.SandboxError != "":
		return oneLine(ev.SandboxError)
	case ev.BuildFailure != "":
		return oneLine(ev.BuildFailure)
	case stopReason(ev) != "":
		return stopReason(ev)
	case ev.ExitCode == nil:
		return "no exit code observed"
	}
	return ""
}

func referenceProblem(refs []runner.Event) string {
	if len(refs) == 0 {
		return "not run"
	}
	for i, ev := range refs {
		why := unfinished(ev)
		if why == "" {
			continue
		}
		if len(refs) > 1 {
			return fmt.Sprintf("run %d of %d: %s", i+1, len(refs), why)
		}
		return why
	}
	return ""
}

// refUndetermined is the result of a case whose reference cannot answer.
func refUndetermined(sa SameAs, ev runner.Event, why string) CaseResult {
	if ev.BuildFailure != "" && ev.SandboxError == "" {
		// The candidate's own build failed: that is settled whatever the
		// reference does.
		return Judge(Expectation{}, ev)
	}
	checks := []Check{{What: "exit_code", Expected: "the reference's", Reason: why}}
	for _, s := range sa.Streams {
		checks = append(checks, Check{What: s, Expected: "the reference's", Reason: why})
	}
	return CaseResult{Verdict: Undetermined, Reason: why, Checks: checks}
}

// derive is the expectation the reference's run ref stands for.
func derive(sa SameAs, ref runner.Event) Expectation {
	exp := Expectation{}
	if ref.ExitCode != nil {
		exp.ExitCode = *ref.ExitCode
	}
	for _, s := range sa.Streams {
		m := &Matcher{Kind: Equals, Normalize: sa.Normalize, IgnoreCase: sa.IgnoreCase}
		if m.Normalize == "" {
			m.Normalize = NormalizeTrailing
		}
		switch s {
		case "stdout":
			m.Value = string(ref.Stdout.Data)
			exp.Stdout = m
		case "stderr":
			m.Value = string(ref.Stderr.Data)
			exp.Stderr = m
		}
	}
	return exp
}

// against judges ev against exp, derived from the reference's run ref:
// Judge's rules, with a check of its own for a stream the reference's run
// did not keep whole.
func against(sa SameAs, exp Expectation, ref, ev runner.Event) CaseResult {
	res := Judge(exp, ev)
	if ev.SandboxError != "" || ev.BuildFailure != "" {
		return res
	}
	changed := false
	for k := range res.Checks {
		ch := &res.Checks[k]
		var rs, cs runner.Stream
		switch ch.What {
		case "stdout":
			rs, cs = ref.Stdout, ev.Stdout
		case "stderr":
			rs, cs = ref.Stderr, ev.Stderr
		default:
			continue
		}
		if !rs.Truncated && rs.Bytes <= int64(len(rs.Data)) {
			continue // the reference's stream is whole: Judge's equals rules hold
		}
		unfinished := stopReason(ev) != "" || ev.ExitCode == nil
		*ch = cutReferenceCheck(ch.What, *ch.Matcher, rs, ref.Limits, cs, unfinished)
		changed = true
	}
	if !changed {
		return res
	}
	res.Verdict, res.Reason = True, ""
	for _, ch := range res.Checks {
		switch {
		case ch.Verdict == False && res.Verdict != False:
			res.Verdict, res.Reason = False, ch.Reason
		case ch.Verdict == Undetermined && res.Verdict == True:
			res.Verdict, res.Reason = Undetermined, ch.Reason
		}
	}
	return res
}

// cutReferenceCheck compares a candidate's stream cs with a reference
// stream rs that was cut at output_limit (its whole is unknown). Only what
// no continuation of either can change is used: each side's certain
// normalised prefix (the candidate's whole output when it is complete).
// When neither can start the other, the outputs differ → false; under
// normalize exact without case folding, two runs that ended by themselves
// and wrote different byte counts differ → false; else undetermined.
func cutReferenceCheck(name string, m Matcher, rs runner.Stream, limits runner.Limits, cs runner.Stream, unfinished bool) Check {
	ch := Check{What: name, Matcher: &m, Expected: matcherForm(m), Actual: quoteCut(cs.Data, actualWidth)}
	limit := limits.OutputLimit
	if limit <= 0 {
		limit = int64(len(rs.Data))
	}
	refCut := fmt.Sprintf("the reference's %s was cut at %s", name, FormatSize(limit))
	candCut := cs.Truncated || cs.Bytes > int64(len(cs.Data))
	ref := newCutView(m, rs.Data).certain()
	var cand []byte
	if !candCut && !unfinished {
		cand = normalize(m.normalize(), cs.Data)
		if m.IgnoreCase {
			cand = fold(cand)
		}
	} else {
		cand = newCutView(m, cs.Data).certain()
	}
	if m.normalize() == NormalizeExact && !m.IgnoreCase && !unfinished && cs.Bytes != rs.Bytes {
		ch.Verdict = False
		ch.Reason = fmt.Sprintf("%s: %s written, the reference wrote %d (%s)", name, Count(cs.Bytes, "byte", "bytes"), rs.Bytes, refCut)
		return ch
	}
	if !bytes.HasPrefix(cand, ref) && (!candCut && !unfinished || !bytes.HasPrefix(ref, cand)) {
		i, _ := firstDiff(cand, ref, false)
		ch.Verdict = False
		ch.Reason = fmt.Sprintf("%s: differs from the reference's kept part at byte %d: expected %s, got %s (%s)",
			name, i, quoteCut(ref[min(i, len(ref)):], reasonWidth), quoteCut(cand[min(i, len(cand)):], reasonWidth), refCut)
		return ch
	}
	ch.Verdict = Undetermined
	ch.Reason = fmt.Sprintf("%s: agrees with the reference's kept part, but %s", name, refCut)
	return ch
}

// JudgeRuns judges every run of a case (JudgeRun) and folds them (Fold),
// as the run engine does for runs it holds: what rescore and reuse give
// stored runs.
func JudgeRuns(exp Expectation, refs []runner.Event, runs []runner.Event) ([]CaseResult, CaseResult) {
	return JudgeCheckedRuns(exp, refs, runs, nil)
}

// JudgeCheckedRuns is JudgeRuns with the checkers' events of each run
// (checked[r] for run r; nil, or a run without its entry, when no checker
// ran on it).
func JudgeCheckedRuns(exp Expectation, refs []runner.Event, runs []runner.Event, checked []Checked) ([]CaseResult, CaseResult) {
	results := make([]CaseResult, len(runs))
	for r, ev := range runs {
		var ck Checked
		if r < len(checked) {
			ck = checked[r]
		}
		results[r] = judgeRun(exp, refs, ev, ck)
	}
	return results, Fold(results).CaseResult
}

// JudgeRun judges one run of a case, the one way the run engine and
// rescore both do: a same_as case against its reference's runs
// (JudgeSameAs), any other against its own expectation (Judge).
func JudgeRun(exp Expectation, refs []runner.Event, ev runner.Event) CaseResult {
	return judgeRun(exp, refs, ev, Checked{})
}

func judgeRun(exp Expectation, refs []runner.Event, ev runner.Event, ck Checked) CaseResult {
	if exp.SameAs != nil {
		return JudgeSameAs(*exp.SameAs, refs, ev)
	}
	for i, m := range []*Matcher{exp.Stdout, exp.Stderr} {
		if c := CheckerOf(m); c != nil && c.AnswerReference != "" {
			_, ck.notRun[i] = ReferenceAnswer(c, [2]string{"stdout", "stderr"}[i], refs)
		}
	}
	return JudgeChecked(exp, ev, ck)
}

// streamIndex is 0 for stdout, 1 for stderr.
func streamIndex(name string) int {
	if name == "stderr" {
		return 1
	}
	return 0
}
