package rescore

import (
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

var gccImage = "sha256:" + strings.Repeat("d", 64)

// buildSpec is testSpec with a build stage: the profile's command is the
// full prefix.
func buildSpec(want string) *spec.Spec {
	sp := testSpec(want)
	setProfile(sp, func(p *runner.Profile) {
		p.Command = []string{"/build/main"}
		p.Build = &runner.Build{
			Image: gccImage, Command: []string{"gcc", "-o", "/build/main"}, Timeout: time.Minute, Memory: 512 << 20,
			CPUs: 1, Pids: 64, OutputLimit: 64 << 10, OutputCeiling: 4 << 20, OutputSize: 64 << 20,
			Tmpfs: map[string]int64{"/tmp": 64 << 20},
		}
	})
	return sp
}

// storedBuild is the report of a run of buildSpec("4").
func storedBuild() report.Report {
	sp := buildSpec("4")
	p := sp.Programs[0]
	evs := []runner.Event{event(sp, p.Cases[0], "4\n"), event(sp, p.Cases[1], "6\n")}
	for k := range evs {
		evs[k].Command = append([]string{"/build/main"}, p.Cases[k].Invocation.Args...)
	}
	code := 0
	build := runner.Event{
		ExitCode: &code, Command: []string{"gcc", "-o", "/build/main", "/program/main.sh"}, ImageDigest: gccImage,
		Limits: runner.Limits{TimeoutMS: 60000, MemoryBytes: 512 << 20, CPUs: 1, Pids: 64, OutputLimit: 64 << 10, OutputCeiling: 4 << 20, NoFile: 256, FileSize: 64 << 20},
	}
	res := []verdict.CaseResult{verdict.Judge(p.Cases[0].Expect, evs[0]), verdict.Judge(p.Cases[1].Expect, evs[1])}
	obs := runner.Observation{ExecutionID: "exec-1", Acquisition: runner.AcquisitionComplete, Events: evs, Build: &build,
		Settings: runner.Settings{Image: profile.Image, ImageID: profile.Image, User: profile.User, Env: []string{"LANG=C.UTF-8"},
			TmpfsBytes: map[string]int64{"/tmp": 1 << 20}, Applied: runner.Apply(sp.Job(p).Profile)}}
	return assemble.Report(assemble.Input{Spec: sp, Programs: []assemble.Program{reporttest.Ran(p, obs, 0, res...)}, RunID: "run-1"})
}

// A built program rescores when its build stage is the stored one (the
// cases' command has no program path), and is refused, at the program,
// naming what differs, when the build's command, image, limits,
// output_size or tmpfs changed, or the stage came or went.
func TestMatchBuild(t *testing.T) {
	t.Parallel()
	old := storedBuild()
	ev, errs := Match(buildSpec("5"), old, "old.json")
	if errs != nil {
		t.Fatalf("Match: %v", errs)
	}
	if v, _ := verdict.Program(results(ev[0])); v != verdict.False || ev[0].Attempt.Build == nil {
		t.Errorf("rescored %s with build %v, want false and the stored build", v, ev[0].Attempt.Build)
	}
	for _, tt := range []struct {
		name string
		edit func(b *runner.Build)
		want string
	}{
		{"command", func(b *runner.Build) { b.Command = []string{"gcc", "-O2", "-o", "/build/main"} }, "build.command is"},
		{"image", func(b *runner.Build) { b.Image = "sha256:" + strings.Repeat("e", 64) }, "build.image is"},
		{"timeout", func(b *runner.Build) { b.Timeout = 2 * time.Minute }, "build.limits.timeout_ms is 120000"},
		{"memory", func(b *runner.Build) { b.Memory = 1 << 30 }, "build.limits.memory_bytes is 1073741824"},
		{"output_size", func(b *runner.Build) { b.OutputSize = 1 << 20 }, "build.output_size is 1048576"},
		{"tmpfs", func(b *runner.Build) { b.Tmpfs = map[string]int64{"/tmp": 1 << 20} }, "build.tmpfs /tmp is 1048576"},
	} {
		sp := buildSpec("4")
		setProfile(sp, func(p *runner.Profile) { b := *p.Build; tt.edit(&b); p.Build = &b })
		if _, errs := Match(sp, old, "old.json"); len(errs) == 0 || errs[0].Pos.Line != 10 || !strings.Contains(errs[0].Msg, tt.want) {
			t.Errorf("%s: errors %v, want one at line 10 containing %q", tt.name, errs, tt.want)
		}
	}
	sp := buildSpec("4")
	setProfile(sp, func(p *runner.Profile) { p.Build = nil })
	if _, errs := Match(sp, old, "old.json"); !strings.Contains(errs.Error(), "build is gone") {
		t.Errorf("a build stage removed: %v", errs)
	}
	if _, errs := Match(buildSpec("4"), stored(), "old.json"); !strings.Contains(errs.Error(), "build is new") {
		t.Errorf("a build stage added: %v", errs)
	}
}
