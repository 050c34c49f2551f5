package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// recordIn runs `behaves record` on the spec at specPath against the real
// daemon, with GITHUB_ACTIONS as actions says (not the test's own), and a
// run ID of its own, and checks that the run left nothing behind.
func recordIn(t *testing.T, actions, specPath string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	runID := randomHex(t)[:16]
	var out, errOut bytes.Buffer
	argv := append([]string{"record", "--spec", specPath, "--run-id", runID}, args...)
	code = cli.Main(context.Background(), argv, cli.Env{
		Stdout: &out,
		Stderr: &errOut,
		Getenv: func(k string) string {
			if k == "GITHUB_ACTIONS" {
				return actions
			}
			return os.Getenv(k)
		},
		NewSandbox: cli.DockerSandbox(context.Background()),
	})
	dockertest.AssertNothingLeft(t, dockertest.Client(t), runID)
	return code, out.String(), errOut.String()
}

const rlePy = `import sys
if sys.argv[1:] == ["--help"]:
    print("usage: rle < text", file=sys.stderr)
    sys.exit(2)
s = sys.stdin.read().strip()
out, i = [], 0
while i < len(s):
    j = i
    while j < len(s) and s[j] == s[i]:
        j += 1
    out.append(%s)
    i = j
print("".join(out))
`

// TestRecord: behaves record on a spec of Python and busybox programs
// (cases in the spec, block and flow, a JSON Lines cases file, a files:
// entry whose samples agree) writes what each program did into every case,
// keeping every other byte of the files; behaves run then passes. A
// changed program fails run, record --update shows the diff that accepts
// it and writes it, and run passes again; a record with nothing to write
// runs nothing. Under GitHub Actions record refuses without --force.
func TestRecord(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	head := fmt.Sprintf(`# behaves record writes the expectations; this comment stays
version: 1
profiles:
  python: {image: "%s", command: ["python3", "-I"]}   # Debian's python3
  sh: {image: "%s", command: [/bin/sh]}
programs:
  - name: rle            # run-length encoding
    file: rle.py
    profile: python
    cases:
      - name: letters
        stdin: "aaabcc\n"
`, img.python, img.busybox)
	spec := head + `      - {name: empty, stdin: ""}
      # the usage goes to stderr
      - name: usage
        args: [--help]

  - {name: greet, file: greet.sh, profile: sh, cases_file: greet.jsonl}
  - name: samples
    files: "samples/*.sh"
    profile: sh
    cases: [{name: same}]
`
	dir := writeTree(t, map[string]string{
		"behaves.yml":  spec,
		"rle.py":       fmt.Sprintf(rlePy, `f"{j - i}{s[i]}"`),
		"greet.sh":     `echo "hello, ${1:-world}"` + "\n",
		"greet.jsonl":  `{"name": "default"}` + "\n" + `{"name": "named", "args": ["ada"]}` + "\n",
		"samples/1.sh": "echo same\n",
		"samples/2.sh": "echo 'same'\n",
	})
	specPath := filepath.Join(dir, "behaves.yml")

	code, stdout, stderr := recordIn(t, "true", specPath)
	if code != 2 || !strings.Contains(stderr, "refused under GitHub Actions") || stdout != "" {
		t.Errorf("under Actions: exit %d, want 2\n%s", code, indent(stderr))
	}
	if got := read(t, specPath); got != spec {
		t.Fatalf("the refused record changed the spec:\n%s", got)
	}

	code, stdout, stderr = recordIn(t, "", specPath)
	if code != 0 {
		t.Fatalf("record: exit %d\n%s\n%s", code, indent(stdout), indent(stderr))
	}
	want := head + `        expect:
          exit_code: 0
          stdout: {equals: "3a1b2c\n"}
      - {name: empty, stdin: "", expect: {exit_code: 0, stdout: {equals: "\n"}}}
      # the usage goes to stderr
      - name: usage
        args: [--help]
        expect:
          exit_code: 2
          stdout: {equals: ""}
          stderr: {equals: "usage: rle < text\n"}

  - {name: greet, file: greet.sh, profile: sh, cases_file: greet.jsonl}
  - name: samples
    files: "samples/*.sh"
    profile: sh
    cases: [{name: same, expect: {exit_code: 0, stdout: {equals: "same\n"}}}]
`
	if got := read(t, specPath); got != want {
		t.Errorf("the recorded spec:\n%s\nwant:\n%s", got, want)
	}
	wantJSONL := `{"name": "default", "expect": {"exit_code": 0, "stdout": {"equals": "hello, world\n"}}}` + "\n" +
		`{"name": "named", "args": ["ada"], "expect": {"exit_code": 0, "stdout": {"equals": "hello, ada\n"}}}` + "\n"
	if got := read(t, filepath.Join(dir, "greet.jsonl")); got != wantJSONL {
		t.Errorf("the recorded cases file:\n%s\nwant:\n%s", got, wantJSONL)
	}
	for _, l := range []string{"--- " + specPath, "+        expect:", `+          stderr: {equals: "usage: rle < text\n"}`,
		"--- " + filepath.Join(dir, "greet.jsonl"), `+{"name": "default", "expect":`} {
		if !slices.ContainsFunc(strings.Split(stdout, "\n"), func(s string) bool { return strings.HasPrefix(s, l) }) {
			t.Errorf("the diff lacks the line %q:\n%s", l, stdout)
		}
	}
	if !strings.Contains(stderr, "6 cases recorded") {
		t.Errorf("record's summary:\n%s", indent(stderr))
	}

	code, _, stderr, data := runIn(t, specPath)
	rep := decode(t, data)
	if code != 0 || rep.Verdict != verdict.True || rep.Counts.Cases.True != 7 {
		t.Fatalf("run on the recorded spec: exit %d, %s, %+v\n%s", code, rep.Verdict, rep.Counts.Cases, indent(stderr))
	}

	// The program changes: run fails, record --update accepts the change.
	if err := os.WriteFile(filepath.Join(dir, "rle.py"), []byte(fmt.Sprintf(rlePy, `f"{s[i]}{j - i}"`)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr, _ := runIn(t, specPath); code != 1 {
		t.Fatalf("run after the change: exit %d, want 1\n%s", code, indent(stderr))
	}
	code, stdout, stderr = recordIn(t, "", specPath, "--update")
	if code != 0 {
		t.Fatalf("record --update: exit %d\n%s\n%s", code, indent(stdout), indent(stderr))
	}
	wantDiff := `--- ` + specPath + `
+++ ` + specPath + `
@@ -12,7 +12,7 @@
         stdin: "aaabcc\n"
         expect:
           exit_code: 0
-          stdout: {equals: "3a1b2c\n"}
+          stdout: {equals: "a3b1c2\n"}
       - {name: empty, stdin: "", expect: {exit_code: 0, stdout: {equals: "\n"}}}
       # the usage goes to stderr
       - name: usage
`
	if stdout != wantDiff {
		t.Errorf("record --update printed:\n%s\nwant:\n%s", stdout, wantDiff)
	}
	if !strings.Contains(stderr, "1 expectation updated") {
		t.Errorf("record --update's summary:\n%s", indent(stderr))
	}
	if got, want := read(t, specPath), strings.Replace(want, `"3a1b2c\n"`, `"a3b1c2\n"`, 1); got != want {
		t.Errorf("the spec after --update:\n%s\nwant:\n%s", got, want)
	}
	if code, _, stderr, _ := runIn(t, specPath); code != 0 {
		t.Errorf("run after record --update: exit %d, want 0\n%s", code, indent(stderr))
	}
	code, stdout, stderr = recordIn(t, "", specPath)
	if code != 0 || stdout != "" || !strings.Contains(stderr, "nothing to write") || strings.Contains(stderr, "ran ") {
		t.Errorf("record with nothing to write: exit %d\n%s\n%s", code, indent(stdout), indent(stderr))
	}
}

// TestRecordRefusals: on the real daemon, what cannot stand for what a
// program does is not recorded, each named at its file and line (exit 1):
// a timeout, output cut at output_limit, output that is not UTF-8, and
// samples that disagree; the case beside them is recorded, and run then
// passes it.
func TestRecordRefusals(t *testing.T) {
	t.Parallel()
	img := testImages(t)
	dir := writeTree(t, map[string]string{
		"behaves.yml": fmt.Sprintf(`version: 1
profiles:
  sh: {image: "%s", command: [/bin/sh], timeout: 2s, output_limit: 1KiB}
programs:
  - name: p
    file: p.sh
    profile: sh
    cases:
      - {name: fine, args: [fine]}
      - {name: slow, args: [slow]}
      - {name: long, args: [long]}
      - {name: bytes, args: [bytes]}
  - {name: s, files: "samples/*.sh", profile: sh, cases: [{name: which}]}
`, img.busybox),
		"p.sh": `case "$1" in
fine) echo fine ;;
slow) sleep 60 ;;
long) yes | head -c 5000 ;;
bytes) printf '\377\n' ;;
esac
`,
		"samples/a.sh": "echo a\n",
		"samples/b.sh": "echo b\n",
	})
	specPath := filepath.Join(dir, "behaves.yml")
	code, _, stderr := recordIn(t, "", specPath)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, indent(stderr))
	}
	for _, w := range []string{
		specPath + `:10: case "slow": not recorded: it timed out`,
		specPath + `:11: case "long": not recorded: its stdout was cut at the profile's output_limit (1KiB kept of 5000B)`,
		specPath + `:12: case "bytes": not recorded: its stdout is not valid UTF-8`,
		specPath + `:13: case "which": not recorded: the samples of "s" disagree: s/b.sh wrote other stdout than s/a.sh (line 1: "b\n" against "a\n")`,
		"4 cases not recorded",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	got := read(t, specPath)
	if !strings.Contains(got, `{name: fine, args: [fine], expect: {exit_code: 0, stdout: {equals: "fine\n"}}}`) || strings.Count(got, "expect") != 1 {
		t.Errorf("the spec after record:\n%s", got)
	}
	if code, stdout, stderr, _ := runIn(t, specPath, "--program", "p"); code != 1 || !strings.Contains(stdout, "false  slow") || !strings.Contains(stdout, "cases: 3 true, 1 false") {
		t.Errorf("run: exit %d, want 1 (slow times out)\n%s\n%s", code, indent(stdout), indent(stderr))
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
