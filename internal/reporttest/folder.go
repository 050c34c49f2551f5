package reporttest

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
)

// FolderProgram is a spec's program that is a folder (dir: dir) at line
// 10 of behaves.yml, of the python profile, as the loader makes one: files
// maps each of its files' paths under the folder to its content, entry is
// its entry ("" for none), and with maps each with: file's path under
// /program to the repository path the spec's with: names (its content is
// that path).
func FolderProgram(name, dir, entry string, files, with map[string]string, cases ...spec.Case) spec.Program {
	p := Program(name, dir, 10, cases...)
	p.Program = runner.Program{Files: map[string]runner.File{}, Entry: entry, Folder: true}
	for rel, content := range files {
		p.Program.Files[rel] = runner.BytesFile([]byte(content))
	}
	for at, src := range with {
		p.Program.Files[at] = runner.BytesFile([]byte("# " + src + "\n"))
	}
	p.With = with
	return p
}

// WithFiles is the one-file program p given with: files, as the loader
// makes one: with maps each file's path under /program to the repository
// path the spec's with: names (its content is that path).
func WithFiles(p spec.Program, with map[string]string) spec.Program {
	files := map[string]runner.File{}
	for at, f := range p.Program.Files {
		files[at] = f
	}
	for at, src := range with {
		files[at] = runner.BytesFile([]byte("# " + src + "\n"))
	}
	p.Program.Files, p.With = files, with
	return p
}

// SingleInput is a run of the one program p, whose attempt obs ran each
// case once (case j's run is obs.Events[j]; obs.Build the build stage's,
// under a profile that has one).
func SingleInput(p spec.Program, obs runner.Observation) assemble.Input {
	sp := &spec.Spec{Path: "behaves.yml", Root: ".", Programs: []spec.Program{p}}
	if obs.Build != nil {
		sp.Profiles = map[string]spec.Profile{p.Profile: {Runtime: runner.Profile{Build: &runner.Build{
			OutputSize: 64 << 20, Tmpfs: map[string]int64{"/tmp": 64 << 20},
		}}}}
	}
	return assemble.Input{
		Spec:      sp,
		Programs:  []assemble.Program{Ran(p, obs, time.Second)},
		RunID:     "run-0004",
		StartedAt: StartedAt,
		Duration:  time.Second,
		Version:   "v0.1.0-test",
	}
}

// Single is the report of SingleInput(p, obs), assembled as a run
// assembles it.
func Single(p spec.Program, obs runner.Observation) report.Report {
	return assemble.Report(SingleInput(p, obs))
}

// FailedBuildRun is the attempt of a program of n cases whose build ended
// as build did (a failure), as the runner records one: the build's event,
// and each case's event its build failure (runner.BuildFailure).
func FailedBuildRun(build runner.Event, n int) runner.Observation {
	obs := runner.Observation{
		ExecutionID: "99999999-9999-4999-8999-999999999999", Acquisition: runner.AcquisitionComplete,
		Settings: Settings, Build: &build,
	}
	why := runner.BuildFailure(build)
	for range n {
		obs.Events = append(obs.Events, runner.Event{BuildFailure: why, ProgramSHA256: build.ProgramSHA256})
	}
	return obs
}

// WrittenWithin is the report of in written as a run given
// --max-report-size max writes it (every case through the spooling
// writer, whose case entries and files lists share max bytes), read back
// as a stored report is read: a files list that does not fit is left out
// (files_omitted), and a case's output too.
func WrittenWithin(t testing.TB, in assemble.Input, max int64) report.Report {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.json")
	w, err := assemble.NewWriter(path, reportwrite.Options{MaxSize: max})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	in = AddAll(w, in)
	if _, err := Commit(t, w, assemble.Report(in)); err != nil {
		t.Fatal(err)
	}
	r, err := ReadFile(t, path, 1<<30)
	if err != nil {
		t.Fatalf("reading the report back: %v", err)
	}
	return r
}
