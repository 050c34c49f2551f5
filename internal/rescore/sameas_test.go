package rescore

import (
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// diffSpec is a reference program and a candidate whose case "word" is
// same_as the reference, with ignore_case as given; refSrc is the
// reference's source.
func diffSpec(refSrc string, ignoreCase bool) *spec.Spec {
	mk := func(id, name, file, src string, c spec.Case) spec.Program {
		return spec.Program{ID: id, Name: name, File: file, Profile: "sh", Pos: spec.Pos{File: "behaves.yml", Line: 10, Col: 5},
			Program: runner.Program{Entry: "main.sh", Files: runner.FilesOf(map[string][]byte{"main.sh": []byte(src)})}, Cases: []spec.Case{c}}
	}
	own := spec.Case{Name: "own", Repeat: 1, Pos: spec.Pos{File: "behaves.yml", Line: 12, Col: 11}, Invocation: runner.Invocation{Args: []string{"x"}},
		Expect: verdict.Expectation{Stdout: equals("x")}}
	word := spec.Case{Name: "word", Repeat: 1, Pos: spec.Pos{File: "behaves.yml", Line: 20, Col: 11}, Invocation: runner.Invocation{Args: []string{"w"}},
		Expect: verdict.Expectation{SameAs: &verdict.SameAs{Reference: "ref", Streams: []string{"stdout"}, Normalize: verdict.NormalizeTrailing, IgnoreCase: ignoreCase}}}
	cand := mk("id-cand", "cand", "cand.sh", "echo W\n", word)
	cand.Reference = "ref"
	return &spec.Spec{Path: "behaves.yml", Root: ".", Profiles: map[string]spec.Profile{"sh": {Runtime: profile}},
		Programs: []spec.Program{mk("id-ref", "ref", "ref.sh", refSrc, own), cand}}
}

// storedDiff is the report of a run of diffSpec("echo $1\n", false): the
// reference printed "w" twice (repeat 1: one run) and the candidate "W".
func storedDiff() report.Report {
	sp := diffSpec("echo $1\n", false)
	ref, cand := sp.Programs[0], sp.Programs[1]
	ownEv := event(sp, ref.Cases[0], "x\n")
	refEv := event(sp, cand.Cases[0], "w\n")
	refEv.ProgramSHA256 = ref.Program.Digest()
	refApplied := runner.Apply(sp.Job(ref).Profile) // the reference's attempt's, as the runner stamps it
	refEv.Applied = &refApplied
	candEv := event(sp, cand.Cases[0], "W\n")
	ownRes := verdict.Judge(ref.Cases[0].Expect, ownEv)
	candRes := verdict.JudgeSameAs(*cand.Cases[0].Expect.SameAs, []runner.Event{refEv}, candEv)
	settings := func(p spec.Program) runner.Settings {
		return runner.Settings{Image: profile.Image, ImageID: profile.Image, User: profile.User, Env: []string{"LANG=C.UTF-8"},
			TmpfsBytes: map[string]int64{"/tmp": 1 << 20}, Applied: runner.Apply(sp.Job(p).Profile)}
	}
	candRec := reporttest.Ran(cand, runner.Observation{ExecutionID: "exec-c", Acquisition: runner.AcquisitionComplete, Events: []runner.Event{candEv}, Settings: settings(cand)}, 0, candRes)
	candRec.Cases[0].References = []runner.Event{refEv}
	return assemble.Report(assemble.Input{
		Spec: sp,
		Programs: []assemble.Program{
			reporttest.Ran(ref, runner.Observation{ExecutionID: "exec-r", Acquisition: runner.AcquisitionComplete, Events: []runner.Event{ownEv}, Settings: settings(ref)}, 0, ownRes),
			candRec,
		},
		RunID: "run-3",
	})
}

// TestMatchSameAs: a same_as case is judged again against its stored
// reference runs (the candidate's "W" against the reference's "w": false,
// true once the spec ignores case), which carry into the new report; a
// reference whose program changed, or a stored case that was not same_as,
// is an error naming the case and the reference.
func TestMatchSameAs(t *testing.T) {
	t.Parallel()
	old := storedDiff()
	if c := old.Programs[1].Cases[0]; c.Verdict != verdict.False || len(c.ReferenceEvents) != 1 {
		t.Fatalf("stored case: %s, %d reference events", c.Verdict, len(c.ReferenceEvents))
	}
	for _, tt := range []struct {
		ignoreCase bool
		want       verdict.Verdict
	}{{false, verdict.False}, {true, verdict.True}} {
		ev, errs := Match(diffSpec("echo $1\n", tt.ignoreCase), old, "old.json")
		if errs != nil {
			t.Fatalf("Match: %v", errs)
		}
		if got := ev[1].Cases[0].Result; got.Verdict != tt.want {
			t.Errorf("ignore_case %v: %s %q, want %s", tt.ignoreCase, got.Verdict, got.Reason, tt.want)
		}
		if refs := ev[1].Cases[0].References; len(refs) != 1 || string(refs[0].Stdout.Data) != "w\n" {
			t.Errorf("ignore_case %v: reference runs %+v", tt.ignoreCase, refs)
		}
	}

	// The reference's own program is refused too; its case's reference
	// runs are refused on their own.
	_, errs := Match(diffSpec("echo \"$1\"\n", false), old, "old.json")
	if len(errs) != 2 || !strings.Contains(errs[1].Msg, `case "word" of program "cand": reference "ref": ref.sh changed since the stored run`) ||
		errs[1].Pos.Line != 20 {
		t.Errorf("a changed reference: %v", errs)
	}

	plain := storedDiff()
	plain.Programs[1].Cases[0].Expect.SameAs = nil
	plain.Programs[1].Cases[0].ReferenceEvents = nil
	if _, errs := Match(diffSpec("echo $1\n", false), plain, "old.json"); len(errs) != 1 || !strings.Contains(errs[0].Msg, "the stored case was not same_as") {
		t.Errorf("a stored case that was not same_as: %v", errs)
	}
	written := diffSpec("echo $1\n", false)
	written.Programs[1].Cases[0].Expect = verdict.Expectation{Stdout: equals("W")}
	if _, errs := Match(written, old, "old.json"); len(errs) != 1 || !strings.Contains(errs[0].Msg, "the stored case was compared with a reference") {
		t.Errorf("a spec case that is no longer same_as: %v", errs)
	}
}
