package verdict

import "testing"

// TestFold covers the fold of a case's runs: agreement, disagreement, and
// runs that could not be observed.
func TestFold(t *testing.T) {
	t.Parallel()
	T := CaseResult{Verdict: True}
	F := func(why string) CaseResult { return CaseResult{Verdict: False, Reason: why} }
	U := func(why string) CaseResult { return CaseResult{Verdict: Undetermined, Reason: why} }
	tests := []struct {
		name   string
		runs   []CaseResult
		want   Verdict
		nondet bool
		reason string
		decide int
	}{
		{"no runs", nil, Undetermined, false, "no runs", 0},
		{"one true run is that run", []CaseResult{T}, True, false, "", 0},
		{"one false run keeps its reason", []CaseResult{F("exit code 1, expected 0")}, False, false, "exit code 1, expected 0", 0},
		{"one undetermined run keeps its reason", []CaseResult{U("image not present")}, Undetermined, false, "image not present", 0},
		{"all true", []CaseResult{T, T, T}, True, false, "", 0},
		{"all false", []CaseResult{F("a"), F("b"), F("c")}, False, false, "run 1 of 3: a", 0},
		{"all undetermined", []CaseResult{U("x"), U("y")}, Undetermined, false, "run 1 of 2: x", 0},
		{"two of three true", []CaseResult{T, F(`stdout: expected "0", got "1"`), T}, Undetermined, true,
			`nondeterministic: 2 of 3 runs true (run 2 false: stdout: expected "0", got "1")`, 1},
		{"one of three true", []CaseResult{F("no"), F("no"), T}, Undetermined, true, "nondeterministic: 1 of 3 runs true (run 1 false: no)", 0},
		{"true and false with an unobserved run is still nondeterministic", []CaseResult{U("not run"), T, F("no")}, Undetermined, true,
			"nondeterministic: 1 of 3 runs true (run 3 false: no)", 2},
		{"false dominates unobserved runs when none is true", []CaseResult{U("not run"), F("timed out after 5s"), U("not run")}, False, false,
			"run 2 of 3: timed out after 5s", 1},
		{"true with an unobserved run is undetermined, not true", []CaseResult{T, T, U("sandbox lost")}, Undetermined, false,
			"run 3 of 3: sandbox lost", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Fold(tc.runs)
			if got.Verdict != tc.want || got.Nondeterministic != tc.nondet || got.Reason != tc.reason || got.Deciding != tc.decide {
				t.Errorf("Fold = %v nondeterministic=%v deciding=%d %q; want %v %v %d %q",
					got.Verdict, got.Nondeterministic, got.Deciding, got.Reason, tc.want, tc.nondet, tc.decide, tc.reason)
			}
			vs := make([]Verdict, len(tc.runs))
			for i, r := range tc.runs {
				vs[i] = r.Verdict
			}
			if v, nd := FoldVerdicts(vs); v != tc.want || nd != tc.nondet {
				t.Errorf("FoldVerdicts = %v, %v; want %v, %v", v, nd, tc.want, tc.nondet)
			}
		})
	}
}

// TestFoldChecksAreFirstRuns: the case's checks go with the first run's
// event, which the report shows as the case's.
func TestFoldChecksAreFirstRuns(t *testing.T) {
	t.Parallel()
	first := []Check{{What: "exit_code", Verdict: True}}
	second := []Check{{What: "exit_code", Verdict: False}}
	got := Fold([]CaseResult{{Verdict: True, Checks: first}, {Verdict: False, Reason: "x", Checks: second}})
	if len(got.Checks) != 1 || got.Checks[0].Verdict != True {
		t.Errorf("checks = %+v, want the first run's", got.Checks)
	}
}
