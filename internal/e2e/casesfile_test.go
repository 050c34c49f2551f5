package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestCasesFile runs programs whose cases come from cases files
// on real containers: a files glob sharing one JSON Lines file, and a YAML
// one. The stdin a stdin_file in a cases file names is read from the cases
// file's folder and reaches the program; every case is reported at its
// place in its cases file; and a cases file the loader refuses runs
// nothing, with the problem placed in the cases file.
func TestCasesFile(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	spec := fmt.Sprintf(`version: 1
profiles:
  sh:
    image: %q
    command: ["/bin/sh"]
    timeout: 20s
    memory: 32MiB
programs:
  - name: echo
    files: "solutions/*.sh"
    profile: sh
    cases_file: tests/echo.jsonl
  - name: args
    file: solutions/cat.sh
    profile: sh
    cases_file: tests/args.yaml
`, img.busybox)
	files := map[string]string{
		"solutions/cat.sh":   "cat; for a in \"$@\"; do echo \"arg $a\"; done\n",
		"solutions/wrong.sh": "echo wrong\n",
		"in.txt":             "from the spec's folder\n",
		"tests/in.txt":       "from the cases file's folder\n",
		"tests/echo.jsonl": `{"name": "inline stdin", "stdin": "hello\n", "expect": {"stdout": {"equals": "hello"}}}` + "\n" +
			"\n" +
			`{"name": "stdin file", "stdin_file": "in.txt", "expect": {"stdout": {"equals": "from the cases file's folder"}}}` + "\n",
		"tests/args.yaml": "- name: two args\n  args: [x, y]\n  expect:\n    stdout: {equals: \"arg x\\narg y\"}\n",
	}
	o := runBehaves(t, context.Background(), spec, files)
	if o.code != cli.ExitFalse {
		t.Fatalf("exit %d, want %d (wrong.sh is false)\nstderr:\n%s", o.code, cli.ExitFalse, indent(o.stderr))
	}
	type where struct {
		verdict   verdict.Verdict
		file      string
		line, col int
	}
	want := map[string]map[string]where{
		"echo/cat.sh": {
			"inline stdin": {verdict.True, "tests/echo.jsonl", 1, 1},
			"stdin file":   {verdict.True, "tests/echo.jsonl", 3, 1},
		},
		"echo/wrong.sh": {
			"inline stdin": {verdict.False, "tests/echo.jsonl", 1, 1},
			"stdin file":   {verdict.False, "tests/echo.jsonl", 3, 1},
		},
		"args": {
			"two args": {verdict.True, "tests/args.yaml", 1, 3},
		},
	}
	for name, cases := range want {
		p := o.program(t, name)
		if len(p.Cases) != len(cases) {
			t.Errorf("%s: %d cases, want %d", name, len(p.Cases), len(cases))
		}
		for _, c := range p.Cases {
			w, ok := cases[c.Name]
			got := where{c.Verdict, c.File, c.Line, c.Col}
			if !ok || got != w {
				t.Errorf("%s / %s: %+v, want %+v (reason: %s)", name, c.Name, got, w, c.Reason)
			}
		}
	}
	// The program saw the bytes of the cases folder's in.txt.
	for _, c := range o.program(t, "echo/cat.sh").Cases {
		if c.Name == "stdin file" && c.Event.Stdout != "from the cases file's folder\n" {
			t.Errorf("stdin file: the program printed %q", c.Event.Stdout)
		}
	}

	// A refused cases file: nothing runs, exit 2, and the report's spec
	// errors place each problem in the cases file.
	files["tests/echo.jsonl"] = `{"name": "ok"}` + "\n" + `{"name": "typo", "stdn": "x"}` + "\n" + `{"name": "#3"}` + "\n"
	bad := runBehaves(t, context.Background(), spec, files)
	if bad.code != cli.ExitUsage || len(bad.report.Programs) != 0 {
		t.Fatalf("exit %d with %d programs, want %d and none\nstderr:\n%s", bad.code, len(bad.report.Programs), cli.ExitUsage, indent(bad.stderr))
	}
	var got []string
	for _, e := range bad.report.SpecErrors {
		got = append(got, fmt.Sprintf("%s:%d:%d", filepath.Base(e.File), e.Line, e.Col))
	}
	if strings.Join(got, " ") != "echo.jsonl:2:18 echo.jsonl:3:10" {
		t.Errorf("spec errors at %v, want echo.jsonl:2:18 and echo.jsonl:3:10: %+v", got, bad.report.SpecErrors)
	}
}
