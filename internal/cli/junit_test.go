package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gojunit "github.com/joshdk/go-junit"

	"github.com/behaves-dev/behaves/internal/gittest"
	"github.com/behaves-dev/behaves/internal/junit"
	"github.com/behaves-dev/behaves/internal/junit/junittest"
	"github.com/behaves-dev/behaves/internal/runner"
)

// hostileOut is program output XML cannot carry as it is.
const hostileOut = "out \x00\x01\x1b[31m\r\n]]> </testcase></testsuites> &#x1; \ufffe end\n"

// staleJUnit is a passing JUnit file left at the path (by an earlier run,
// or committed by a pull request).
const staleJUnit = `<testsuites><testsuite name="all good" tests="1"><testcase name="passes"/></testsuite></testsuites>`

func plantJUnit(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "junit.xml")
	if err := os.WriteFile(path, []byte(staleJUnit), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readJUnit(t *testing.T, path string) ([]byte, map[string]gojunit.Test) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]gojunit.Test{}
	for _, s := range junittest.Check(t, data) {
		for _, tc := range s.Tests {
			tests[s.Name+" / "+tc.Name] = tc
		}
	}
	return data, tests
}

func exitOneHostile() *recordingSandbox {
	one := 1
	return &recordingSandbox{ev: runner.Event{
		ExitCode: &one,
		Stdout:   runner.Stream{Data: []byte(hostileOut), Bytes: int64(len(hostileOut))},
		Stderr:   runner.Stream{Data: []byte("\xff\xfe not utf-8"), Bytes: 12},
		Duration: 7 * time.Millisecond,
	}}
}

// TestRunJUnit: run --junit writes one testcase per case from the report,
// replacing a stale file, with the output made safe.
func TestRunJUnit(t *testing.T) {
	t.Parallel()
	spec := shSpec(t, `[{name: passes, expect: {exit_code: 1}}, {name: fails}]`)
	dir := t.TempDir()
	rpath := filepath.Join(dir, "r.json")
	jpath := plantJUnit(t, dir)
	r := runMain(t, context.Background(), fixed(exitOneHostile()), "run", "--spec", spec, "--report", rpath, "--junit", jpath)
	if r.code != ExitFalse {
		t.Fatalf("exit %d, want %d\n%s", r.code, ExitFalse, r.stderr)
	}
	data, tests := readJUnit(t, jpath)
	if len(tests) != 2 || tests["p / passes"].Status != gojunit.StatusPassed || tests["p / fails"].Status != gojunit.StatusFailed {
		t.Fatalf("testcases %+v, want p / passes passed and p / fails failed", tests)
	}
	fails := tests["p / fails"]
	if fails.SystemOut != junit.Text(hostileOut) {
		t.Errorf("system-out %q, want %q", fails.SystemOut, junit.Text(hostileOut))
	}
	if !strings.Contains(fails.SystemErr, "not UTF-8") || !strings.HasPrefix(fails.Message, "exit code 1, expected 0") {
		t.Errorf("system-err %q, message %q", fails.SystemErr, fails.Message)
	}

	// behaves junit writes the same file from the same report.
	conv := filepath.Join(dir, "converted.xml")
	if r := runMain(t, context.Background(), nil, "junit", "--report", rpath, "-o", conv); r.code != ExitTrue {
		t.Fatalf("behaves junit: exit %d\n%s", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(conv); string(got) != string(data) {
		t.Errorf("behaves junit wrote another file than run --junit")
	}
	if r := runMain(t, context.Background(), nil, "junit", "--report", rpath); r.code != ExitTrue || r.stdout != string(data) {
		t.Errorf("behaves junit to stdout: exit %d, %d bytes", r.code, len(r.stdout))
	}
	// So does behaves publish --junit (outside Actions: nothing posted).
	pub := filepath.Join(dir, "published.xml")
	if r := runMain(t, context.Background(), nil, "publish", "--report", rpath, "--comment", "off", "--junit", pub); r.code != ExitFalse {
		t.Fatalf("behaves publish --junit: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got, _ := os.ReadFile(pub); string(got) != string(data) {
		t.Errorf("behaves publish --junit wrote another file than run --junit")
	}
}

// TestRunJUnitWhileRunning: from the start of a run its JUnit file says the
// run did not finish, so a stale passing file never stands for a crashed
// run; a run whose engine is unreachable ends with every case an error.
func TestRunJUnitWhileRunning(t *testing.T) {
	t.Parallel()
	spec := shSpec(t, `[{name: c1}]`)
	dir := t.TempDir()
	jpath := plantJUnit(t, dir)
	var during []byte
	probe := func(context.Context, string) (runner.Sandbox, io.Closer, error) {
		during, _ = os.ReadFile(jpath)
		return nil, nil, os.ErrNotExist
	}
	r := runMain(t, context.Background(), probe, "run", "--spec", spec, "--report", filepath.Join(dir, "r.json"), "--junit", jpath)
	if r.code != ExitRunFailed {
		t.Fatalf("exit %d, want %d", r.code, ExitRunFailed)
	}
	for _, tc := range junitTests(t, during) {
		if tc.Status != gojunit.StatusError || !strings.Contains(tc.Message, "the run did not finish") {
			t.Errorf("during the run: %+v, want an error saying the run did not finish", tc)
		}
	}
	_, tests := readJUnit(t, jpath)
	if tests["behaves / run"].Status != gojunit.StatusError || tests["p / c1"].Status != gojunit.StatusError {
		t.Errorf("after a run without an engine: %+v, want the run and the case as errors", tests)
	}
}

func junitTests(t *testing.T, data []byte) []gojunit.Test {
	t.Helper()
	var out []gojunit.Test
	for _, s := range junittest.Check(t, data) {
		out = append(out, s.Tests...)
	}
	if len(out) == 0 {
		t.Fatalf("no testcase in %s", data)
	}
	return out
}

// TestRunJUnitSpecError: a spec with errors is an error testcase naming
// each problem, never an empty suite.
func TestRunJUnitSpecError(t *testing.T) {
	t.Parallel()
	bad := writeSpec(t, map[string]string{"behaves.yml": "version: 1\nprofiles: {}\nprograms: []\nbogus: 1\n"})
	dir := t.TempDir()
	jpath := plantJUnit(t, dir)
	r := runMain(t, context.Background(), fixed(&recordingSandbox{}), "run", "--spec", bad, "--report", filepath.Join(dir, "r.json"), "--junit", jpath)
	if r.code != ExitUsage {
		t.Fatalf("exit %d, want %d", r.code, ExitUsage)
	}
	tests := junitTests(t, mustRead(t, jpath))
	if len(tests) != 1 || tests[0].Status != gojunit.StatusError || !strings.Contains(tests[0].Error.Error(), `unknown key "bogus"`) {
		t.Errorf("testcases %+v, want one error naming the unknown key", tests)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestJUnitCommandRefusesBadReports: behaves junit checks the report as
// publish does and writes nothing from one that fails.
func TestJUnitCommandRefusesBadReports(t *testing.T) {
	t.Parallel()
	spec := shSpec(t, `[{name: fails}]`)
	dir := t.TempDir()
	rpath := filepath.Join(dir, "r.json")
	if r := runMain(t, context.Background(), fixed(exitOneHostile()), "run", "--spec", spec, "--report", rpath); r.code != ExitFalse {
		t.Fatalf("run: exit %d", r.code)
	}
	forged := filepath.Join(dir, "forged.json")
	gittest.WriteFile(t, dir, "forged.json", strings.ReplaceAll(string(mustRead(t, rpath)), `"verdict": "false"`, `"verdict": "true"`))
	for _, tc := range []struct{ name, path string }{{"forged", forged}, {"missing", filepath.Join(dir, "none.json")}} {
		out := filepath.Join(dir, tc.name+".xml")
		r := runMain(t, context.Background(), nil, "junit", "--report", tc.path, "-o", out)
		if r.code != ExitRunFailed || !strings.Contains(r.stderr, "behaves junit: reading report") {
			t.Errorf("%s: exit %d, stderr %q", tc.name, r.code, r.stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: a JUnit file was written", tc.name)
		}
	}
	if r := runMain(t, context.Background(), nil, "junit", "extra"); r.code != ExitUsage {
		t.Errorf("junit extra: exit %d, want %d", r.code, ExitUsage)
	}
}

// TestActionJUnitInput: the junit input writes the file in the workspace,
// under command run and under command publish; a report publish refuses
// removes a stale file instead.
func TestActionJUnitInput(t *testing.T) {
	t.Parallel()
	ws := workspaceRepo(t, fakeSpec(1, 1))
	e := newEmulatedRunner(t, ws, "pull_request")
	plantJUnit(t, ws)
	r := e.main(t, exitOne(), map[string]string{"comment": "off", "junit": "junit.xml"}, "action")
	if r.code != ExitFalse {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	_, tests := readJUnit(t, filepath.Join(ws, "junit.xml"))
	if tests["gen / passes aa"].Status != gojunit.StatusPassed || tests["gen / fails aa"].Status != gojunit.StatusFailed {
		t.Errorf("testcases %+v", tests)
	}

	// The fork-safe publisher: its own run's report is converted.
	wf := newEmulatedRunner(t, ws, "workflow_run")
	pub := filepath.Join(ws, "published.xml")
	r = wf.main(t, Env{}, map[string]string{"command": "publish", "comment": "off", "junit": "published.xml"}, "action")
	if r.code != ExitFalse {
		t.Fatalf("publish: exit %d\n%s", r.code, r.stdout)
	}
	if _, tests := readJUnit(t, pub); len(tests) != 2 {
		t.Errorf("published JUnit: %+v", tests)
	}
	// A report of another run is refused, and the file goes.
	fork := newEmulatedRunner(t, ws, "workflow_run_fork")
	r = fork.main(t, Env{}, map[string]string{"command": "publish", "comment": "off", "junit": "published.xml"}, "action")
	if r.code != ExitRunFailed {
		t.Fatalf("publish of another run: exit %d\n%s", r.code, r.stdout)
	}
	if _, err := os.Stat(pub); !os.IsNotExist(err) {
		t.Errorf("the JUnit file of a refused report is still there: %v", err)
	}
}
