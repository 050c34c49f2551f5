package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/actionstest"
	"github.com/behaves-dev/behaves/internal/runner"
)

// recordMain runs the command line under the environment env (name →
// value) and returns what it did.
func recordMain(t *testing.T, newSandbox func(context.Context, string) (runner.Sandbox, io.Closer, error), env map[string]string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), args, Env{Stdout: &out, Stderr: &errOut, NewSandbox: newSandbox, Getenv: func(k string) string { return env[k] }})
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// noSandbox fails the test when a command asks for a sandbox.
func noSandbox(t *testing.T) func(context.Context, string) (runner.Sandbox, io.Closer, error) {
	return func(context.Context, string) (runner.Sandbox, io.Closer, error) {
		t.Error("a sandbox was asked for")
		return nil, nil, os.ErrInvalid
	}
}

// TestRecordRefusedUnderActions: under GitHub Actions, record refuses
// (exit 2, naming --force) before it loads or runs anything: recording
// from a pull request's code would accept whatever the pull request does.
// With --force it records, and what it prints quotes the program's
// output inertly: escaped, inside a stop-commands region.
func TestRecordRefusedUnderActions(t *testing.T) {
	t.Parallel()
	spec := shSpec(t, `[{name: a}]`)
	before, _ := os.ReadFile(spec)
	actions := map[string]string{"GITHUB_ACTIONS": "true"}
	r := recordMain(t, noSandbox(t), actions, "record", "--spec", spec)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "refused under GitHub Actions") || !strings.Contains(r.stderr, "--force") {
		t.Errorf("under Actions: exit %d, want %d naming --force\n%s", r.code, ExitUsage, r.stderr)
	}
	if after, _ := os.ReadFile(spec); !bytes.Equal(before, after) {
		t.Errorf("the spec changed:\n%s", after)
	}

	zero := 0
	out := "::error::forged\n\x1b[31mred\u202e\n"
	sb := &recordingSandbox{ev: runner.Event{ExitCode: &zero, Stdout: runner.Stream{Data: []byte(out), Bytes: int64(len(out))}, Duration: time.Millisecond}}
	r = recordMain(t, fixed(sb), actions, "record", "--spec", spec, "--force")
	if r.code != ExitTrue {
		t.Fatalf("--force: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	want := `{name: a, expect: {exit_code: 0, stdout: {equals: "::error::forged\n\x1b[31mred\u202e\n"}}}`
	if after, _ := os.ReadFile(spec); !strings.Contains(string(after), want) {
		t.Errorf("the spec after record --force:\n%s\nwant it to hold %s", after, want)
	}
	if !strings.Contains(r.stdout, "+  - {name: p, file: prog.sh, profile: sh, cases: [{name: a, expect:") || !strings.Contains(r.stdout, "::stop-commands::") {
		t.Errorf("the diff, in a stop-commands region:\n%s", r.stdout)
	}
	for _, log := range []string{r.stdout, r.stderr} {
		if err := actionstest.CheckInert(log); err != nil || strings.ContainsAny(log, "\x1b\u202e") {
			t.Errorf("not inert (%v):\n%q", err, log)
		}
	}
}

// TestRecordExitCodes: 0 when everything asked for was written (and when
// nothing needed writing, without running anything), 1 when a case could
// not be recorded (named at its file and line), 2 for a usage error or a
// pattern that names no program.
func TestRecordExitCodes(t *testing.T) {
	t.Parallel()
	spec := shSpec(t, `[{name: a}, {name: b, expect: {exit_code: 1}}]`)
	code := 3
	slow := &recordingSandbox{ev: runner.Event{ExitCode: &code, TimedOut: true, Duration: time.Millisecond}}
	r := recordMain(t, fixed(slow), nil, "record", "--spec", spec)
	if r.code != ExitFalse || !strings.Contains(r.stderr, spec+`:5: case "a": not recorded: it timed out`) || !strings.Contains(r.stderr, "1 case not recorded") {
		t.Errorf("a timeout: exit %d, want %d naming the case\n%s", r.code, ExitFalse, r.stderr)
	}
	r = recordMain(t, fixed(&recordingSandbox{ev: runner.Event{ExitCode: &code, Duration: time.Millisecond}}), nil, "record", "--spec", spec)
	if r.code != ExitTrue || !strings.Contains(r.stderr, "wrote "+spec+": 1 case recorded") || !strings.Contains(r.stderr, "1 case is false against its expectation") {
		t.Errorf("recorded: exit %d\n%s", r.code, r.stderr)
	}
	r = recordMain(t, noSandbox(t), nil, "record", "--spec", spec)
	if r.code != ExitTrue || !strings.Contains(r.stderr, "nothing to write") || r.stdout != "" {
		t.Errorf("nothing to record: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	before, _ := os.ReadFile(spec)
	unreachable := func(context.Context, string) (runner.Sandbox, io.Closer, error) {
		return nil, nil, errors.New("cannot connect to the Docker daemon")
	}
	r = recordMain(t, unreachable, nil, "record", "--spec", spec, "--update")
	if after, _ := os.ReadFile(spec); r.code != ExitRunFailed || !strings.Contains(r.stderr, "nothing was written") || !bytes.Equal(before, after) {
		t.Errorf("no sandbox: exit %d, want %d, spec unchanged\n%s", r.code, ExitRunFailed, r.stderr)
	}
	r = recordMain(t, noSandbox(t), nil, "record", "--spec", spec, "--program", "q")
	if r.code != ExitUsage || !strings.Contains(r.stderr, `--program "q" names no program`) {
		t.Errorf("--program q: exit %d\n%s", r.code, r.stderr)
	}
	r = recordMain(t, noSandbox(t), nil, "record", "--spec", spec, "extra")
	if r.code != ExitUsage || !strings.Contains(r.stderr, `unexpected argument "extra"`) {
		t.Errorf("an argument: exit %d\n%s", r.code, r.stderr)
	}
	r = recordMain(t, noSandbox(t), nil, "record", "--help")
	if r.code != ExitTrue || !strings.Contains(r.stdout, "usage: behaves record") || !strings.Contains(r.stdout, "exit codes: 0 everything asked for was written") || !strings.Contains(r.stdout, "-update") {
		t.Errorf("--help: exit %d\n%s", r.code, r.stdout)
	}
}
