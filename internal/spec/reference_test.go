package spec

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestReferences: one reference input per distinct invocation (args and
// stdin), shared by every candidate that has it, run max(repeat) times;
// written cases have none; ReferenceJobs runs each input's runs in a row
// in the reference's own job, and a shard finds a reference it does not
// hold in the whole spec's programs.
func TestReferences(t *testing.T) {
	t.Parallel()
	sa := &verdict.SameAs{Reference: "ref", Streams: []string{"stdout"}}
	same := func(name string, repeat int, stdin string, args ...string) Case {
		return Case{Name: name, Repeat: repeat, Expect: verdict.Expectation{SameAs: sa},
			Invocation: runner.Invocation{Args: args, Stdin: []byte(stdin)}}
	}
	ref := Program{Name: "ref", Profile: "p", Program: runner.Program{Entry: "ref.py"},
		Cases: []Case{{Name: "own", Repeat: 1}}}
	a := Program{Name: "s/a.py", Profile: "p", Reference: "ref", Program: runner.Program{Entry: "a.py"}, Cases: []Case{
		same("one", 1, "", "1"),
		same("stdin", 3, "x", "1"), // another input: stdin differs
		{Name: "written", Repeat: 1},
	}}
	b := Program{Name: "s/b.py", Profile: "p", Reference: "ref", Program: runner.Program{Entry: "b.py"}, Cases: []Case{
		same("one", 2, "", "1"), // a's "one": shared, and now run twice
		same("split", 1, "", "1", ""),
		same("joined", 1, "", "1"), // b's own "one" again
	}}
	s := &Spec{Profiles: map[string]Profile{"p": {}}, Programs: []Program{ref, a, b}}
	inputs, of := s.References(nil)
	if len(inputs) != 3 {
		t.Fatalf("%d inputs, want 3: %+v", len(inputs), inputs)
	}
	wantOf := [][]int{{-1}, {0, 1, -1}, {0, 2, 0}}
	for p := range wantOf {
		for c := range wantOf[p] {
			if of[p][c] != wantOf[p][c] {
				t.Errorf("of[%d][%d] = %d, want %d", p, c, of[p][c], wantOf[p][c])
			}
		}
	}
	for k, want := range []int{2, 3, 1} {
		if inputs[k].Repeat != want || inputs[k].Reference.Name != "ref" {
			t.Errorf("input %d: repeat %d of %q, want %d of ref", k, inputs[k].Repeat, inputs[k].Reference.Name, want)
		}
	}
	jobs, at := s.ReferenceJobs(inputs)
	if len(jobs) != 1 || len(jobs[0].Invocations) != 6 || jobs[0].Profile.ProgramName != "ref.py" {
		t.Fatalf("jobs: %+v", jobs)
	}
	if at[0] != [2]int{0, 0} || at[1] != [2]int{0, 2} || at[2] != [2]int{0, 5} {
		t.Errorf("at = %v", at)
	}
	if got := jobs[0].Invocations[2]; string(got.Stdin) != "x" {
		t.Errorf("input 1's first run has stdin %q", got.Stdin)
	}

	shard := &Spec{Profiles: s.Profiles, Programs: []Program{b}}
	inputs, of = shard.References(s.Programs)
	if len(inputs) != 2 || of[0][0] != 0 || of[0][1] != 1 || of[0][2] != 0 || inputs[0].Reference.Name != "ref" {
		t.Errorf("shard: %+v %v", inputs, of)
	}
	if inputs, _ := shard.References(nil); len(inputs) != 0 {
		t.Errorf("a shard without its reference found one: %+v", inputs)
	}
}
