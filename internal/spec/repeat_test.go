package spec

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/runner"
)

// TestJobRepeat: Job runs each case Repeat times, one run after the
// other, and Runs maps every invocation back to its case and run.
func TestJobRepeat(t *testing.T) {
	t.Parallel()
	p := Program{
		Profile: "p",
		Program: runner.Program{Entry: "main.py"},
		Cases: []Case{
			{Name: "a", Repeat: 2, Invocation: runner.Invocation{Args: []string{"a"}}},
			{Name: "b", Repeat: 1, Invocation: runner.Invocation{Args: []string{"b"}}},
			{Name: "c", Repeat: 3, Invocation: runner.Invocation{Args: []string{"c"}}},
		},
	}
	s := &Spec{Profiles: map[string]Profile{"p": {}}}
	job := s.Job(p)
	want := []string{"a", "a", "b", "c", "c", "c"}
	if len(job.Invocations) != len(want) {
		t.Fatalf("%d invocations, want %d", len(job.Invocations), len(want))
	}
	runs := p.Runs()
	if runs.Len() != len(want) {
		t.Errorf("Runs.Len = %d, want %d", runs.Len(), len(want))
	}
	wantRun := []int{0, 1, 0, 0, 1, 2}
	for i, inv := range job.Invocations {
		if inv.Args[0] != want[i] {
			t.Errorf("invocation %d runs %q, want %q", i, inv.Args[0], want[i])
		}
		c, run := runs.Case(i)
		if p.Cases[c].Name != want[i] || run != wantRun[i] {
			t.Errorf("Runs.Case(%d) = case %q run %d, want %q run %d", i, p.Cases[c].Name, run, want[i], wantRun[i])
		}
		if runs.First(c)+run != i {
			t.Errorf("First(%d)+%d = %d, want %d", c, run, runs.First(c)+run, i)
		}
	}
	for c, n := range []int{2, 1, 3} {
		if runs.Count(c) != n {
			t.Errorf("Count(%d) = %d, want %d", c, runs.Count(c), n)
		}
	}
}
