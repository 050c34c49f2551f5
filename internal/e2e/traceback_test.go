package e2e

import (
	"strconv"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/actionstest"
	"github.com/behaves-dev/behaves/internal/cli"
)

// TestTracebackAnnotationLine guards the annotation in a Python program's
// own file (a hand-written fixture once hid that every annotation was at
// line 1): a program that raises at its line 3, run in a real container,
// gets its annotation at line 3, from the action under GitHub
// Actions (`run` itself never publishes: TestRunNeverPublishes) and from
// `publish` of its report under workflow_run. Every real run once put it at line 1:
// the reader took the mount description in settings.program_mount for the
// program's folder, and the fixtures held a bare "/program" that no real
// run writes.
func TestTracebackAnnotationLine(t *testing.T) {
	img := testImages(t)
	dir := writeTree(t, map[string]string{
		"behaves.yml": `version: 1
profiles:
  py: {image: "` + img.python + `", command: ["python3", "-I"], timeout: 20s}
programs:
  - {name: boom, file: boom.py, profile: py, cases: [{name: raises, expect: {stdout: {equals: "ok"}}}]}
`,
		"boom.py": "def f():\n    x = 1\n    raise ValueError(x)\n\n\nf()\n",
	})
	code, log, rep := runUnderActions(t, dir, true)
	if code != cli.ExitFalse {
		t.Fatalf("the action: exit %d, want %d\n%s", code, cli.ExitFalse, indent(log))
	}
	if err := programAnnotationAt(log, "boom.py", 3); err != "" {
		t.Errorf("the action (run, then publish): %s\n%s", err, indent(log))
	}
	api := newRecordingGitHub(t)
	r := publisher{t: t, bin: buildBehaves(t), api: api}.publish(rep)
	if r.code != cli.ExitFalse {
		t.Fatalf("publish: exit %d, want %d\n%s", r.code, cli.ExitFalse, indent(r.stdout))
	}
	if err := programAnnotationAt(r.stdout, "boom.py", 3); err != "" {
		t.Errorf("publish: %s\n%s", err, indent(r.stdout))
	}
}

// programAnnotationAt checks that log holds exactly one annotation in the
// program file, at line; it returns what is wrong ("" when nothing is).
func programAnnotationAt(log, file string, line int) string {
	var at []string
	for _, c := range actionstest.Commands(log) {
		if strings.HasPrefix(c.Text, "::error file="+file+",") {
			at = append(at, c.Text)
		}
	}
	if len(at) != 1 {
		return "want one annotation in " + file + ", got " + strings.Join(at, " | ")
	}
	want := ",line=" + strconv.Itoa(line) + ","
	if !strings.Contains(at[0], want) {
		return "the annotation " + at[0] + " is not at line " + strconv.Itoa(line)
	}
	return ""
}
