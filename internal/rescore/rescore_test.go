package rescore

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

var profile = runner.Profile{
	Name: "sh", Image: "sha256:" + strings.Repeat("b", 64), Command: []string{"/bin/sh"}, ProgramName: "main.sh",
	Timeout: 5 * time.Second, Memory: 64 << 20, CPUs: 1, Pids: 64, OutputLimit: 64 << 10, OutputCeiling: 4 << 20,
	User: "65534:65534", Tmpfs: map[string]int64{"/tmp": 1 << 20}, Env: map[string]string{"LANG": "C.UTF-8"},
}

func equals(s string) *verdict.Matcher {
	return &verdict.Matcher{Kind: verdict.Equals, Value: s, Normalize: verdict.NormalizeTrailing}
}

// testSpec is a spec of one program with two cases; stdout expects want.
func testSpec(want string) *spec.Spec {
	return &spec.Spec{
		Path:     "behaves.yml",
		Root:     ".",
		Profiles: map[string]spec.Profile{"sh": {Runtime: profile}},
		Programs: []spec.Program{{
			ID: "id-double", Name: "double", File: "double.sh", Profile: "sh",
			Pos:     spec.Pos{File: "behaves.yml", Line: 10, Col: 5},
			Program: runner.Program{Entry: "main.sh", Files: runner.FilesOf(map[string][]byte{"main.sh": []byte("echo $(($1 * 2))\n")})},
			Cases: []spec.Case{
				{Name: "two", Pos: spec.Pos{File: "behaves.yml", Line: 14, Col: 11}, Invocation: runner.Invocation{Args: []string{"2"}}, Expect: verdict.Expectation{Stdout: equals(want)}},
				{Name: "stdin", Pos: spec.Pos{File: "behaves.yml", Line: 15, Col: 11}, Invocation: runner.Invocation{Args: []string{"3"}, Stdin: []byte("x\n")}, Expect: verdict.Expectation{}},
			},
		}},
	}
}

func event(sp *spec.Spec, c spec.Case, stdout string) runner.Event {
	code := 0
	sum := sha256.Sum256(c.Invocation.Stdin)
	return runner.Event{
		ExitCode:    &code,
		Stdout:      runner.Stream{Data: []byte(stdout), Bytes: int64(len(stdout))},
		StdinSHA256: hex.EncodeToString(sum[:]),
		Command:     append([]string{"/bin/sh", "/program/main.sh"}, c.Invocation.Args...),
		ImageDigest: profile.Image,
		Limits: runner.Limits{TimeoutMS: 5000, MemoryBytes: 64 << 20, CPUs: 1, Pids: 64, OutputLimit: 64 << 10,
			OutputCeiling: 4 << 20, NoFile: 1024, FileSize: 64 << 20},
	}
}

// stored is the report of a run of testSpec("4") in which the program
// printed 4 and 6.
func stored() report.Report {
	sp := testSpec("4")
	p := sp.Programs[0]
	evs := []runner.Event{event(sp, p.Cases[0], "4\n"), event(sp, p.Cases[1], "6\n")}
	res := []verdict.CaseResult{verdict.Judge(p.Cases[0].Expect, evs[0]), verdict.Judge(p.Cases[1].Expect, evs[1])}
	obs := runner.Observation{ExecutionID: "exec-1", Acquisition: runner.AcquisitionComplete, Events: evs,
		Settings: runner.Settings{Image: profile.Image, ImageID: profile.Image, User: profile.User, Env: []string{"LANG=C.UTF-8"},
			TmpfsBytes: map[string]int64{"/tmp": 1 << 20, "/data": 64 << 10}, Applied: runner.Apply(sp.Job(p).Profile)}}
	return assemble.Report(assemble.Input{Spec: sp, Programs: []assemble.Program{reporttest.Ran(p, obs, 0, res...)}, RunID: "run-1"})
}

// TestMatchJudgesAgain guards the point of rescoring: the same evidence
// under a new expectation gets the new verdict, keeping the stored
// execution ID.
func TestMatchJudgesAgain(t *testing.T) {
	t.Parallel()
	old := stored()
	if old.Verdict != verdict.True {
		t.Fatalf("stored verdict %s, want true", old.Verdict)
	}
	ev, errs := Match(testSpec("5"), old, "old.json")
	if errs != nil {
		t.Fatalf("Match: %v", errs)
	}
	if got := ev[0].Cases[0].Result; got.Verdict != verdict.False || !strings.Contains(got.Reason, `expected "5", got "4"`) {
		t.Errorf("rescored case: %+v, want false, expected 5 got 4", got)
	}
	if v, _ := verdict.Program(results(ev[0])); v != verdict.False || ev[0].Attempt.ExecutionID != "exec-1" {
		t.Errorf("program %s, execution %q; want false and exec-1", v, ev[0].Attempt.ExecutionID)
	}
	// The same expectation gives the stored verdict back.
	if ev, errs := Match(testSpec("4"), old, "old.json"); errs != nil || programVerdict(ev) != verdict.True {
		t.Errorf("Match under the stored expectation: %v, %v", ev, errs)
	}
}

// TestMatchRefuses guards that evidence which cannot answer for the spec as
// it is now is an error at the spec's position naming what differs.
func TestMatchRefuses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		edit func(sp *spec.Spec, old *report.Report)
		line int
		want string
	}{
		{"program changed", func(sp *spec.Spec, _ *report.Report) {
			sp.Programs[0].Program.Files["main.sh"] = runner.BytesFile([]byte("echo 4\n"))
		}, 10, "double.sh changed since the stored run"},
		{"no such program", func(sp *spec.Spec, _ *report.Report) { sp.Programs[0].ID = "id-other" }, 10, "has no evidence for it (id id-other)"},
		{"no such case", func(sp *spec.Spec, _ *report.Report) { sp.Programs[0].Cases[1].Name = "new" }, 15, `case "new" of program "double": old.json has no such case`},
		{"args", func(sp *spec.Spec, _ *report.Report) { sp.Programs[0].Cases[0].Invocation.Args = []string{"3"} }, 14, `args are ["3"], the stored case had ["2"]`},
		{"stdin", func(sp *spec.Spec, _ *report.Report) { sp.Programs[0].Cases[1].Invocation.Stdin = []byte("y\n") }, 15, "stdin changed"},
		{"image", func(sp *spec.Spec, _ *report.Report) {
			setProfile(sp, func(p *runner.Profile) { p.Image = "sha256:" + strings.Repeat("c", 64) })
		}, 10, "image is"},
		{"command", func(sp *spec.Spec, _ *report.Report) {
			setProfile(sp, func(p *runner.Profile) { p.Command = []string{"/bin/ash"} })
		}, 10, `command is ["/bin/ash" "/program/main.sh"]`},
		{"timeout", func(sp *spec.Spec, _ *report.Report) {
			setProfile(sp, func(p *runner.Profile) { p.Timeout = time.Second })
		}, 10, "limits.timeout_ms is 1000, the stored run had 5000"},
		{"memory", func(sp *spec.Spec, _ *report.Report) {
			setProfile(sp, func(p *runner.Profile) { p.Memory = 128 << 20 })
		}, 10, "limits.memory_bytes is 134217728"},
		{"env", func(sp *spec.Spec, _ *report.Report) {
			setProfile(sp, func(p *runner.Profile) { p.Env = map[string]string{"LANG": "C"} })
		}, 10, `env is ["LANG=C"]`},
		{"tmpfs", func(sp *spec.Spec, _ *report.Report) {
			setProfile(sp, func(p *runner.Profile) { p.Tmpfs = map[string]int64{"/tmp": 2 << 20} })
		}, 10, "tmpfs /tmp is 2097152, the stored run had 1048576"},
		{"tmpfs removed", func(sp *spec.Spec, _ *report.Report) {
			setProfile(sp, func(p *runner.Profile) { p.Tmpfs = nil })
		}, 10, "tmpfs /tmp is gone, the stored run had it"},
		{"user", func(sp *spec.Spec, _ *report.Report) {
			setProfile(sp, func(p *runner.Profile) { p.User = "1000:1000" })
		}, 10, `user is "1000:1000"`},
		{"runtime", func(sp *spec.Spec, _ *report.Report) { setProfile(sp, func(p *runner.Profile) { p.Runtime = "runsc" }) }, 10, `runtime is "runsc"`},
		{"evidence format", func(_ *spec.Spec, old *report.Report) { old.Programs[0].EvidenceFormat = report.EvidenceFormat + 1 }, 10,
			"by another behaves: run it again"},
		{"no evidence format", func(_ *spec.Spec, old *report.Report) { old.Programs[0].EvidenceFormat = 0 }, 10,
			"old.json was written by an earlier behaves, which did not record its evidence format"},
		{"spec errors report", func(_ *spec.Spec, old *report.Report) {
			old.SpecErrors = []report.SpecError{{File: "behaves.yml", Line: 1, Col: 1, Message: "bad"}}
		}, 1, "ran nothing"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sp, old := testSpec("4"), stored()
			tt.edit(sp, &old)
			ev, errs := Match(sp, old, "old.json")
			if ev != nil || len(errs) == 0 {
				t.Fatalf("Match accepted it: %+v", ev)
			}
			found := false
			for _, e := range errs {
				if e.Pos.Line == tt.line && strings.Contains(e.Msg, tt.want) {
					found = true
				}
			}
			if !found {
				t.Errorf("errors %v, want one at line %d containing %q", errs, tt.line, tt.want)
			}
		})
	}
}

func setProfile(sp *spec.Spec, edit func(*runner.Profile)) {
	p := sp.Profiles["sh"]
	rt := p.Runtime
	rt.Tmpfs = map[string]int64{"/tmp": 1 << 20}
	rt.Env = map[string]string{"LANG": "C.UTF-8"}
	edit(&rt)
	p.Runtime = rt
	sp.Profiles["sh"] = p
}

// TestMatchOmittedOutput guards that a case whose stored output the report
// left out (its size budget) rescores to undetermined, with that reason,
// rather than being judged on nothing.
func TestMatchOmittedOutput(t *testing.T) {
	t.Parallel()
	old := stored()
	e := &old.Programs[0].Cases[0].Event
	e.Stdout, e.StdoutOmitted = "", true
	ev, errs := Match(testSpec("4"), old, "old.json")
	if errs != nil {
		t.Fatal(errs)
	}
	if got := ev[0].Cases[0].Result; got.Verdict != verdict.Undetermined || got.Reason != ReasonOmitted {
		t.Errorf("omitted case: %+v, want undetermined: %s", got, ReasonOmitted)
	}
}

// programVerdict is what the first program's rescored cases fold to.
func programVerdict(ev []assemble.Program) verdict.Verdict {
	v, _ := verdict.Program(results(ev[0]))
	return v
}

// results are the verdicts of p's cases.
func results(p assemble.Program) []verdict.CaseResult {
	out := make([]verdict.CaseResult, len(p.Cases))
	for k, c := range p.Cases {
		out[k] = c.Result
	}
	return out
}
