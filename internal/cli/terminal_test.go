package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/runner"
)

// The terminal's flags through `behaves run`: colour only on a terminal
// without NO_COLOR (or when asked for), passing checks only with -v, a
// --color it does not know refused, and the files it wrote named.
func TestRunTerminalFlags(t *testing.T) {
	t.Parallel()
	files := fakeSpec(1, 0)
	files["behaves.yml"] = strings.Replace(files["behaves.yml"], "cases: [", `cases: [{name: fails, expect: {stdout: {contains: out}}}, `, 1)
	path := writeSpec(t, files)
	one := 1
	sb := &recordingSandbox{ev: runner.Event{ExitCode: &one, Stdout: runner.Stream{Data: []byte("out\n"), Bytes: 4}, Duration: time.Millisecond}}
	run := func(tty bool, vars map[string]string, args ...string) result {
		t.Helper()
		dir := t.TempDir()
		var out, errOut bytes.Buffer
		args = append([]string{"run", "--spec", path, "--report", filepath.Join(dir, "r.json"), "--junit", filepath.Join(dir, "j.xml"), "--html", filepath.Join(dir, "p.html")}, args...)
		code := Main(context.Background(), args, Env{Stdout: &out, Stderr: &errOut, NewSandbox: fixed(sb), StdoutTerminal: tty,
			Getenv: func(k string) string { return vars[k] }})
		return result{code: code, stdout: out.String(), stderr: errOut.String()}
	}
	const red = "\x1b[31mfalse\x1b[0m"
	for _, tt := range []struct {
		name  string
		tty   bool
		vars  map[string]string
		args  []string
		color bool
	}{
		{"auto, a terminal", true, nil, nil, true},
		{"auto, redirected", false, nil, nil, false},
		{"auto, NO_COLOR", true, map[string]string{"NO_COLOR": "1"}, nil, false},
		{"never, a terminal", true, nil, []string{"--color", "never"}, false},
		{"always, redirected, NO_COLOR", false, map[string]string{"NO_COLOR": "1"}, []string{"--color=always"}, true},
	} {
		r := run(tt.tty, tt.vars, tt.args...)
		if r.code != ExitFalse {
			t.Fatalf("%s: exit %d, want %d\n%s", tt.name, r.code, ExitFalse, r.stderr)
		}
		if got := strings.Contains(r.stdout, red); got != tt.color {
			t.Errorf("%s: coloured %v, want %v:\n%q", tt.name, got, tt.color, r.stdout)
		}
		if !tt.color && strings.Contains(r.stdout, "\x1b") {
			t.Errorf("%s: an escape in uncoloured output:\n%q", tt.name, r.stdout)
		}
		if !strings.Contains(r.stdout, "behaves: wrote the report to ") || !strings.Contains(r.stdout, "r.json, JUnit XML to ") || !strings.Contains(r.stdout, "j.xml, the HTML page to ") {
			t.Errorf("%s: does not say where it wrote the report, the JUnit file and the page:\n%s", tt.name, r.stdout)
		}
		if strings.Contains(r.stdout, "→ true") {
			t.Errorf("%s: a passing check shown without -v:\n%s", tt.name, r.stdout)
		}
	}
	if r := run(false, nil, "-v"); !strings.Contains(r.stdout, "exit code: expected 0, got 1 → false\n") || !strings.Contains(r.stdout, "stdout (contains, normalize trailing) → true") {
		t.Errorf("-v does not show the passing checks:\n%s", r.stdout)
	}
	if r := run(false, nil, "--color", "sometimes"); r.code != ExitUsage || !strings.Contains(r.stderr, `--color "sometimes": want auto, always or never`) {
		t.Errorf("--color sometimes: exit %d, stderr %q", r.code, r.stderr)
	}
}
