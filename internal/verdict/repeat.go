package verdict

import "strconv"

// Repeated is the verdict on a case that ran more than once (repeat: k),
// folded from the judgement of each run.
type Repeated struct {
	CaseResult
	// Nondeterministic is set when some runs were true and others false:
	// the program answered the same input two ways. The case is then
	// undetermined.
	Nondeterministic bool
	// Deciding is the index of the run whose reason the case's reason
	// carries: the first false run (also for a nondeterministic case),
	// else the first run that is not true; 0 when every run is true.
	Deciding int
}

// Fold folds the judgements of a case's k runs, in run order, into the
// case's verdict. It is a pure function:
//
//   - some runs true and some false: undetermined, nondeterministic, with
//     the reason "nondeterministic: T of K runs true (run N false: …)";
//   - otherwise the usual rules apply to the runs as to a program's cases:
//     false when any run is false (no run being true), true when every run
//     is true, undetermined otherwise (some run could not be observed or
//     settled, and none was false).
//
// With one run the result is that run's, unchanged. With more, the reason
// names the deciding run ("run 2 of 3: …"). Checks are the first run's,
// so that they go with the first run's event, which the report shows as
// the case's. No runs at all is undetermined ("no runs").
func Fold(runs []CaseResult) Repeated {
	k := len(runs)
	switch k {
	case 0:
		return Repeated{CaseResult: CaseResult{Verdict: Undetermined, Reason: "no runs"}}
	case 1:
		return Repeated{CaseResult: runs[0]}
	}
	trues, firstFalse, firstOther := 0, -1, -1
	for i, r := range runs {
		switch r.Verdict {
		case True:
			trues++
		case False:
			if firstFalse < 0 {
				firstFalse = i
			}
		default:
			if firstOther < 0 {
				firstOther = i
			}
		}
	}
	out := Repeated{CaseResult: CaseResult{Checks: runs[0].Checks}}
	of := " of " + strconv.Itoa(k)
	switch {
	case trues > 0 && firstFalse >= 0:
		out.Verdict, out.Nondeterministic, out.Deciding = Undetermined, true, firstFalse
		out.Reason = "nondeterministic: " + strconv.Itoa(trues) + of + " runs true (run " +
			strconv.Itoa(firstFalse+1) + " false: " + runs[firstFalse].Reason + ")"
	case firstFalse >= 0:
		out.Verdict, out.Deciding = False, firstFalse
		out.Reason = "run " + strconv.Itoa(firstFalse+1) + of + ": " + runs[firstFalse].Reason
	case firstOther >= 0:
		out.Verdict, out.Deciding = Undetermined, firstOther
		out.Reason = "run " + strconv.Itoa(firstOther+1) + of + ": " + runs[firstOther].Reason
	default:
		out.Verdict = True
	}
	return out
}

// FoldVerdicts is Fold on verdicts alone: the case's verdict and whether
// it is nondeterministic. A reader of a report, which holds each run's
// verdict, recomputes a case's with it.
func FoldVerdicts(runs []Verdict) (Verdict, bool) {
	rs := make([]CaseResult, len(runs))
	for i, v := range runs {
		rs[i].Verdict = v
	}
	f := Fold(rs)
	return f.Verdict, f.Nondeterministic
}
