package match

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/evidence"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

var image = "sha256:" + strings.Repeat("b", 64)

func profile() runner.Profile {
	return runner.Profile{
		Name: "sh", Image: image, Command: []string{"/bin/sh"},
		Timeout: 5 * time.Second, Memory: 64 << 20, CPUs: 1, Pids: 64, OutputLimit: 64 << 10, OutputCeiling: 4 << 20,
		User: "65534:65534", Tmpfs: map[string]int64{"/tmp": 1 << 20}, Env: map[string]string{"MODE": "a"},
	}
}

// testSpec has a reference ("ref", printing $MODE) and a candidate
// ("cand") with a plain case and a same_as case; edit changes it.
func testSpec(edit func(sp *spec.Spec)) *spec.Spec {
	mk := func(id, name, file, src string, cases ...spec.Case) spec.Program {
		return spec.Program{ID: id, Name: name, File: file, Profile: "sh", Pos: spec.Pos{File: "behaves.yml", Line: 5, Col: 5},
			Program: runner.Program{Entry: file, Files: runner.FilesOf(map[string][]byte{file: []byte(src)})}, Cases: cases}
	}
	plain := spec.Case{Name: "plain", Repeat: 1, Invocation: runner.Invocation{Args: []string{"x"}, Stdin: []byte("in")},
		Expect: verdict.Expectation{Stdout: &verdict.Matcher{Kind: verdict.Equals, Value: "x"}}}
	same := spec.Case{Name: "same", Repeat: 1, Invocation: runner.Invocation{Args: []string{"y"}},
		Expect: verdict.Expectation{SameAs: &verdict.SameAs{Reference: "ref", Streams: []string{"stdout"}}}}
	own := spec.Case{Name: "own", Repeat: 1, Expect: verdict.Expectation{}}
	cand := mk("id-cand", "cand", "cand.sh", "echo $1\n", plain, same)
	cand.Reference = "ref"
	sp := &spec.Spec{Path: "behaves.yml", Root: ".", Profiles: map[string]spec.Profile{"sh": {Runtime: profile()}},
		Programs: []spec.Program{mk("id-ref", "ref", "ref.sh", "echo $MODE\n", own), cand}}
	if edit != nil {
		edit(sp)
	}
	return sp
}

// event is what a sandbox records of a run of c under prof.
func event(prof runner.Profile, prog runner.Program, c spec.Case, stdout string) runner.Event {
	code := 0
	sum := sha256.Sum256(c.Invocation.Stdin)
	ap := runner.Apply(prof)
	return runner.Event{ExitCode: &code, Stdout: runner.Stream{Data: []byte(stdout), Bytes: int64(len(stdout))},
		StdinSHA256: hex.EncodeToString(sum[:]), Command: append(slices.Clone(ap.Command), c.Invocation.Args...),
		ImageDigest: prof.Image, ProgramSHA256: prog.Digest(), Applied: &ap}
}

// storedReport is a run of sp as the engine records it: each program's
// settings from runner.Apply, the same_as case's reference runs with
// theirs.
func storedReport(sp *spec.Spec) report.Report {
	in := assemble.Input{Spec: sp, RunID: "run-1"}
	for _, p := range sp.Programs {
		prof := sp.Job(p).Profile
		var evs []runner.Event
		var results []verdict.CaseResult
		var refs [][]runner.Event
		for _, c := range p.Cases {
			ev := event(prof, p.Program, c, "x\n")
			evs = append(evs, ev)
			results = append(results, verdict.CaseResult{Verdict: verdict.True})
			if c.Expect.SameAs != nil {
				ref := sp.Programs[0]
				refs = append(refs, []runner.Event{event(sp.Job(ref).Profile, ref.Program, c, "a\n")})
			} else {
				refs = append(refs, nil)
			}
		}
		obs := runner.Observation{ExecutionID: "exec-" + p.ID, Acquisition: runner.AcquisitionComplete,
			Events: evs, Settings: runner.Settings{Image: prof.Image, ImageID: prof.Image, Applied: runner.Apply(prof)}}
		if b := runner.Apply(prof).Build; b != nil {
			code := 1
			obs.Build = &runner.Event{ExitCode: &code, Command: b.Command, ImageDigest: b.Image, Limits: b.Limits}
		}
		rec := reporttest.Ran(p, obs, 0, results...)
		for k := range rec.Cases {
			rec.Cases[k].References = refs[k]
		}
		in.Programs = append(in.Programs, rec)
	}
	return assemble.Report(in)
}

// TestCheck holds stored cases against a spec changed one way at a time:
// each change is the difference of its own part, at the case it touches.
func TestCheck(t *testing.T) {
	t.Parallel()
	setProfile := func(f func(p *runner.Profile)) func(*spec.Spec) {
		return func(sp *spec.Spec) {
			prof := sp.Profiles["sh"]
			f(&prof.Runtime)
			sp.Profiles["sh"] = prof
		}
	}
	for _, tt := range []struct {
		name  string
		edit  func(*spec.Spec)
		store func(*report.Report)
		// want is each case's (cand/plain, cand/same) difference parts.
		plain, same []evidence.Part
		whole       bool
	}{
		{name: "unchanged", whole: true},
		{name: "args", edit: func(sp *spec.Spec) { sp.Programs[1].Cases[0].Invocation.Args = []string{"z"} }, plain: []evidence.Part{evidence.PartArgs}, whole: true},
		{name: "stdin", edit: func(sp *spec.Spec) { sp.Programs[1].Cases[0].Invocation.Stdin = []byte("other") }, plain: []evidence.Part{evidence.PartStdin}, whole: true},
		{name: "repeat", edit: func(sp *spec.Spec) { sp.Programs[1].Cases[0].Repeat = 2 }, plain: []evidence.Part{PartRepeat}, whole: true},
		{name: "program", edit: func(sp *spec.Spec) {
			sp.Programs[1].Program.Files["cand.sh"] = runner.BytesFile([]byte("echo changed\n"))
		},
			plain: []evidence.Part{evidence.PartProgram}, same: []evidence.Part{evidence.PartProgram}, whole: true},
		// The profile is the reference's too: its change is the
		// reference's difference as well.
		{name: "tmpfs removed", edit: setProfile(func(p *runner.Profile) { p.Tmpfs = nil }),
			plain: []evidence.Part{"tmpfs"}, same: []evidence.Part{"tmpfs", "reference.tmpfs"}, whole: true},
		{name: "env", edit: setProfile(func(p *runner.Profile) { p.Env = map[string]string{"MODE": "b"} }),
			plain: []evidence.Part{"env"}, same: []evidence.Part{"env", "reference.env"}, whole: true},
		{name: "image", edit: setProfile(func(p *runner.Profile) { p.Image = "sha256:" + strings.Repeat("c", 64) }),
			plain: []evidence.Part{evidence.PartImage}, same: []evidence.Part{evidence.PartImage, "reference.image"}, whole: true},
		{name: "reference program", edit: func(sp *spec.Spec) { sp.Programs[0].Program.Files["ref.sh"] = runner.BytesFile([]byte("echo other\n")) },
			same: []evidence.Part{"reference.program"}, whole: true},
		{name: "format", store: func(r *report.Report) { r.Programs[1].EvidenceFormat++ },
			plain: []evidence.Part{evidence.PartFormat}, same: []evidence.Part{evidence.PartFormat, "reference.format"}, whole: true},
		{name: "settings unrecorded", store: func(r *report.Report) { r.Programs[1].Settings.Applied = report.Applied{} },
			plain: []evidence.Part{evidence.PartSettings}, same: []evidence.Part{evidence.PartSettings}, whole: true},
		{name: "reference settings unrecorded", store: func(r *report.Report) { r.Programs[1].Cases[1].ReferenceApplied = nil },
			same: []evidence.Part{"reference.settings"}, whole: true},
		{name: "output omitted", store: func(r *report.Report) { r.Programs[1].Cases[0].Event.StdoutOmitted = true }, whole: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sp := testSpec(tt.edit)
			r := storedReport(testSpec(nil))
			if tt.store != nil {
				tt.store(&r)
			}
			wants := Wants(sp, nil, nil)
			for k, want := range [][]evidence.Part{tt.plain, tt.same} {
				f := Check(wants[1][k], &r.Programs[1], &r.Programs[1].Cases[k])
				var got []evidence.Part
				for _, d := range f.Differences {
					got = append(got, d.Part)
					if d.Msg == "" {
						t.Errorf("case %d: %s has no message", k, d.Part)
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("case %d: differences %v (%+v), want %v", k, got, f.Differences, want)
				}
				if k == 0 && f.Whole != tt.whole {
					t.Errorf("whole %v, want %v", f.Whole, tt.whole)
				}
				if len(f.Runs) != max(sp.Programs[1].Cases[k].Repeat, 1) && tt.name != "repeat" {
					t.Errorf("case %d: %d runs", k, len(f.Runs))
				}
			}
		})
	}
}

// TestCheckFailedBuild: a case that never ran because its program's
// build failed is held against the program's part of the key and its
// repeat alone: another input finds it, another setting does not.
func TestCheckFailedBuild(t *testing.T) {
	t.Parallel()
	withBuild := func(p *runner.Profile) {
		p.Command = []string{"/build/main"}
		p.Build = &runner.Build{Image: image, Command: []string{"cc", "-o", "/build/main"}, Timeout: time.Minute, Memory: 64 << 20, CPUs: 1, Pids: 64, OutputSize: 1 << 20}
	}
	sp := testSpec(func(sp *spec.Spec) {
		prof := sp.Profiles["sh"]
		withBuild(&prof.Runtime)
		sp.Profiles["sh"] = prof
	})
	r := storedReport(sp)
	for k := range r.Programs[1].Cases {
		c := &r.Programs[1].Cases[k]
		c.Event = report.Event{BuildFailure: "build failed: exit 1", Command: c.Event.Command, StdoutSHA256: c.Event.StdoutSHA256, StderrSHA256: c.Event.StderrSHA256}
	}
	other := testSpec(func(sp *spec.Spec) {
		prof := sp.Profiles["sh"]
		withBuild(&prof.Runtime)
		sp.Profiles["sh"] = prof
		sp.Programs[1].Cases[0].Invocation = runner.Invocation{Args: []string{"another"}}
	})
	f := Check(Wants(other, nil, nil)[1][0], &r.Programs[1], &r.Programs[1].Cases[0])
	if !f.FailedBuild || len(f.Differences) != 0 {
		t.Errorf("another input: failed build %v, differences %+v; want it found", f.FailedBuild, f.Differences)
	}
	changed := testSpec(func(sp *spec.Spec) {
		prof := sp.Profiles["sh"]
		withBuild(&prof.Runtime)
		prof.Runtime.Build.Memory = 128 << 20
		sp.Profiles["sh"] = prof
	})
	f = Check(Wants(changed, nil, nil)[1][0], &r.Programs[1], &r.Programs[1].Cases[0])
	if len(f.Differences) != 1 || f.Differences[0].Part != "build.limits.memory_bytes" {
		t.Errorf("build memory changed: differences %+v, want build.limits.memory_bytes", f.Differences)
	}
}
