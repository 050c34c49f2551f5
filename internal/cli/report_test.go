package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/actionstest"
	"github.com/behaves-dev/behaves/internal/reportschema/schematest"
	"github.com/behaves-dev/behaves/internal/run"
	"github.com/behaves-dev/behaves/internal/runner"
)

// mainEnv runs the command line with the given environment variables as
// behaves' own (nothing is read from the test process).
func mainEnv(t *testing.T, vars map[string]string, newSandbox func(context.Context, string) (runner.Sandbox, io.Closer, error), args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), args, Env{Stdout: &out, Stderr: &errOut, NewSandbox: newSandbox,
		Getenv: func(k string) string { return vars[k] }})
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// readReport reads a report file as generic JSON.
func readReport(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the report: %v", err)
	}
	var r map[string]any
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("the report is not JSON: %v\n%s", err, b)
	}
	schematest.Check(t, path, b)
	return r
}

// plantReport writes what a pull request could commit at the report path: a
// passing report.
func plantReport(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "behaves-report.json")
	if err := os.WriteFile(path, []byte(`{"schema":"behaves.report/v1","verdict":"true","error":"","programs":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A spec error replaces whatever was at the report path with a report that
// says so, holding every problem with its position: a planted passing
// report must never survive a broken spec.
func TestSpecErrorReplacesAPlantedReport(t *testing.T) {
	t.Parallel()
	bad := writeSpec(t, map[string]string{
		"behaves.yml": "version: 1\nprofiles: {}\nprograms: []\nbogus: 1\n",
	})
	path := plantReport(t)
	r := runMain(t, context.Background(), fixed(&recordingSandbox{}), "run", "--spec", bad, "--report", path)
	if r.code != ExitUsage {
		t.Fatalf("exit %d, want %d\n%s", r.code, ExitUsage, r.stderr)
	}
	rep := readReport(t, path)
	if rep["verdict"] != "undetermined" || !strings.Contains(fmt.Sprint(rep["error"]), "problems; nothing ran") {
		t.Errorf("report verdict %v, error %q; want undetermined and the spec error", rep["verdict"], rep["error"])
	}
	errs, _ := rep["spec_errors"].([]any)
	found := false
	for _, e := range errs {
		e := e.(map[string]any)
		if e["line"] == 4.0 && e["col"] == 1.0 && strings.Contains(fmt.Sprint(e["message"]), `"bogus"`) && e["file"] == bad {
			found = true
		}
	}
	if len(errs) == 0 || !found {
		t.Errorf("spec_errors %v lack the bogus key at %s:4:1", errs, bad)
	}
	if progs, _ := rep["programs"].([]any); progs == nil || len(progs) != 0 {
		t.Errorf("programs %v, want []", rep["programs"])
	}
}

// An unreadable spec is reported the same way.
func TestMissingSpecReplacesAPlantedReport(t *testing.T) {
	t.Parallel()
	path := plantReport(t)
	r := runMain(t, context.Background(), fixed(&recordingSandbox{}), "run", "--spec", filepath.Join(t.TempDir(), "missing.yml"), "--report", path)
	rep := readReport(t, path)
	if r.code != ExitUsage || rep["verdict"] != "undetermined" || !strings.Contains(fmt.Sprint(rep["error"]), "could not be read") {
		t.Errorf("exit %d, verdict %v, error %q", r.code, rep["verdict"], rep["error"])
	}
}

// notFinishedProbe is a sandbox factory that reads the report at path
// while the run is under way (what a crash at that moment would leave) and
// then reports the engine unreachable.
func notFinishedProbe(t *testing.T, path string, seen *map[string]any) func(context.Context, string) (runner.Sandbox, io.Closer, error) {
	return func(context.Context, string) (runner.Sandbox, io.Closer, error) {
		*seen = readReport(t, path)
		return nil, nil, fmt.Errorf("probe: no engine")
	}
}

// From before the spec is read until the final report replaces it, the
// report path holds a report that says the run did not finish: a crash
// leaves that, never the planted one.
func TestReportSaysNotFinishedWhileRunning(t *testing.T) {
	t.Parallel()
	spec := shSpec(t, `[{name: c1}]`)
	path := plantReport(t)
	var during map[string]any
	r := runMain(t, context.Background(), notFinishedProbe(t, path, &during), "run", "--spec", spec, "--report", path)
	if r.code != ExitRunFailed {
		t.Fatalf("exit %d, want %d", r.code, ExitRunFailed)
	}
	if during["verdict"] != "undetermined" || during["error"] != run.ErrNotFinished.Error() || during["run_id"] == "" {
		t.Errorf("during the run the report says verdict %v, error %q, run_id %v; want undetermined, %q and the run", during["verdict"], during["error"], during["run_id"], run.ErrNotFinished)
	}
	after := readReport(t, path)
	if after["run_id"] != during["run_id"] || !strings.Contains(fmt.Sprint(after["error"]), "probe: no engine") {
		t.Errorf("the final report (run %v, error %q) did not replace the one written at the start (run %v)", after["run_id"], after["error"], during["run_id"])
	}
}

// Under GitHub Actions the report records the run it came from, with the
// head commit of a pull_request event taken from the event payload.
func TestReportRecordsTheGitHubRun(t *testing.T) {
	t.Parallel()
	const head, merge = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	event := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(event, []byte(`{"action":"synchronize","pull_request":{"number":7,"head":{"sha":"`+head+`"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "987", "GITHUB_RUN_ATTEMPT": "2",
		"GITHUB_REPOSITORY": "o/r", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_SHA": merge, "GITHUB_EVENT_PATH": event}
	path := filepath.Join(t.TempDir(), "r.json")
	mainEnv(t, vars, fixed(&recordingSandbox{}), "run", "--spec", shSpec(t, `[{name: c1}]`), "--report", path)
	gh, _ := readReport(t, path)["github"].(map[string]any)
	want := map[string]any{"run_id": "987", "run_attempt": "2", "repository": "o/r", "event_name": "pull_request", "sha": merge, "head_sha": head}
	if fmt.Sprint(gh) != fmt.Sprint(want) {
		t.Errorf("github %v, want %v", gh, want)
	}

	// Outside Actions every field is there, and empty.
	mainEnv(t, nil, fixed(&recordingSandbox{}), "run", "--spec", shSpec(t, `[{name: c1}]`), "--report", path)
	gh, _ = readReport(t, path)["github"].(map[string]any)
	if len(gh) != 6 || gh["run_id"] != "" || gh["head_sha"] != "" {
		t.Errorf("outside Actions: github %v, want six empty fields", gh)
	}
}

func TestEventHeadSHA(t *testing.T) {
	t.Parallel()
	const sha = "3333333333333333333333333333333333333333"
	dir := t.TempDir()
	for _, tc := range []struct {
		name, payload, want string
		fails               bool
	}{
		{"pull request", `{"pull_request":{"head":{"sha":"` + sha + `"}}}`, sha, false},
		{"workflow run", `{"workflow_run":{"head_sha":"` + sha + `"}}`, sha, false},
		{"push", `{"after":"` + sha + `"}`, "", false},
		{"forged head", `{"pull_request":{"head":{"sha":"::error::x"}}}`, "", true},
		{"not JSON", `{"pull_request":`, "", true},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
		if err := os.WriteFile(path, []byte(tc.payload), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := eventHeadSHA(path)
		if got != tc.want || (err != nil) != tc.fails {
			t.Errorf("%s: %q, %v; want %q (error: %v)", tc.name, got, err, tc.want, tc.fails)
		}
	}
}

// Spec text is printed like program output: under GitHub Actions nothing a
// spec says, in a key, a name or a value, becomes a workflow command, with
// run and with validate.
func TestSpecTextCannotForgeWorkflowCommands(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, map[string]string{"behaves.yml": `version: 1
"##[error]key": 1
"::add-mask::key": 2
profiles:
  "::error::p": {image: "##[error]image", command: [sh]}
  ok: {image: "` + testImage + `", command: [sh], "::add-mask::k": 1}
programs:
  - name: "##[warning]name"
    file: "::error::file"
    profile: "##[error]profile"
    cases: [{name: "::notice::case", expect: {stdout: {regex: "##[error]("}}}]
  - name: "x\r::error::after a carriage return"
    file: "a\u2028::error::after a line separator"
    profile: ok
    cases: [{name: c}]
`})
	vars := map[string]string{"GITHUB_ACTIONS": "true"}
	for _, args := range [][]string{
		{"run", "--spec", spec, "--report", filepath.Join(t.TempDir(), "r.json")},
		{"validate", "--spec", spec},
	} {
		r := mainEnv(t, vars, fixed(&recordingSandbox{}), args...)
		if r.code != ExitUsage {
			t.Fatalf("%s: exit %d, want %d\n%s", args[0], r.code, ExitUsage, r.stderr)
		}
		// The forged text is there (else the check below proves nothing) ...
		for _, s := range []string{"##[error]key", "::add-mask::key", "::error::p", "##[error]profile", "::add-mask::k", "::error::after a carriage return"} {
			if !strings.Contains(r.stderr, s) {
				t.Errorf("%s: the spec error output lacks %q; the check below would prove nothing:\n%s", args[0], s, r.stderr)
			}
		}
		// ... and the runner would act on none of it.
		for name, log := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
			if err := actionstest.CheckInert(log); err != nil {
				t.Errorf("%s: %v in %s:\n%s", args[0], err, name, log)
			}
		}
	}
	// Outside Actions there is no region, and the text is still escaped
	// to one line per problem.
	r := mainEnv(t, nil, nil, "validate", "--spec", spec)
	if strings.Contains(r.stderr, "stop-commands") || strings.ContainsAny(r.stderr, "\r\u2028") {
		t.Errorf("outside Actions: stderr holds a region or a raw line break:\n%q", r.stderr)
	}
}

// cpuSandbox is a recording sandbox whose engine has n CPUs (or cannot say).
type cpuSandbox struct {
	recordingSandbox
	n   int
	err error
}

func (s *cpuSandbox) CPUs(context.Context) (int, error) { return s.n, s.err }

// cpus above what the engine has is a spec error found once, before any
// container, naming both values and the cpus value's position; an engine
// that cannot say fails the run.
func TestCPUsAboveTheEngineIsASpecError(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, map[string]string{
		"behaves.yml": `version: 1
profiles:
  sh: {image: "` + testImage + `", command: ["/bin/sh"], cpus: 3}
programs:
  - {name: p, file: prog.sh, profile: sh, cases: [{name: c}]}
`,
		"prog.sh": "true\n",
	})
	path := filepath.Join(t.TempDir(), "r.json")
	sb := &cpuSandbox{n: 2}
	r := runMain(t, context.Background(), fixed(sb), "run", "--spec", spec, "--report", path)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "behaves.yml:3:118: cpus 3 in profile \"sh\" exceeds the 2 CPUs") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if len(sb.seen) != 0 {
		t.Errorf("the sandbox was asked to run something: %v", sb.seen)
	}
	if errs, _ := readReport(t, path)["spec_errors"].([]any); len(errs) != 1 {
		t.Errorf("spec_errors %v, want the cpus error", errs)
	}

	for _, tc := range []struct {
		sb   *cpuSandbox
		want int
	}{
		{&cpuSandbox{n: 3}, ExitTrue}, // exactly the engine's count runs (undetermined events, --fail-on false)
		{&cpuSandbox{err: errors.New("asking the Docker engine for its CPU count: EOF")}, ExitRunFailed},
	} {
		r := runMain(t, context.Background(), fixed(tc.sb), "run", "--spec", spec, "--report", path, "--fail-on", "false")
		if r.code != tc.want {
			t.Errorf("engine with %d CPUs (error %v): exit %d, want %d\n%s", tc.sb.n, tc.sb.err, r.code, tc.want, r.stderr)
		}
	}
}

// --max-pids lowers the pids ceiling; the default already refuses a limit
// that is no limit.
func TestMaxPids(t *testing.T) {
	t.Parallel()
	spec := func(pids string) string {
		return writeSpec(t, map[string]string{
			"behaves.yml": "version: 1\nprofiles:\n  sh: {image: \"" + testImage + "\", command: [sh], pids: " + pids + "}\n" +
				"programs:\n  - {name: p, file: prog.sh, profile: sh, cases: [{name: c}]}\n",
			"prog.sh": "true\n",
		})
	}
	for _, tc := range []struct {
		pids string
		args []string
		want int
	}{
		{"4194304", nil, ExitUsage},
		{"1024", nil, ExitTrue},
		{"100", []string{"--max-pids", "99"}, ExitUsage},
		{"99", []string{"--max-pids", "99"}, ExitTrue},
	} {
		r := runMain(t, context.Background(), nil, append([]string{"validate", "--spec", spec(tc.pids)}, tc.args...)...)
		if r.code != tc.want || (tc.want == ExitUsage && !strings.Contains(r.stderr, "exceeds --max-pids")) {
			t.Errorf("pids %s %v: exit %d, want %d\n%s", tc.pids, tc.args, r.code, tc.want, r.stderr)
		}
	}
}
