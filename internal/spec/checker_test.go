package spec

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/behaves-dev/behaves/internal/runner"
)

// TestCheckerJob: a checker's job is its files and, for each checked
// stream, the input, output and answer under CheckDir, each invocation's
// arguments their paths in testlib's order; its profile's program name
// is set as a program's job sets it, and the job is marked a checker's.
func TestCheckerJob(t *testing.T) {
	t.Parallel()
	repo := copyTree(t)
	s, err := Load(filepath.Join(repo, "ok", "checkers.yaml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var split, folder Checker
	for _, c := range s.Checkers {
		switch c.Name {
		case "split":
			split = c
		case "with-entry":
			folder = c
		}
	}
	job := s.CheckerJob(split, []CheckedStream{
		{Input: []byte("4\n"), Output: []byte("1 2 4\n"), Answer: []byte("1 3 4\n")},
		{Input: nil, Output: []byte("x"), Answer: nil},
	})
	if !job.Checker || job.Profile.ProgramName != "split.py" || job.Program.Entry != "split.py" || job.Program.Folder {
		t.Errorf("job: checker %v, program name %q, entry %q, folder %v", job.Checker, job.Profile.ProgramName, job.Program.Entry, job.Program.Folder)
	}
	want := map[string]string{
		"split.py":                "import sys\nsys.exit(0)\n",
		".behaves-check/0/input":  "4\n",
		".behaves-check/0/output": "1 2 4\n",
		".behaves-check/0/answer": "1 3 4\n",
		".behaves-check/1/input":  "",
		".behaves-check/1/output": "x",
		".behaves-check/1/answer": "",
	}
	if len(job.Program.Files) != len(want) {
		t.Errorf("files %v, want %v", slices.Sorted(maps.Keys(job.Program.Files)), slices.Sorted(maps.Keys(want)))
	}
	for p, data := range want {
		f, ok := job.Program.Files[p]
		got, err := f.ReadAll()
		if !ok || err != nil || string(got) != data {
			t.Errorf("%s: %q (present %v, %v), want %q", p, got, ok, err, data)
		}
	}
	if len(job.Invocations) != 2 {
		t.Fatalf("%d invocations, want 2", len(job.Invocations))
	}
	for k, inv := range job.Invocations {
		dir := "/program/.behaves-check/" + string(rune('0'+k))
		if !slices.Equal(inv.Args, []string{dir + "/input", dir + "/output", dir + "/answer"}) || inv.Stdin != nil {
			t.Errorf("invocation %d: %q, stdin %q", k, inv.Args, inv.Stdin)
		}
	}
	// The checker's own program is left as it was: its digest is the
	// checker's, without what it checks.
	if len(split.Program.Files) != 1 {
		t.Errorf("CheckerJob changed the checker's files: %v", slices.Sorted(maps.Keys(split.Program.Files)))
	}
	// Without a build stage, the argv is the command, the checker's path,
	// then the three paths; with one, the command and the three paths.
	if got := runner.Apply(job.Profile).Command; !slices.Equal(got, []string{"python3", "-I", "/program/split.py"}) {
		t.Errorf("command %q", got)
	}
	fjob := s.CheckerJob(folder, []CheckedStream{{Output: []byte("1")}})
	if h, err := fjob.Program.Files["reader.h"].ReadAll(); !fjob.Program.Folder || fjob.Profile.ProgramName != "check.cpp" || err != nil || string(h) != "#pragma once\n" {
		t.Errorf("folder job: %+v", fjob.Profile)
	}
	if got := runner.Apply(fjob.Profile).Command; !slices.Equal(got, []string{"/build/check"}) {
		t.Errorf("built checker's command %q", got)
	}
}
