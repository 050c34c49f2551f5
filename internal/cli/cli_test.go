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
	"sync"
	"testing"

	"github.com/behaves-dev/behaves/internal/gittest"
	"github.com/behaves-dev/behaves/internal/runner"
)

// testImage is a syntactically pinned image ID for specs that never reach Docker.
const testImage = "sha256:1111111111111111111111111111111111111111111111111111111111111111"

// writeSpec writes files (path → content) into a fresh folder and returns the
// spec's path ("behaves.yml" must be among them).
func writeSpec(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "behaves.yml")
}

// shSpec writes a spec of one shell program (prog.sh) with the given cases
// (a YAML flow list) and returns its path.
func shSpec(t *testing.T, cases string) string {
	t.Helper()
	return writeSpec(t, map[string]string{
		"behaves.yml": `version: 1
profiles:
  sh: {image: "` + testImage + `", command: ["/bin/sh"]}
programs:
  - {name: p, file: prog.sh, profile: sh, cases: ` + cases + `}
`,
		"prog.sh": "true\n",
	})
}

type result struct {
	code           int
	stdout, stderr string
	report         map[string]any
}

// runMain runs the command line with a sandbox factory and returns what it did.
func runMain(t *testing.T, ctx context.Context, newSandbox func(context.Context, string) (runner.Sandbox, io.Closer, error), args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(ctx, args, Env{Stdout: &out, Stderr: &errOut, NewSandbox: newSandbox})
	r := result{code: code, stdout: out.String(), stderr: errOut.String()}
	for i, a := range args {
		if a == "--report" && i+1 < len(args) {
			b, err := os.ReadFile(args[i+1])
			if err == nil {
				if err := json.Unmarshal(b, &r.report); err != nil {
					t.Fatalf("report is not JSON: %v", err)
				}
			}
		}
	}
	return r
}

// recordingSandbox records everything that crosses the Sandbox interface and
// answers every invocation with a fixed event.
type recordingSandbox struct {
	mu   sync.Mutex
	seen []string
	ev   runner.Event
}

func (r *recordingSandbox) Prepare(ctx context.Context, batch []runner.Request) []runner.Prepared {
	out := make([]runner.Prepared, len(batch))
	for i, req := range batch {
		r.record(req.Program, req.Profile)
		out[i].Attempt = recordingAttempt{r}
	}
	return out
}

func (r *recordingSandbox) record(vs ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range vs {
		r.seen = append(r.seen, fmt.Sprintf("%#v", v))
		if p, ok := v.(runner.Program); ok {
			for name, b := range p.Files {
				r.seen = append(r.seen, name, string(b))
			}
		}
		if inv, ok := v.(runner.Invocation); ok {
			r.seen = append(r.seen, string(inv.Stdin))
		}
	}
}

type recordingAttempt struct{ r *recordingSandbox }

func (a recordingAttempt) Settings() runner.Settings { return runner.Settings{} }
func (a recordingAttempt) Run(ctx context.Context, inv runner.Invocation) (runner.Event, error) {
	a.r.record(inv)
	return a.r.ev, nil
}
func (a recordingAttempt) Close(ctx context.Context) error { return nil }

func fixed(sb runner.Sandbox) func(context.Context, string) (runner.Sandbox, io.Closer, error) {
	return func(context.Context, string) (runner.Sandbox, io.Closer, error) { return sb, io.NopCloser(nil), nil }
}

// The split between stimuli and expectations: whatever the spec expects never
// reaches the sandbox, while the stimuli do.
func TestNoExpectedValueReachesTheSandbox(t *testing.T) {
	t.Parallel()
	path := writeSpec(t, map[string]string{
		"behaves.yml": `version: 1
profiles:
  sh: {image: "` + testImage + `", command: ["/bin/sh"]}
programs:
  - name: p
    file: prog.sh
    profile: sh
    cases:
      - name: c1
        args: ["ARG-STIMULUS"]
        stdin: "STDIN-STIMULUS"
        expect:
          exit_code: 173
          stdout: {equals: "EXPECTED-STDOUT-EQUALS"}
          stderr: {contains: "EXPECTED-STDERR-CONTAINS"}
      - name: c2
        expect:
          stdout: {regex: "EXPECTED-REGEX-[0-9]+"}
`,
		"prog.sh": "echo PROGRAM-TEXT\n",
	})
	sb := &recordingSandbox{}
	report := filepath.Join(t.TempDir(), "r.json")
	r := runMain(t, context.Background(), fixed(sb), "run", "--spec", path, "--report", report)
	if r.code != ExitUndetermined {
		t.Fatalf("exit code %d, want %d (events without an exit code are undetermined)\nstderr: %s", r.code, ExitUndetermined, r.stderr)
	}
	all := strings.Join(sb.seen, "\n")
	for _, stimulus := range []string{"ARG-STIMULUS", "STDIN-STIMULUS", "PROGRAM-TEXT", "/bin/sh"} {
		if !strings.Contains(all, stimulus) {
			t.Errorf("the sandbox never saw the stimulus %q", stimulus)
		}
	}
	for _, expected := range []string{"EXPECTED-STDOUT-EQUALS", "EXPECTED-STDERR-CONTAINS", "EXPECTED-REGEX", "173"} {
		if strings.Contains(all, expected) {
			t.Errorf("the expected value %q reached the sandbox:\n%s", expected, all)
		}
	}
}

func TestSandboxUnavailableStillWritesTheReportAndExits4(t *testing.T) {
	t.Parallel()
	path := shSpec(t, `[{name: c1}, {name: c2}]`)
	unreachable := func(context.Context, string) (runner.Sandbox, io.Closer, error) {
		return nil, nil, errors.New("Cannot connect to the Docker daemon at unix:///var/run/docker.sock")
	}
	report := filepath.Join(t.TempDir(), "r.json")
	for _, failOn := range []string{"false", "undetermined"} {
		r := runMain(t, context.Background(), unreachable, "run", "--spec", path, "--report", report, "--fail-on", failOn)
		if r.code != ExitRunFailed {
			t.Errorf("--fail-on %s: exit code %d, want %d", failOn, r.code, ExitRunFailed)
		}
		if r.report == nil {
			t.Fatalf("no report written")
		}
		if r.report["verdict"] != "undetermined" || !strings.Contains(fmt.Sprint(r.report["error"]), "Cannot connect") {
			t.Errorf("report verdict %v, error %v", r.report["verdict"], r.report["error"])
		}
		p := r.report["programs"].([]any)[0].(map[string]any)
		if p["verdict"] != "undetermined" || p["acquisition"] != "error" {
			t.Errorf("program verdict %v, acquisition %v; want undetermined, error", p["verdict"], p["acquisition"])
		}
		for _, c := range p["cases"].([]any) {
			c := c.(map[string]any)
			if c["verdict"] != "undetermined" || !strings.Contains(fmt.Sprint(c["reason"]), "Cannot connect") {
				t.Errorf("case %v: verdict %v reason %v", c["name"], c["verdict"], c["reason"])
			}
		}
	}
}

// losingSandbox runs its first invocation to exit 0, then loses the
// engine on the second (a runner.LostError from Run).
type losingSandbox struct {
	mu   sync.Mutex
	runs int
}

func (l *losingSandbox) Prepare(ctx context.Context, batch []runner.Request) []runner.Prepared {
	out := make([]runner.Prepared, len(batch))
	for i := range out {
		out[i].Attempt = losingAttempt{l}
	}
	return out
}

type losingAttempt struct{ l *losingSandbox }

func (a losingAttempt) Settings() runner.Settings { return runner.Settings{} }
func (a losingAttempt) Run(ctx context.Context, inv runner.Invocation) (runner.Event, error) {
	a.l.mu.Lock()
	defer a.l.mu.Unlock()
	a.l.runs++
	if a.l.runs == 1 {
		code := 0
		return runner.Event{ExitCode: &code}, nil
	}
	return runner.Event{SandboxError: "inspecting container: EOF"}, runner.Lost(errors.New("the Docker engine became unreachable (inspecting a container): EOF"))
}
func (a losingAttempt) Close(ctx context.Context) error { return nil }

// TestSandboxLostMidRunExits4: an engine lost after the start is a failed
// run like one never reached: exit 4 whatever --fail-on says (a gate must
// not pass a run where nothing more ran), the report's error says what
// happened, the case observed keeps its verdict, and the cases not observed
// are undetermined with the loss as their reason.
func TestSandboxLostMidRunExits4(t *testing.T) {
	t.Parallel()
	path := shSpec(t, `[{name: c1}, {name: c2}, {name: c3}, {name: c4}]`)
	for _, failOn := range []string{"false", "undetermined"} {
		report := filepath.Join(t.TempDir(), "r.json")
		sb := &losingSandbox{}
		r := runMain(t, context.Background(), fixed(sb), "run", "--spec", path, "--report", report, "--fail-on", failOn, "--parallel", "1")
		if r.code != ExitRunFailed {
			t.Errorf("--fail-on %s: exit code %d, want %d\n%s", failOn, r.code, ExitRunFailed, r.stderr)
		}
		if r.report == nil {
			t.Fatalf("no report written")
		}
		if r.report["verdict"] != "undetermined" || !strings.Contains(fmt.Sprint(r.report["error"]), "became unreachable") {
			t.Errorf("report verdict %v, error %v; want undetermined, the loss", r.report["verdict"], r.report["error"])
		}
		cases := r.report["programs"].([]any)[0].(map[string]any)["cases"].([]any)
		for i, c := range cases {
			c := c.(map[string]any)
			want, reason := "undetermined", "became unreachable"
			switch i {
			case 0:
				want, reason = "true", ""
			case 1:
				reason = "inspecting container: EOF"
			}
			if c["verdict"] != want || !strings.Contains(fmt.Sprint(c["reason"]), reason) {
				t.Errorf("case %v: verdict %v, reason %v; want %s, %q", c["name"], c["verdict"], c["reason"], want, reason)
			}
		}
		if sb.runs != 2 {
			t.Errorf("%d invocations ran, want 2: none after the loss", sb.runs)
		}
		if !strings.Contains(r.stderr, "the run failed") {
			t.Errorf("stderr does not say the run failed:\n%s", r.stderr)
		}
	}
}

func TestFailOn(t *testing.T) {
	t.Parallel()
	path := shSpec(t, `[{name: c1}]`)
	zero := 0
	for _, tc := range []struct {
		name   string
		ev     runner.Event
		failOn string
		want   int
	}{
		{"true", runner.Event{ExitCode: &zero}, "undetermined", ExitTrue},
		{"undetermined", runner.Event{SandboxError: "creating container: boom"}, "undetermined", ExitUndetermined},
		{"undetermined, fail on false", runner.Event{SandboxError: "creating container: boom"}, "false", ExitTrue},
		{"false", runner.Event{TimedOut: true}, "false", ExitFalse},
	} {
		report := filepath.Join(t.TempDir(), "r.json")
		r := runMain(t, context.Background(), fixed(&recordingSandbox{ev: tc.ev}), "run", "--spec", path, "--report", report, "--fail-on", tc.failOn)
		if r.code != tc.want {
			t.Errorf("%s: exit code %d, want %d\nstderr: %s", tc.name, r.code, tc.want, r.stderr)
		}
	}
}

func TestUsageAndSpecErrorsExit2(t *testing.T) {
	t.Parallel()
	bad := writeSpec(t, map[string]string{
		"behaves.yml": "version: 1\nprofiles: {}\nprograms: []\nbogus: 1\n",
	})
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"run", "--fail-on", "maybe"},
		{"run", "--parallel", "-1"},
		{"run", "--pass-at", "1,x"},
		{"run", "extra-arg"},
		{"run", "--spec", bad, "--report", filepath.Join(t.TempDir(), "r.json")},
		{"validate", "--spec", bad},
		{"validate", "--spec", filepath.Join(t.TempDir(), "missing.yml")},
	} {
		r := runMain(t, context.Background(), fixed(&recordingSandbox{}), args...)
		if r.code != ExitUsage {
			t.Errorf("%q: exit code %d, want %d", args, r.code, ExitUsage)
		}
		if r.stderr == "" {
			t.Errorf("%q: nothing on stderr says what is wrong", args)
		}
	}
	r := runMain(t, context.Background(), nil, "validate", "--spec", bad)
	if !strings.Contains(r.stderr, "behaves.yml:4:1") || !strings.Contains(r.stderr, "bogus") {
		t.Errorf("spec errors lack file:line:col or the key:\n%s", r.stderr)
	}
}

func TestValidateNeedsNoSandbox(t *testing.T) {
	t.Parallel()
	path := shSpec(t, `[{name: c1}, {name: c2}]`)
	r := runMain(t, context.Background(), nil, "validate", "--spec", path)
	if r.code != ExitTrue || !strings.Contains(r.stdout, "1 program, 2 cases") {
		t.Errorf("validate: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// --allow-untracked: a bad pattern is a usage error at flag parse; a good
// one admits untracked files under it, never a path through .git.
func TestAllowUntrackedFlag(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t)
	gittest.WriteFile(t, repo, "behaves.yml", `version: 1
profiles:
  sh: {image: "`+testImage+`", command: ["/bin/sh"]}
programs:
  - {name: gen, files: "gen/*.sh", profile: sh, cases: [{name: c, stdin_file: data/in.txt}]}
`)
	gittest.Commit(t, repo, "spec")
	gittest.WriteFile(t, repo, "gen/a.sh", "true\n")
	gittest.WriteFile(t, repo, "gen/b.sh", "true\n")
	gittest.WriteFile(t, repo, "data/in.txt", "in\n")
	spec := filepath.Join(repo, "behaves.yml")

	for _, bad := range []string{"/abs/**", ".git/**", "gen/**x", "gen/[", "", "../x"} {
		r := runMain(t, context.Background(), nil, "validate", "--spec", spec, "--allow-untracked", bad)
		if r.code != ExitUsage || !strings.Contains(r.stderr, "-allow-untracked") {
			t.Errorf("--allow-untracked %q: exit %d, stderr %q; want a usage error naming the flag", bad, r.code, r.stderr)
		}
	}

	r := runMain(t, context.Background(), nil, "validate", "--spec", spec)
	for _, want := range []string{`files match "gen/a.sh" is not a file git tracks`, `files match "gen/b.sh" is not a file git tracks`, `stdin_file "data/in.txt" is not a file git tracks`, "--allow-untracked"} {
		if r.code != ExitUsage || !strings.Contains(r.stderr, want) {
			t.Errorf("without the flag: exit %d, stderr lacks %q:\n%s", r.code, want, r.stderr)
		}
	}
	r = runMain(t, context.Background(), nil, "validate", "--spec", spec, "--allow-untracked", "gen/**")
	if r.code != ExitUsage || strings.Contains(r.stderr, "gen/a.sh") || !strings.Contains(r.stderr, `"data/in.txt" is not a file git tracks`) {
		t.Errorf("with gen/**: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	r = runMain(t, context.Background(), nil, "validate", "--spec", spec, "--allow-untracked", "gen/**", "--allow-untracked", "data/*.txt")
	if r.code != ExitTrue || !strings.Contains(r.stdout, "2 programs, 2 cases") {
		t.Errorf("with both globs: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// run takes the flag too, and the programs reach the sandbox.
	sb := &recordingSandbox{}
	r = runMain(t, context.Background(), fixed(sb), "run", "--spec", spec, "--report", filepath.Join(t.TempDir(), "r.json"), "--allow-untracked", "**")
	if r.code == ExitUsage {
		t.Errorf("run --allow-untracked '**': exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if len(sb.seen) == 0 {
		t.Error("run with --allow-untracked '**' never reached the sandbox")
	}
}

// TestReportBudget guards --max-report-size end to end: cases whose output
// does not fit are in the report without it (marked, with its size and
// digest), verdicts unchanged, the report stays near the budget, and the
// spool next to it is gone.
func TestReportBudget(t *testing.T) {
	t.Parallel()
	path := shSpec(t, `[{name: c1}, {name: c2}, {name: c3}, {name: c4}, {name: c5}, {name: c6}]`)
	zero := 0
	flood := bytes.Repeat([]byte{1}, 32<<10)
	sb := &recordingSandbox{ev: runner.Event{ExitCode: &zero,
		Stdout: runner.Stream{Data: flood, Bytes: int64(len(flood))},
		Stderr: runner.Stream{Data: flood, Bytes: int64(len(flood))}}}
	dir := t.TempDir()
	report := filepath.Join(dir, "r.json")
	r := runMain(t, context.Background(), fixed(sb), "run", "--spec", path, "--report", report, "--max-report-size", "200KiB")
	if r.code != ExitTrue {
		t.Fatalf("exit code %d, want %d\nstderr: %s", r.code, ExitTrue, r.stderr)
	}
	fi, err := os.Stat(report)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 200<<10+16<<10 {
		t.Errorf("report is %d bytes, over the budget of 200KiB and its header", fi.Size())
	}
	if n, _ := r.report["output_omitted_cases"].(float64); n < 3 || n > 5 {
		t.Errorf("output_omitted_cases = %v, want some but not all of 6 cases (each about 88KiB)", r.report["output_omitted_cases"])
	}
	for _, c := range r.report["programs"].([]any)[0].(map[string]any)["cases"].([]any) {
		c := c.(map[string]any)
		ev := c["event"].(map[string]any)
		if c["verdict"] != "true" || ev["stdout_kept_bytes"] != float64(32<<10) {
			t.Errorf("case %v: verdict %v, stdout_kept_bytes %v", c["name"], c["verdict"], ev["stdout_kept_bytes"])
		}
		if ev["stdout_omitted"] == false && ev["stdout_base64"] == "" {
			t.Errorf("case %v: output neither kept nor marked omitted", c["name"])
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the report's folder holds %d entries, want only the report (no spool left)", len(entries))
	}
}

// TestReportUnwritable guards exit 4 when the report cannot be written:
// found before anything runs.
func TestReportUnwritable(t *testing.T) {
	t.Parallel()
	path := shSpec(t, `[{name: c1}]`)
	sb := &recordingSandbox{}
	r := runMain(t, context.Background(), fixed(sb), "run", "--spec", path, "--report", filepath.Join(t.TempDir(), "missing", "r.json"))
	if r.code != ExitRunFailed || !strings.Contains(r.stderr, "writing the report") {
		t.Errorf("exit code %d, stderr %q; want %d and why", r.code, r.stderr, ExitRunFailed)
	}
	if len(sb.seen) != 0 {
		t.Errorf("the run went on without a place for its report")
	}
	r = runMain(t, context.Background(), fixed(sb), "run", "--spec", path, "--max-report-size", "0B")
	if r.code != ExitUsage {
		t.Errorf("--max-report-size 0B: exit code %d, want %d", r.code, ExitUsage)
	}
}

// TestMaxOutputLimitFlag guards --max-output-limit on run and validate: a
// profile above it (here the default output_limit, 64KiB) is a spec error
// naming both values, and nothing runs.
func TestMaxOutputLimitFlag(t *testing.T) {
	t.Parallel()
	path := shSpec(t, `[{name: c1}]`)
	for _, cmd := range []string{"validate", "run"} {
		sb := &recordingSandbox{}
		args := []string{cmd, "--spec", path, "--max-output-limit", "32KiB"}
		if cmd == "run" {
			args = append(args, "--report", filepath.Join(t.TempDir(), "r.json"))
		}
		r := runMain(t, context.Background(), fixed(sb), args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, "64KiB exceeds --max-output-limit 32KiB") {
			t.Errorf("%s: exit code %d, stderr %q; want %d naming both values", cmd, r.code, r.stderr, ExitUsage)
		}
		if len(sb.seen) != 0 {
			t.Errorf("%s: something ran", cmd)
		}
	}
}

// TestPublishAnnotationsOnlyUnderActions guards that behaves publish prints
// workflow-command annotations only where a runner reads them: under
// GITHUB_ACTIONS=true, or when --annotations says so.
func TestPublishAnnotationsOnlyUnderActions(t *testing.T) {
	t.Parallel()
	reportPath := filepath.Join(t.TempDir(), "r.json")
	spec := shSpec(t, `[{name: c1}]`)
	if r := runMain(t, context.Background(), fixed(&recordingSandbox{ev: runner.Event{TimedOut: true}}), "run", "--spec", spec, "--report", reportPath); r.code != ExitFalse {
		t.Fatalf("run: exit %d, want %d\n%s", r.code, ExitFalse, r.stderr)
	}
	for _, tt := range []struct {
		name    string
		actions bool
		flags   []string
		want    bool
	}{
		{"terminal", false, nil, false},
		{"terminal, --annotations", false, []string{"--annotations"}, true},
		{"actions", true, nil, true},
		{"actions, --annotations=false", true, []string{"--annotations=false"}, false},
	} {
		var out, errOut bytes.Buffer
		getenv := func(k string) string {
			if k == "GITHUB_ACTIONS" && tt.actions {
				return "true"
			}
			return ""
		}
		code := Main(context.Background(), append([]string{"publish", "--report", reportPath}, tt.flags...), Env{Stdout: &out, Stderr: &errOut, Getenv: getenv})
		if code != ExitFalse {
			t.Errorf("%s: exit %d, want %d\n%s%s", tt.name, code, ExitFalse, out.String(), errOut.String())
		}
		if got := strings.Contains(out.String(), "::error "); got != tt.want {
			t.Errorf("%s: annotations printed %v, want %v:\n%s", tt.name, got, tt.want, out.String())
		}
	}
}

func TestSchemaCommand(t *testing.T) {
	t.Parallel()
	r := runMain(t, context.Background(), nil, "schema")
	if r.code != ExitTrue {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "docs", "behaves.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.stdout != string(want) {
		t.Errorf("behaves schema does not print docs/behaves.schema.json")
	}
	r = runMain(t, context.Background(), nil, "schema", "--report")
	want, err = os.ReadFile(filepath.Join("..", "..", "docs", "behaves.report.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.code != ExitTrue || r.stdout != string(want) {
		t.Errorf("behaves schema --report: exit %d, and it does not print docs/behaves.report.schema.json", r.code)
	}
	if r := runMain(t, context.Background(), nil, "schema", "extra"); r.code != ExitUsage {
		t.Errorf("behaves schema extra: exit %d, want %d", r.code, ExitUsage)
	}
}

// TestBadFlagIsOneError: a flag that does not exist, or a bad value, prints
// the error and one line saying where the usage is, never the whole usage;
// --help still prints it.
func TestBadFlagIsOneError(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"run", "--bogus"},
		{"run", "--parallel", "x"},
		{"validate", "--bogus"},
		{"html", "--bogus"},
		{"merge", "--bogus"},
	} {
		r := runMain(t, context.Background(), fixed(&recordingSandbox{}), args...)
		if r.code != ExitUsage {
			t.Errorf("%q: exit %d, want %d", args, r.code, ExitUsage)
		}
		lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
		hint := fmt.Sprintf("behaves %s --help", args[0])
		if len(lines) != 2 || !strings.Contains(lines[0], strings.TrimLeft(args[1], "-")) || !strings.Contains(lines[1], hint) {
			t.Errorf("%q: stderr is not the error and a line naming %q:\n%s", args, hint, r.stderr)
		}
	}
	r := runMain(t, context.Background(), nil, "run", "--help")
	if !strings.Contains(r.stdout, "-junit") || !strings.Contains(r.stdout, "-html") || strings.Contains(r.stdout, "--help for") {
		t.Errorf("run --help does not print the flags:\n%s", r.stdout)
	}
}

// TestMissingSpecSaysWhich: validate and run name the spec they looked for
// and how to name another, in one line, and the report says the same.
func TestMissingSpecSaysWhich(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "behaves.yml")
	rpath := filepath.Join(t.TempDir(), "r.json")
	for _, args := range [][]string{
		{"validate", "--spec", missing},
		{"run", "--spec", missing, "--report", rpath},
	} {
		r := runMain(t, context.Background(), fixed(&recordingSandbox{}), args...)
		want := "behaves: no spec at " + missing + ": the file does not exist; write it, or name another with --spec FILE"
		if r.code != ExitUsage || !strings.HasPrefix(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant one line starting %q", args, r.code, r.stderr, want)
		}
		if args[0] == "run" && !strings.Contains(fmt.Sprint(r.report["error"]), "no spec at "+missing) {
			t.Errorf("the report's error %q does not name the spec", r.report["error"])
		}
	}
}
