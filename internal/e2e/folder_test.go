package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/gittest"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
)

// folderSpec runs the folder project/ two ways: as a Python package
// (python3 -m tool, nothing appended) and through its executable entry
// run.sh (busybox's env runs it by its shebang), which lists /program.
func folderSpec(img images) string {
	return fmt.Sprintf(`version: 1
profiles:
  py:
    image: "%s"
    command: [python3, -m, tool]
  sh:
    image: "%s"
    command: [env]
programs:
  - name: package
    dir: project
    profile: py
    cases:
      - {name: sum, args: ["1", "2", "3"], expect: {stdout: {equals: "6"}}}
  - name: entry
    dir: project
    entry: run.sh
    profile: sh
    cases:
      - {name: lists, expect: {stdout: {equals: ".\n./lib\n./lib/run\n./run.sh\n./tool\n./tool/__main__.py\n./tool/parsing.py\nlib/run is a link"}}}
`, img.python, img.busybox)
}

// TestFolderProgram: on the real daemon, a dir: program is every file git
// tracks under its folder, delivered at its path relative to it, with
// /program the working directory: the package runs as python3 -m tool,
// its module imported from another file; an executable entry runs; the
// program sees exactly the tracked files (an untracked one is absent, and
// the run says it left it out), and a tracked link inside the folder is a
// link. With --allow-untracked the file is there.
func TestFolderProgram(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	repo := gittest.NewRepo(t)
	gittest.WriteFile(t, repo, "project/tool/__main__.py", "import sys\nfrom tool.parsing import total\nprint(total(sys.argv[1:]))\n")
	gittest.WriteFile(t, repo, "project/tool/parsing.py", "def total(args):\n    return sum(int(a) for a in args)\n")
	gittest.WriteFile(t, repo, "project/run.sh", "#!/bin/sh\nfind . | sort\n[ -L lib/run ] && echo lib/run is a link\n")
	if err := os.Chmod(filepath.Join(repo, "project", "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, "project", "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../run.sh", filepath.Join(repo, "project", "lib", "run")); err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, repo, "behaves.yml", folderSpec(img))
	gittest.AddAll(t, repo)
	gittest.WriteFile(t, repo, "project/secret.env", "TOKEN=untracked\n") // after git add

	code, _, stderr, data := runIn(t, filepath.Join(repo, "behaves.yml"))
	rep := decode(t, data)
	if code != 0 || rep.Verdict != verdict.True {
		t.Fatalf("exit %d, verdict %s; want 0, true\nstderr:\n%s\nreport cases: %+v", code, rep.Verdict, indent(stderr), caseReasons(rep))
	}
	if !strings.Contains(stderr, `program "package" (dir project): 1 file in its folder is not part of it`) {
		t.Errorf("the run does not say it left the untracked file out:\n%s", indent(stderr))
	}
	pkg := rep.Programs[0]
	if pkg.File != "project" {
		t.Errorf("program file %q, want the folder", pkg.File)
	}
	if ev := pkg.Cases[0].Event; strings.Join(ev.Command, " ") != "python3 -m tool 1 2 3" {
		t.Errorf("command %q: want the profile's alone, then the args", ev.Command)
	}

	// Admitted, the untracked file is delivered; the listing differs.
	code, _, stderr, data = runIn(t, filepath.Join(repo, "behaves.yml"), "--allow-untracked", "project/*.env")
	rep = decode(t, data)
	entry := rep.Programs[1].Cases[0]
	if code != 1 || entry.Verdict != verdict.False || !strings.Contains(entry.Event.Stdout, "./secret.env") {
		t.Errorf("with --allow-untracked: exit %d, entry %s, stdout %q; want secret.env listed\n%s", code, entry.Verdict, entry.Event.Stdout, indent(stderr))
	}
}

// TestFolderProgramBuild: a folder program with a build stage builds in
// /program, with /program appended to the build's command without an
// entry and /program/<entry> with one, also an entry in a subfolder (once
// refused as "not a single file name": the build's program name was
// checked as a one-file program's); every case runs what it built.
func TestFolderProgramBuild(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	repo := gittest.NewRepo(t)
	const script = `pwd > /build/pwd; echo "$0" > /build/arg; cat src/a.txt > /build/out`
	gittest.WriteFile(t, repo, "project/src/a.txt", "A\n")
	gittest.WriteFile(t, repo, "project/bin/build.sh", script+"\n")
	gittest.WriteFile(t, repo, "behaves.yml", fmt.Sprintf(`version: 1
profiles:
  whole:
    image: "%[1]s"
    command: [cat, /build/pwd, /build/arg, /build/out]
    build: {command: [sh, -c, '%[2]s']}
  entry:
    image: "%[1]s"
    command: [cat, /build/pwd, /build/arg, /build/out]
    build: {command: [sh]}
programs:
  - name: whole
    dir: project
    profile: whole
    cases:
      - {name: built, expect: {stdout: {equals: "/program\n/program\nA"}}}
  - name: entry
    dir: project
    entry: bin/build.sh
    profile: entry
    cases:
      - {name: built, expect: {stdout: {equals: "/program\n/program/bin/build.sh\nA"}}}
`, img.busybox, script))
	gittest.AddAll(t, repo)
	code, _, stderr, data := runIn(t, filepath.Join(repo, "behaves.yml"))
	rep := decode(t, data)
	if code != 0 || rep.Verdict != verdict.True {
		t.Fatalf("exit %d, verdict %s; want 0, true\nstderr:\n%s\nreport cases: %+v", code, rep.Verdict, indent(stderr), caseReasons(rep))
	}
	for _, p := range rep.Programs {
		if p.Build == nil {
			t.Errorf("program %s: no build in the report", p.Name)
		}
	}
}

// TestFolderProgramRefused: a link out of the folder and a folder over
// --max-program-files are exit 2, naming them, and nothing runs.
func TestFolderProgramRefused(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, repo string)
		args  []string
		want  string
	}{
		{"link out", func(t *testing.T, repo string) {
			if err := os.Symlink("../../behaves.yml", filepath.Join(repo, "project", "tool", "spec.py")); err != nil {
				t.Fatal(err)
			}
		}, nil, `link "tool/spec.py" points to "../../behaves.yml", outside the program`},
		{"too many files", nil, []string{"--max-program-files", "2"}, `holds more than 2 files, above --max-program-files 2`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo := gittest.NewRepo(t)
			gittest.WriteFile(t, repo, "project/tool/__main__.py", "print(1)\n")
			gittest.WriteFile(t, repo, "project/tool/parsing.py", "X = 1\n")
			gittest.WriteFile(t, repo, "project/run.sh", "#!/bin/sh\n")
			gittest.WriteFile(t, repo, "behaves.yml", folderSpec(img))
			if tt.setup != nil {
				tt.setup(t, repo)
			}
			gittest.AddAll(t, repo)
			code, _, stderr, _ := runIn(t, filepath.Join(repo, "behaves.yml"), tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, "behaves.yml:") {
				t.Errorf("exit %d, want 2 with %q at the spec's position:\n%s", code, tt.want, indent(stderr))
			}
		})
	}
}

// decode reads a report behaves wrote (checked by the strict schema).
func decode(t *testing.T, data []byte) report.Report {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := readWritten(t, path, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// caseReasons lists each case's verdict and reason, for failure messages.
func caseReasons(r report.Report) []string {
	var out []string
	for _, p := range r.Programs {
		for _, c := range p.Cases {
			out = append(out, fmt.Sprintf("%s/%s: %s %s", p.Name, c.Name, c.Verdict, c.Reason))
		}
	}
	return out
}

// TestFolderCandidates: dirs: gives one program per candidate folder,
// grouped for pass@k, and with: delivers the shared harness to every one:
// the harness (the profile's command, nothing appended) imports each
// candidate's own module.
func TestFolderCandidates(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	repo := gittest.NewRepo(t)
	gittest.WriteFile(t, repo, "harness/check.py", "from solution import add\nprint(add(2, 3))\n")
	gittest.WriteFile(t, repo, "candidates/a/solution.py", "def add(a, b):\n    return a + b\n")
	gittest.WriteFile(t, repo, "candidates/b/solution.py", "def add(a, b):\n    return a - b\n")
	gittest.WriteFile(t, repo, "candidates/c/solution.py", "from helper import plus as add\n")
	gittest.WriteFile(t, repo, "candidates/c/helper.py", "def plus(a, b):\n    return a + b\n")
	gittest.WriteFile(t, repo, "behaves.yml", fmt.Sprintf(`version: 1
profiles:
  py:
    image: "%s"
    command: [python3, harness/check.py]
    env: {PYTHONPATH: /program}
programs:
  - name: add
    dirs: "candidates/*"
    with: [harness/check.py]
    profile: py
    cases:
      - {name: five, expect: {stdout: {equals: "5"}}}
`, img.python))
	gittest.AddAll(t, repo)
	code, _, stderr, data := runIn(t, filepath.Join(repo, "behaves.yml"), "--pass-at", "1")
	rep := decode(t, data)
	var got []string
	for _, p := range rep.Programs {
		got = append(got, p.Name+" "+p.Verdict.String())
	}
	if code != 1 || strings.Join(got, ",") != "add/a true,add/b false,add/c true" {
		t.Fatalf("exit %d, programs %v; want add/a true, add/b false, add/c true\n%s", code, got, indent(stderr))
	}
	if len(rep.Groups) != 1 || rep.Groups[0].Name != "add" || rep.Groups[0].N != 3 || rep.Groups[0].True != 2 {
		t.Errorf("groups %+v, want add: 3 samples, 2 true", rep.Groups)
	}
}

// TestFolderReuseRunsOnlyTheEditedProgram: with --reuse of a run of three
// folder programs, editing one file of one of them (not its entry) runs
// that program alone: one container starts, counted from the daemon's live
// event stream, and the others' cases are reused; the edited program's
// reason names its program.
func TestFolderReuseRunsOnlyTheEditedProgram(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	cl := dockertest.Client(t)
	repo := gittest.NewRepo(t)
	for _, c := range []string{"a", "b", "c"} {
		gittest.WriteFile(t, repo, "candidates/"+c+"/main.py", "from helper import answer\nprint(answer())\n")
		gittest.WriteFile(t, repo, "candidates/"+c+"/helper.py", "def answer():\n    return 42\n")
	}
	gittest.WriteFile(t, repo, "behaves.yml", fmt.Sprintf(`version: 1
profiles:
  py: {image: "%s", command: [python3]}
programs:
  - name: cand
    dirs: "candidates/*"
    entry: main.py
    profile: py
    cases:
      - {name: answer, expect: {stdout: {equals: "42"}}}
`, img.python))
	gittest.AddAll(t, repo)
	specPath := filepath.Join(repo, "behaves.yml")
	code, _, stderr, data := runIn(t, specPath)
	if code != 0 {
		t.Fatalf("the stored run: exit %d\n%s", code, indent(stderr))
	}
	stored := filepath.Join(t.TempDir(), "stored.json")
	if err := os.WriteFile(stored, data, 0o644); err != nil {
		t.Fatal(err)
	}

	gittest.WriteFile(t, repo, "candidates/b/helper.py", "def answer():\n    return 41\n")
	gittest.AddAll(t, repo)
	runID := randomHex(t)[:16]
	var mu sync.Mutex
	started := 0
	stop := followEvents(t, cl, filters.NewArgs(filters.Arg("type", "container"), filters.Arg("event", "start"),
		filters.Arg("label", "behaves.run-id="+runID)), func(events.Message) {
		mu.Lock()
		started++
		mu.Unlock()
	})
	code, _, stderr, data = runIn(t, specPath, "--reuse", stored, "--run-id", runID)
	stop()
	rep := decode(t, data)
	if code != 1 {
		t.Errorf("exit %d, want 1 (cand/b false)\n%s", code, indent(stderr))
	}
	for _, p := range rep.Programs {
		c := p.Cases[0]
		switch p.Name {
		case "cand/b":
			if c.ReusedFrom != nil || c.NotReused == nil || c.NotReused.Reason != "changed: program" || c.Verdict != verdict.False {
				t.Errorf("cand/b: reused %+v, not reused %+v, %s; want it run again for its program, false", c.ReusedFrom, c.NotReused, c.Verdict)
			}
		default:
			if c.ReusedFrom == nil || c.Verdict != verdict.True {
				t.Errorf("%s: not reused (%+v), %s; want its stored run, true", p.Name, c.NotReused, c.Verdict)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if started != 1 {
		t.Errorf("%d containers started, want 1: the edited program's one case", started)
	}

	// rescore refuses the stored run for the edited program, naming the
	// file that changed (from the stored report's files list).
	var out bytes.Buffer
	code = cli.Main(context.Background(), []string{"rescore", "--spec", specPath, "--report", stored,
		"--report-out", filepath.Join(t.TempDir(), "rescored.json")}, cli.Env{
		Stdout: &out, Stderr: &out, Getenv: os.Getenv,
		NewSandbox: func(context.Context, string) (runner.Sandbox, io.Closer, error) {
			t.Error("rescore asked for a sandbox")
			return nil, nil, errors.New("no sandbox in rescore")
		},
	})
	if want := `candidates/b changed since the stored run: "helper.py" changed (sha256`; code != cli.ExitUsage || !strings.Contains(out.String(), want) {
		t.Errorf("rescore after the edit: exit %d, want %d and %q\n%s", code, cli.ExitUsage, want, indent(out.String()))
	}
}
