package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/gittest"
)

// sampleRepo is a git repository with one likely program of each kind
// init knows, and files that are not programs (a library module, a test,
// a vendored main package, a script git does not track, a module inside a
// package), and returns its folder.
func sampleRepo(t *testing.T) string {
	t.Helper()
	dir := gittest.NewRepo(t)
	files := map[string]string{
		// Python: a script, a script that imports a module beside it, a
		// folder run with -m, and what is not a program.
		"fizzbuzz.py":               "import sys\n\ndef main():\n    print(sys.argv)\n\nif __name__ == \"__main__\":\n    main()\n",
		"tools/report.py":           "import helpers\n\nif __name__ == '__main__':\n    helpers.run()\n",
		"tools/helpers.py":          "def run():\n    print('report')\n",
		"wordfreq/tool/__main__.py": "from tool import cli\ncli.main()\n",
		"wordfreq/tool/__init__.py": "",
		"wordfreq/tool/cli.py":      "def main():\n    print('tool')\n\nif __name__ == '__main__':\n    main()\n",
		"lib/util.py":               "def helper():\n    return 1\n",
		"tests/test_util.py":        "import unittest\n\nif __name__ == '__main__':\n    unittest.main()\n",
		"pyproject.toml":            "[project]\nname = \"sample\"\n",
		// Go: a module with a main package at its root, and one below it
		// in another module; a vendored main package is not a program.
		"rpn/go.mod":                       "module example.com/rpn\n\ngo 1.19\n",
		"rpn/main.go":                      "package main\n\nimport \"example.com/rpn/internal/calc\"\n\nfunc main() { calc.Run() }\n",
		"rpn/internal/calc/calc.go":        "package calc\n\nfunc Run() {}\n",
		"svc/go.mod":                       "module example.com/svc\n\ngo 1.19\n",
		"svc/cmd/hello/main.go":            "package main\n\nfunc main() {}\n",
		"svc/vendor/example.com/x/x.go":    "package main\n\nfunc main() {}\n",
		"svc/vendor/modules.txt":           "# example.com/x v1.0.0\n",
		"svc/internal/greet/greet.go":      "package greet\n",
		"svc/internal/greet/greet_test.go": "package main\n",
		// C: a file with main, and one without.
		"csum/sum.c":  "#include <stdio.h>\n\nint main(int argc, char **argv) {\n\treturn 0;\n}\n",
		"csum/util.c": "int add(int a, int b) { return a + b; }\n",
		// Shell: by shebang; a README is not a script.
		"scripts/hello.sh": "#!/bin/sh\necho hello\n",
		"tools/report.sh":  "#!/bin/sh\necho report\n",
		"scripts/deploy":   "#!/usr/bin/env bash\necho deploy\n",
		"README":           "# sample\n",
		// Node: a package's bin.
		"web/package.json": `{"name": "web", "bin": {"greet": "bin/greet.js"}}`,
		"web/bin/greet.js": "#!/usr/bin/env node\nconsole.log('hi')\n",
		"web/lib/index.js": "module.exports = {}\n",
	}
	for rel, content := range files {
		gittest.WriteFile(t, dir, rel, content)
	}
	if err := os.Chmod(filepath.Join(dir, "scripts", "deploy"), 0o755); err != nil {
		t.Fatal(err)
	}
	gittest.AddAll(t, dir)
	// Not tracked: never a program.
	gittest.WriteFile(t, dir, "untracked.py", "if __name__ == '__main__':\n    print(1)\n")
	return dir
}

// TestInitSampleRepo writes a spec for the sample repository and checks
// it with validate's own code path: what init proposes, that the only
// problems are the images it left as tags, each at a line with the TODO
// comment it printed, and that with an image given for every language the
// spec is valid as it stands.
func TestInitSampleRepo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := sampleRepo(t)
	path := filepath.Join(dir, "behaves.yml")

	r := runMain(t, ctx, nil, "init", "--spec", path)
	if r.code != ExitTrue {
		t.Fatalf("init: exit %d; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	spec := string(data)
	// The programs it proposes, by name and path, and nothing else.
	want := map[string]string{
		"fizzbuzz":        "file: fizzbuzz.py",
		"tools/report.py": "dir: tools\n    entry: report.py",
		"tools/report.sh": "file: tools/report.sh",
		"tool":            "dir: wordfreq",
		"rpn":             "dir: rpn",
		"svc/cmd/hello":   "dir: svc",
		"sum":             "file: csum/sum.c",
		"scripts/hello":   "file: scripts/hello.sh",
		"deploy":          "file: scripts/deploy",
		"greet":           "dir: web\n    entry: bin/greet.js",
	}
	names := regexp.MustCompile(`(?m)^  - name: (.*)$`).FindAllStringSubmatch(spec, -1)
	var got []string
	for _, m := range names {
		got = append(got, m[1])
	}
	var wantNames []string
	for n := range want {
		wantNames = append(wantNames, n)
	}
	slices.Sort(got)
	slices.Sort(wantNames)
	if !slices.Equal(got, wantNames) {
		t.Errorf("programs %v, want %v; spec:\n%s", got, wantNames, spec)
	}
	for name, where := range want {
		if !strings.Contains(spec, "  - name: "+name+"\n    "+where+"\n") {
			t.Errorf("program %s is not written with %q; spec:\n%s", name, where, spec)
		}
	}
	for _, s := range []string{"python3\", \"-m\", \"tool\"", "exec go build -o /build/app ./cmd/hello", "GOFLAGS: -mod=vendor", "gcc", `command: ["bash"]`, `command: ["node"]`} {
		if !strings.Contains(spec, s) {
			t.Errorf("the spec lacks %q:\n%s", s, spec)
		}
	}
	for _, s := range []string{"behaves init: wrote " + path, "next: behaves pin --spec " + path + " --allow-registry docker.io, then behaves validate --spec " + path,
		"behaves-report.* to .gitignore", "TODO: 5 images written as tags"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("init's output lacks %q:\n%s", s, r.stdout)
		}
	}

	// validate: each problem is an unpinned image at a TODO line, and
	// each TODO line has its problem.
	var todo []int
	for i, line := range strings.Split(spec, "\n") {
		if strings.Contains(line, "# TODO: pin this image: behaves pin --allow-registry docker.io") {
			todo = append(todo, i+1)
		}
	}
	if len(todo) == 0 {
		t.Fatalf("no TODO comment in the spec:\n%s", spec)
	}
	r = runMain(t, ctx, nil, "validate", "--spec", path)
	if r.code != ExitUsage {
		t.Fatalf("validate: exit %d, want %d (the unpinned images); stderr:\n%s", r.code, ExitUsage, r.stderr)
	}
	problemRE := regexp.MustCompile(`^` + regexp.QuoteMeta(path) + `:(\d+):\d+: (.*)$`)
	var problems []int
	for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		m := problemRE.FindStringSubmatch(line)
		if m == nil {
			if !strings.HasPrefix(line, "behaves: the spec has ") {
				t.Errorf("validate: unexpected line %q", line)
			}
			continue
		}
		n, _ := strconv.Atoi(m[1])
		problems = append(problems, n)
		if !strings.Contains(m[2], "is unpinned: pin it by registry digest") {
			t.Errorf("validate: line %d: %s; want only unpinned images", n, m[2])
		}
	}
	if !slices.Equal(problems, todo) {
		t.Errorf("validate's problems at lines %v, the TODO comments at %v:\n%s", problems, todo, r.stderr)
	}

	// It never replaces a spec, nor writes one beside behaves.yaml.
	r = runMain(t, ctx, nil, "init", "--spec", path)
	if r.code != ExitUsage || !strings.Contains(r.stderr, path+" exists") || !strings.Contains(r.stderr, "--force") {
		t.Errorf("init over a spec: exit %d, want %d naming it; stderr:\n%s", r.code, ExitUsage, r.stderr)
	}
	if b, _ := os.ReadFile(path); string(b) != spec {
		t.Error("init without --force changed the spec")
	}
	r = runMain(t, ctx, nil, "init", "--spec", filepath.Join(dir, "behaves.yaml"))
	if r.code != ExitUsage || !strings.Contains(r.stderr, path+" exists") {
		t.Errorf("init of behaves.yaml beside behaves.yml: exit %d, want %d naming behaves.yml; stderr:\n%s", r.code, ExitUsage, r.stderr)
	}

	// With an image for every language, pinned, the spec is valid.
	id := "sha256:" + strings.Repeat("5", 64)
	args := []string{"init", "--spec", path, "--force"}
	for _, l := range []string{"python", "go", "c", "shell", "node"} {
		args = append(args, "--image", l+"="+id)
	}
	if r = runMain(t, ctx, nil, args...); r.code != ExitTrue || strings.Contains(r.stdout, "TODO") || strings.Contains(r.stdout, "behaves pin") {
		t.Fatalf("init --image …: exit %d; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), "TODO") {
		t.Errorf("a TODO with every image given:\n%s", b)
	}
	r = runMain(t, ctx, nil, "validate", "--spec", path)
	if r.code != ExitTrue || !strings.Contains(r.stdout, "valid: 10 programs") && !strings.Contains(r.stdout, "valid: 10 program(s)") {
		t.Errorf("validate with every image given: exit %d; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestInitRefuses: outside a git work tree init writes nothing, and a bad
// --image is a usage error.
func TestInitRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "behaves.yml")
	r := runMain(t, ctx, nil, "init", "--spec", path)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "not inside a git work tree") {
		t.Errorf("init outside git: exit %d, want %d; stderr:\n%s", r.code, ExitUsage, r.stderr)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("init outside git wrote a spec")
	}
	// A repository with nothing init knows: nothing is written.
	repo := gittest.NewRepo(t)
	gittest.WriteFile(t, repo, "README", "hi\n")
	gittest.AddAll(t, repo)
	r = runMain(t, ctx, nil, "init", "--spec", filepath.Join(repo, "behaves.yml"))
	if r.code != ExitUsage || !strings.Contains(r.stderr, "found no Python, Go, C, shell or Node file") {
		t.Errorf("init with nothing to propose: exit %d, want %d; stderr:\n%s", r.code, ExitUsage, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(repo, "behaves.yml")); err == nil {
		t.Error("init with nothing to propose wrote a spec")
	}
	for _, bad := range []string{"rust=x:1", "python=python", "python=Not A Ref", "python"} {
		r = runMain(t, ctx, nil, "init", "--spec", path, "--image", bad)
		if r.code != ExitUsage {
			t.Errorf("init --image %s: exit %d, want %d; stderr:\n%s", bad, r.code, ExitUsage, r.stderr)
		}
	}
}

// TestInitThenPin: init pins what it can resolve when --allow-registry
// names the registry (no TODO there), leaves a tag with a TODO when it is
// not allowed to ask, and behaves pin then pins it, removing the TODO: the
// spec is then valid.
func TestInitThenPin(t *testing.T) {
	t.Parallel()
	host, _ := loopbackRegistry(t)
	ctx := context.Background()
	repo := host + "/behaves-test/init-" + randomName(t)
	py := pushTag(t, repo+":python", labelled(t, "python"))
	sh := pushTag(t, repo+":shell", labelled(t, "shell"))
	dir := gittest.NewRepo(t)
	gittest.WriteFile(t, dir, "main.py", "if __name__ == '__main__':\n    print('hi')\n")
	gittest.WriteFile(t, dir, "run.sh", "#!/bin/sh\necho hi\n")
	gittest.AddAll(t, dir)
	path := filepath.Join(dir, "behaves.yml")

	r := runMain(t, ctx, nil, "init", "--spec", path, "--image", "python="+repo+":python", "--image", "shell="+repo+":shell", "--allow-registry", host)
	b, _ := os.ReadFile(path)
	if r.code != ExitTrue || strings.Contains(string(b), "TODO") || !strings.Contains(string(b), `image: "`+repo+`:python@`+py+`"`) ||
		!strings.Contains(string(b), `image: "`+repo+`:shell@`+sh+`"`) {
		t.Fatalf("init --allow-registry: exit %d; stdout:\n%s\nstderr:\n%s\nspec:\n%s", r.code, r.stdout, r.stderr, b)
	}
	if r = runMain(t, ctx, nil, "validate", "--spec", path); r.code != ExitTrue {
		t.Errorf("validate: exit %d; stderr:\n%s", r.code, r.stderr)
	}

	// Not allowed to ask: tags with TODO comments, which pin resolves.
	r = runMain(t, ctx, nil, "init", "--spec", path, "--force", "--image", "python="+repo+":python", "--image", "shell="+repo+":shell")
	b, _ = os.ReadFile(path)
	if r.code != ExitTrue || strings.Count(string(b), "# TODO: pin this image: behaves pin --allow-registry "+host) != 2 ||
		!strings.Contains(r.stdout, "next: behaves pin --spec "+path+" --allow-registry "+host) {
		t.Fatalf("init without --allow-registry: exit %d; stdout:\n%s\nspec:\n%s", r.code, r.stdout, b)
	}
	if r = runMain(t, ctx, nil, "pin", "--spec", path, "--allow-registry", host); r.code != ExitTrue {
		t.Fatalf("pin: exit %d; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	after, _ := os.ReadFile(path)
	wantSpec := strings.NewReplacer(
		`"`+repo+`:python"  # TODO: pin this image: behaves pin --allow-registry `+host, `"`+repo+`:python@`+py+`"`,
		`"`+repo+`:shell"  # TODO: pin this image: behaves pin --allow-registry `+host, `"`+repo+`:shell@`+sh+`"`,
	).Replace(string(b))
	if string(after) != wantSpec {
		t.Errorf("pin wrote:\n%s\nwant:\n%s", after, wantSpec)
	}
	if r = runMain(t, ctx, nil, "validate", "--spec", path); r.code != ExitTrue {
		t.Errorf("validate after pin: exit %d; stderr:\n%s", r.code, r.stderr)
	}
}

// TestInitWithoutPrograms: a language but no likely program gives the
// profile and an empty programs list with a TODO, which init names and
// which is, with the image, all that validate refuses.
func TestInitWithoutPrograms(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := gittest.NewRepo(t)
	gittest.WriteFile(t, dir, "lib/util.py", "def f():\n    return 1\n")
	gittest.AddAll(t, dir)
	path := filepath.Join(dir, "behaves.yml")
	r := runMain(t, ctx, nil, "init", "--spec", path)
	if r.code != ExitTrue || !strings.Contains(r.stdout, "TODO: found no likely program") ||
		!strings.Contains(r.stdout, "TODO: 1 image written as a tag, which behaves validate refuses until it is pinned: python:3.13-slim (python)") {
		t.Fatalf("init: exit %d; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = runMain(t, ctx, nil, "validate", "--spec", path)
	problems := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.code != ExitUsage || len(problems) != 3 || !strings.Contains(problems[0], `image "python:3.13-slim" is unpinned`) ||
		!strings.Contains(problems[1], "programs is empty") {
		t.Errorf("validate: exit %d; want the image and the empty programs list only:\n%s", r.code, r.stderr)
	}
}
