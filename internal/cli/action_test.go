package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/actionstest"
	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/ghpublish"
	"github.com/behaves-dev/behaves/internal/gittest"
	"github.com/behaves-dev/behaves/internal/goldentest"
	"github.com/behaves-dev/behaves/internal/publish"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
)

// The run the emulated runner runs in, as the recorded payloads name it
// (testdata/events: pull request 7 of octo/repo, head 1111…; the
// workflow_run payload is run 9000000001, attempt 1, of that head).
const (
	emuRunID   = "9000000001"
	emuHeadSHA = "1111111111111111111111111111111111111111"
)

// emulatedRunner is the environment and the files the Actions runner gives
// a container action's step: INPUT_* variables with their hyphens, the file
// commands (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_STATE, GITHUB_ENV),
// the event payload, and the API endpoints at a fake GitHub.
type emulatedRunner struct {
	ws    string
	files string
	vars  map[string]string
	gh    *fakeGitHub
}

// newEmulatedRunner emulates a step of a job triggered by event (a payload
// under testdata/events) in the workspace ws.
func newEmulatedRunner(t *testing.T, ws, event string) *emulatedRunner {
	t.Helper()
	e := &emulatedRunner{ws: ws, files: t.TempDir(), gh: newFakeGitHub(t)}
	payload, err := filepath.Abs(filepath.Join("testdata", "events", event+".json"))
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimSuffix(event, "_fork")
	e.vars = map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_WORKSPACE":    ws,
		"GITHUB_EVENT_NAME":   name,
		"GITHUB_EVENT_PATH":   payload,
		"GITHUB_API_URL":      e.gh.URL,
		"GITHUB_GRAPHQL_URL":  e.gh.URL + "/graphql",
		"GITHUB_SERVER_URL":   "https://github.test",
		"GITHUB_REPOSITORY":   "octo/repo",
		"GITHUB_RUN_ID":       emuRunID,
		"GITHUB_RUN_ATTEMPT":  "1",
		"GITHUB_SHA":          "3333333333333333333333333333333333333333",
		"INPUT_GITHUB-TOKEN":  ghToken,
		"GITHUB_OUTPUT":       filepath.Join(e.files, "set_output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(e.files, "step_summary"),
		"GITHUB_STATE":        filepath.Join(e.files, "save_state"),
		"GITHUB_ENV":          filepath.Join(e.files, "set_env"),
	}
	for _, f := range []string{"set_output", "step_summary", "save_state", "set_env"} {
		if err := os.WriteFile(filepath.Join(e.files, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// main runs behaves with the runner's environment and a fresh set of file
// commands (as the runner gives each step), plus inputs (name → value).
func (e *emulatedRunner) main(t *testing.T, env Env, inputs map[string]string, args ...string) result {
	t.Helper()
	for _, f := range []string{"set_output", "step_summary", "save_state", "set_env"} {
		if err := os.WriteFile(filepath.Join(e.files, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vars := map[string]string{}
	for k, v := range e.vars {
		vars[k] = v
	}
	for k, v := range inputs {
		vars[inputName(k)] = v
	}
	var out, errOut bytes.Buffer
	env.Stdout, env.Stderr = &out, &errOut
	env.Getenv = func(k string) string { return vars[k] }
	code := Main(context.Background(), args, env)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// file returns a file command's content.
func (e *emulatedRunner) file(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.files, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// workspaceRepo makes a git repository holding files, committed, as
// actions/checkout leaves the workspace.
func workspaceRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	ws := gittest.NewRepo(t)
	for name, content := range files {
		gittest.WriteFile(t, ws, name, content)
	}
	gittest.Commit(t, ws, "programs")
	return ws
}

// fakeSpec is a spec whose one program has n cases expecting exit 1 (true
// under exitOne) and m cases expecting exit 0 (false under it).
func fakeSpec(n, m int) map[string]string {
	var cases []string
	for i := range n {
		cases = append(cases, "{name: passes "+itoa(i)+", expect: {exit_code: 1}}")
	}
	for i := range m {
		cases = append(cases, "{name: fails "+itoa(i)+"}")
	}
	return map[string]string{
		"behaves.yml": `version: 1
profiles:
  sh: {image: "` + testImage + `", command: ["/bin/sh"]}
programs:
  - {name: gen, file: gen/prog.sh, profile: sh, cases: [` + strings.Join(cases, ", ") + `]}
`,
		"gen/prog.sh": "echo '::error::forged'\nexit 1\n",
	}
}

func itoa(i int) string { return string(rune('a'+i/26%26)) + string(rune('a'+i%26)) }

// exitOne is a sandbox whose every invocation exits 1 after printing a
// forged workflow command.
func exitOne() Env {
	one := 1
	sb := &recordingSandbox{ev: runner.Event{
		ExitCode: &one,
		Stdout:   runner.Stream{Data: []byte("::error::forged\n"), Bytes: 16},
		Duration: 7 * time.Millisecond,
	}}
	return Env{NewSandbox: fixed(sb)}
}

// stable replaces what changes from run to run in the markdown (the run ID
// and the run's wall time) with placeholders, for the golden files.
func stable(md string) []byte {
	md = regexp.MustCompile("run `[0-9a-f]{16}`").ReplaceAllString(md, "run `RUN-ID`")
	md = regexp.MustCompile(`(?m)^(Spec .* · )[0-9.]+[µm]?s$`).ReplaceAllString(md, "${1}TIME")
	return []byte(md)
}

// outputsPattern is the GITHUB_OUTPUT file publish writes, with the
// heredoc's random delimiter as a group.
func checkOutputs(t *testing.T, got, verdict, counts, reportPath string) {
	t.Helper()
	re := regexp.MustCompile(`^verdict=` + verdict + `\n` + counts + `report<<(behaves_[0-9a-f]{32})\n` + regexp.QuoteMeta(reportPath) + `\n(behaves_[0-9a-f]{32})\n$`)
	m := re.FindStringSubmatch(got)
	if m == nil || m[1] != m[2] {
		t.Errorf("GITHUB_OUTPUT =\n%s\nwant verdict=%s, %q and report %s", got, verdict, counts, reportPath)
	}
}

// commandsOf returns the workflow commands the runner would act on in log,
// other than behaves' stop-commands regions (checked inert by CheckInert).
func commandsOf(t *testing.T, log string) []string {
	t.Helper()
	tokens := map[string]bool{}
	var out []string
	for _, c := range actionstest.Commands(log) {
		switch {
		case c.Name == "stop-commands" && regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(c.Data):
			tokens[c.Data] = true // behaves' own region (terminal.NewToken)
		case tokens[c.Name]:
		default:
			out = append(out, c.Text)
		}
	}
	return out
}

// TestActionRunAndPublishUnderEmulatedRunner runs `behaves action` with a
// sandbox that gives every case the same evidence: outputs, the summary
// (golden), the annotation lines, the sticky comment created once then
// edited, and the exit code.
func TestActionRunAndPublishUnderEmulatedRunner(t *testing.T) {
	t.Parallel()
	ws := workspaceRepo(t, fakeSpec(1, 1))
	e := newEmulatedRunner(t, ws, "pull_request")
	// A look-alike: the spec's marker, written by someone else.
	marker := publish.Marker(report.Report{SpecFile: "behaves.yml"})
	lookAlike := ghComment{ID: 1, Login: "octocat", Body: marker + "\nall true!"}
	// Another workflow's comment, by the same bot, quoting the marker.
	quote := ghComment{ID: 2, Login: "github-actions[bot]", Body: "Another tool says:\n" + marker + "\nall true!"}
	e.gh.comments = []ghComment{lookAlike, quote}
	r := e.main(t, exitOne(), nil, "action")
	if r.code != ExitFalse {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, ExitFalse, r.stdout, r.stderr)
	}
	checkOutputs(t, e.file(t, "set_output"), "false", "total=1\ntrue=0\nfalse=1\nundetermined=0\n", "behaves-report.json")
	if !regexp.MustCompile(`^run-id=[0-9a-f]{16}\n$`).MatchString(e.file(t, "save_state")) {
		t.Errorf("GITHUB_STATE = %q, want run-id=<16 hex>", e.file(t, "save_state"))
	}
	if e.file(t, "set_env") != "" {
		t.Errorf("GITHUB_ENV was written: %q", e.file(t, "set_env"))
	}
	goldentest.Check(t, "action_summary.golden.md", stable(e.file(t, "step_summary")))

	// The annotations are the only commands, and exactly publish's.
	rep, err := reporttest.ReadFile(t, filepath.Join(ws, "behaves-report.json"), DefaultMaxReadReport)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := publish.WorkflowCommands(publish.Annotations(rep, publish.AnnotationOptions{LineCount: ghpublish.LineCounter(ws)}))
	if got := commandsOf(t, r.stdout+r.stderr); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("commands in the log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(want) != 2 || !strings.Contains(want[0], "file=gen/prog.sh") {
		t.Errorf("annotations %q: want an error at the program and one at the case", want)
	}
	if !strings.Contains(r.stdout, "behaves: decided by gen (gen/prog.sh): false") {
		t.Errorf("the log's last lines do not name the deciding program:\n%s", r.stdout)
	}

	comments, writes := e.gh.snapshot()
	if len(comments) != 3 || comments[0] != lookAlike || comments[1] != quote || len(writes) != 1 || writes[0].Method != "POST" {
		t.Fatalf("after one run: comments %+v, writes %+v; want the look-alike and the quote untouched and one comment created", comments, writes)
	}
	if !strings.HasPrefix(comments[2].Body, publish.Marker(rep)) {
		t.Errorf("the comment does not start with the marker:\n%s", comments[2].Body)
	}
	goldentest.Check(t, "action_comment.golden.md", stable(comments[2].Body))

	// A second push: the same comment is edited, never duplicated.
	r = e.main(t, exitOne(), map[string]string{"fail-on": "false"}, "action")
	if r.code != ExitFalse {
		t.Fatalf("second run: exit %d, want %d\n%s", r.code, ExitFalse, r.stderr)
	}
	comments, writes = e.gh.snapshot()
	if len(comments) != 3 || comments[0] != lookAlike || comments[1] != quote || len(writes) != 2 || writes[1].Method != "PATCH" || writes[1].Path != "/repos/octo/repo/issues/comments/101" {
		t.Errorf("after two runs: comments %d, writes %+v; want the one comment edited", len(comments), writes)
	}

	// A newer duplicate of its own (say, a run of an older behaves): the
	// oldest stays the sticky comment, and the log says what was left.
	e.gh.mu.Lock()
	dup := ghComment{ID: 300, Login: "github-actions[bot]", Body: marker + "\nan older behaves' comment"}
	e.gh.comments = append(e.gh.comments, dup)
	e.gh.mu.Unlock()
	r = e.main(t, exitOne(), nil, "action")
	comments, writes = e.gh.snapshot()
	if len(comments) != 4 || comments[3] != dup || len(writes) != 3 || writes[2].Path != "/repos/octo/repo/issues/comments/101" {
		t.Errorf("after a duplicate: comments %+v, writes %+v; want comment 101 edited and 300 untouched", comments, writes)
	}
	if !strings.Contains(r.stdout, "1 newer comment on #7 also starts with") {
		t.Errorf("the log does not say a newer comment was left:\n%s", r.stdout)
	}
}

// TestActionOnTheRealDaemonKeepsOutputInert runs `behaves action` on the
// real daemon with programs that print workflow commands: the only commands
// in the log are behaves' annotations, the outputs are the verdicts', and
// the run leaves nothing behind.
func TestActionOnTheRealDaemonKeepsOutputInert(t *testing.T) {
	t.Parallel()
	cl := dockertest.Client(t)
	img := dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")
	hostile := `printf '::set-output name=verdict::true\n'
printf '::error::forged\n'
printf '::add-mask::x\n'
printf '::stop-commands::x\n'
printf 'mid ##[error]forged\n'
printf 'lone\r::error::forged after a CR\n'
printf '::x::\n'
printf '::set-output name=verdict::true\n##[error]forged\n' >&2
exit 3
`
	ws := workspaceRepo(t, map[string]string{
		"behaves.yml": `version: 1
profiles:
  sh: {image: "` + img + `", command: ["/bin/sh"], timeout: 10s}
programs:
  - {name: good, file: good.sh, profile: sh, cases: [{name: ok, expect: {stdout: {equals: "ok\n"}}}]}
  - {name: "::error::name", file: hostile.sh, profile: sh, cases: [{name: "case ##[error]case", expect: {stdout: {contains: "::error::forged"}}}]}
`,
		"good.sh":    "echo ok\n",
		"hostile.sh": hostile,
	})
	e := newEmulatedRunner(t, ws, "pull_request")
	var runID string
	t.Cleanup(func() {
		if runID != "" {
			dockertest.AssertNothingLeft(t, cl, runID)
		}
	})
	r := e.main(t, Env{NewSandbox: DockerSandbox(context.Background())}, map[string]string{"parallel": "2"}, "action")
	runID = strings.TrimSuffix(strings.TrimPrefix(e.file(t, "save_state"), "run-id="), "\n")
	if r.code != ExitFalse {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, ExitFalse, r.stdout, r.stderr)
	}
	checkOutputs(t, e.file(t, "set_output"), "false", "total=2\ntrue=1\nfalse=1\nundetermined=0\n", "behaves-report.json")
	rep, err := reporttest.ReadFile(t, filepath.Join(ws, "behaves-report.json"), DefaultMaxReadReport)
	if err != nil {
		t.Fatal(err)
	}
	if rep.RunID != runID {
		t.Errorf("the report's run ID %s is not the state's %s", rep.RunID, runID)
	}
	// The forged text is in the log (else the check proves nothing) ...
	for _, s := range []string{"::set-output name=verdict::true", "::add-mask::x", "##[error]forged"} {
		if !strings.Contains(r.stdout+r.stderr, s) {
			t.Errorf("the log lacks %q; the check below would prove nothing", s)
		}
	}
	// ... and the only commands the runner would act on are publish's.
	want, _ := publish.WorkflowCommands(publish.Annotations(rep, publish.AnnotationOptions{LineCount: ghpublish.LineCounter(ws)}))
	if got := commandsOf(t, r.stdout+"\n"+r.stderr); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("commands in the log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(want) != 2 {
		t.Errorf("annotations %q: want an error at hostile.sh and one at its case", want)
	}
}

// TestPublishCommentRefusedStillGates guards that a 403 on the comment is
// a notice, and the exit code is still the verdicts'.
func TestPublishCommentRefusedStillGates(t *testing.T) {
	t.Parallel()
	ws := workspaceRepo(t, fakeSpec(1, 1))
	e := newEmulatedRunner(t, ws, "pull_request")
	e.gh.forbidComments = true
	r := e.main(t, exitOne(), map[string]string{"comment": "update"}, "action")
	if r.code != ExitFalse {
		t.Fatalf("exit %d, want %d (the verdicts', whatever GitHub refused)\n%s", r.code, ExitFalse, r.stdout)
	}
	if !strings.Contains(r.stdout, "::notice::behaves: no pull request comment:") {
		t.Errorf("no notice for the refused comment:\n%s", r.stdout)
	}
	checkOutputs(t, e.file(t, "set_output"), "false", "total=1\ntrue=0\nfalse=1\nundetermined=0\n", "behaves-report.json")
	// publish alone, on the same report, gates the same way.
	r = e.main(t, Env{}, nil, "publish", "--report", filepath.Join(ws, "behaves-report.json"), "--fail-on", "false")
	if r.code != ExitFalse {
		t.Errorf("publish: exit %d, want %d\n%s", r.code, ExitFalse, r.stdout)
	}
}

// TestCheckRunAnnotationBatches guards the check run: 120 false cases (and
// the program's own error) go out in batches of 50, on the pull request's
// head, with conclusion failure.
func TestCheckRunAnnotationBatches(t *testing.T) {
	t.Parallel()
	ws := workspaceRepo(t, fakeSpec(0, 120))
	e := newEmulatedRunner(t, ws, "pull_request")
	r := e.main(t, exitOne(), map[string]string{"check-run": "true", "comment": "off", "max-cases": "200"}, "action")
	if r.code != ExitFalse {
		t.Fatalf("exit %d, want %d\n%s\n%s", r.code, ExitFalse, r.stdout, r.stderr)
	}
	e.gh.mu.Lock()
	defer e.gh.mu.Unlock()
	if len(e.gh.checkRuns) != 1 {
		t.Fatalf("%d check runs created, want 1", len(e.gh.checkRuns))
	}
	cr := e.gh.checkRuns[0]
	if cr["head_sha"] != emuHeadSHA || cr["conclusion"] != "failure" || cr["name"] != "behaves / report" {
		t.Errorf("check run head_sha %v conclusion %v name %v; want %s failure %q", cr["head_sha"], cr["conclusion"], cr["name"], emuHeadSHA, "behaves / report")
	}
	if got := e.gh.batches; len(got) != 3 || got[0] != 50 || got[1] != 50 || got[2] != 21 {
		t.Errorf("annotation batches %v, want [50 50 21]", got)
	}
	// The log shows 10 of each level.
	if n := len(commandsOf(t, r.stdout)); n != publish.AnnotationsPerTypePerStep {
		t.Errorf("%d commands in the log, want %d", n, publish.AnnotationsPerTypePerStep)
	}
}

// ranAction makes a workspace holding files, runs `behaves action` there
// under a pull_request event (the exitOne sandbox, no comment), checks its
// exit code and returns the workspace, the runner and the report's path.
func ranAction(t *testing.T, files map[string]string, want int) (string, *emulatedRunner, string) {
	t.Helper()
	ws := workspaceRepo(t, files)
	e := newEmulatedRunner(t, ws, "pull_request")
	if r := e.main(t, exitOne(), map[string]string{"comment": "off"}, "action"); r.code != want {
		t.Fatalf("behaves action: exit %d, want %d\n%s", r.code, want, r.stderr)
	}
	return ws, e, filepath.Join(ws, "behaves-report.json")
}

// TestPublishRefusesForgedAndForeignReports guards publish's checks: an
// edited report fails validation, and a report from another run is
// refused, both with exit 4 and nothing published.
func TestPublishRefusesForgedAndForeignReports(t *testing.T) {
	t.Parallel()
	ws, _, reportPath := ranAction(t, fakeSpec(1, 1), ExitFalse)
	good, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	forged := filepath.Join(t.TempDir(), "forged.json")
	gittest.WriteFile(t, filepath.Dir(forged), "forged.json",
		strings.ReplaceAll(string(good), `"verdict": "false"`, `"verdict": "true"`))
	wf := newEmulatedRunner(t, ws, "workflow_run")
	fork := newEmulatedRunner(t, ws, "workflow_run_fork")
	for _, tt := range []struct {
		name string
		e    *emulatedRunner
		path string
		want string
	}{
		{"forged verdicts", wf, forged, "nothing published: reading report"},
		{"another run", fork, reportPath, "refusing the report"},
	} {
		r := tt.e.main(t, Env{}, nil, "publish", "--report", tt.path, "--check-run")
		if r.code != ExitRunFailed || !strings.Contains(r.stdout, tt.want) {
			t.Errorf("%s: exit %d, want %d and %q:\n%s", tt.name, r.code, ExitRunFailed, tt.want, r.stdout)
		}
		if _, writes := tt.e.gh.snapshot(); len(writes) != 0 {
			t.Errorf("%s: published %+v", tt.name, writes)
		}
		if out := tt.e.file(t, "set_output"); out != "" {
			t.Errorf("%s: outputs written: %q", tt.name, out)
		}
		if err := actionstest.CheckInert(r.stdout); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	// The genuine report, under the workflow_run of its own run, is
	// published on the pull request listed by the payload.
	r := wf.main(t, Env{}, nil, "publish", "--report", reportPath)
	if r.code != ExitFalse {
		t.Errorf("publish under workflow_run: exit %d, want %d\n%s", r.code, ExitFalse, r.stdout)
	}
	if comments, _ := wf.gh.snapshot(); len(comments) != 1 {
		t.Errorf("publish under workflow_run: %d comments, want 1", len(comments))
	}
}

// TestPublishForkPullRequest guards the fork-safe pattern's publisher on a
// fork's pull request: workflow_run.pull_requests is empty, so the pull
// request is the open one of forker:patch-1 at the run's head; the report
// of that run is published there.
func TestPublishForkPullRequest(t *testing.T) {
	t.Parallel()
	ws, _, reportPath := ranAction(t, fakeSpec(1, 1), ExitFalse)
	// The fork's run: what the report would record there.
	b, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	const forkHead = "4444444444444444444444444444444444444444"
	fromFork := strings.NewReplacer(`"run_id": "`+emuRunID+`"`, `"run_id": "9000000002"`, `"run_attempt": "1"`, `"run_attempt": "2"`,
		`"head_sha": "`+emuHeadSHA+`"`, `"head_sha": "`+forkHead+`"`).Replace(string(b))
	if fromFork == string(b) {
		t.Fatal("the report's github block was not rewritten")
	}
	path := filepath.Join(t.TempDir(), "behaves-report.json")
	gittest.WriteFile(t, filepath.Dir(path), "behaves-report.json", fromFork)

	pub := newEmulatedRunner(t, ws, "workflow_run_fork")
	pub.gh.pulls = `[{"number": 9, "head": {"sha": "5555555555555555555555555555555555555555"}}, {"number": 7, "head": {"sha": "` + forkHead + `"}}]`
	r := pub.main(t, Env{}, map[string]string{"command": "publish", "report": path, "check-run": "true"}, "action")
	if r.code != ExitFalse {
		t.Fatalf("exit %d, want %d\n%s", r.code, ExitFalse, r.stdout)
	}
	comments, _ := pub.gh.snapshot()
	if len(comments) != 1 {
		t.Errorf("%d comments on #7, want 1", len(comments))
	}
	pub.gh.mu.Lock()
	defer pub.gh.mu.Unlock()
	if len(pub.gh.checkRuns) != 1 || pub.gh.checkRuns[0]["head_sha"] != forkHead {
		t.Errorf("check runs %v, want one on the fork's head %s", pub.gh.checkRuns, forkHead)
	}
}

// TestActionSpecErrors guards the action on a spec with errors: exit 2,
// the errors as annotations at the spec, the outputs of a run that judged
// nothing, and annotations: false keeps every command out of the log.
func TestActionSpecErrors(t *testing.T) {
	t.Parallel()
	ws := workspaceRepo(t, map[string]string{"behaves.yml": "version: 1\nprograms: [{name: x}]\n"})
	e := newEmulatedRunner(t, ws, "pull_request")
	r := e.main(t, exitOne(), map[string]string{"comment": "off"}, "action")
	if r.code != ExitUsage {
		t.Fatalf("exit %d, want %d\n%s\n%s", r.code, ExitUsage, r.stdout, r.stderr)
	}
	checkOutputs(t, e.file(t, "set_output"), "undetermined", "total=0\ntrue=0\nfalse=0\nundetermined=0\n", "behaves-report.json")
	cmds := commandsOf(t, r.stdout)
	if len(cmds) == 0 {
		t.Fatalf("no annotation for the spec errors:\n%s", r.stdout)
	}
	for _, c := range cmds {
		if !strings.HasPrefix(c, "::error file=behaves.yml,line=") {
			t.Errorf("command %q is not an error at the spec", c)
		}
	}
	r = e.main(t, exitOne(), map[string]string{"comment": "off", "annotations": "false"}, "action")
	if r.code != ExitUsage {
		t.Fatalf("annotations false: exit %d, want %d", r.code, ExitUsage)
	}
	if cmds := commandsOf(t, r.stdout+"\n"+r.stderr); len(cmds) != 0 {
		t.Errorf("annotations false: commands in the log: %q", cmds)
	}
}

// TestPublishTokenOrder guards where publish takes its token from:
// --github-token, else INPUT_GITHUB-TOKEN, else GITHUB_TOKEN (the fake
// GitHub fails the test on any other token).
func TestPublishTokenOrder(t *testing.T) {
	t.Parallel()
	_, e, reportPath := ranAction(t, fakeSpec(1, 0), ExitTrue)
	for _, tt := range []struct {
		name  string
		vars  map[string]string
		flags []string
	}{
		{"flag", map[string]string{"INPUT_GITHUB-TOKEN": "wrong", "GITHUB_TOKEN": "wrong"}, []string{"--github-token", ghToken}},
		{"input", map[string]string{"INPUT_GITHUB-TOKEN": ghToken, "GITHUB_TOKEN": "wrong"}, nil},
		{"GITHUB_TOKEN", map[string]string{"INPUT_GITHUB-TOKEN": "", "GITHUB_TOKEN": ghToken}, nil},
	} {
		for k, v := range tt.vars {
			e.vars[k] = v
		}
		before, _ := e.gh.snapshot()
		r := e.main(t, Env{}, nil, append([]string{"publish", "--report", reportPath}, tt.flags...)...)
		after, _ := e.gh.snapshot()
		if r.code != ExitTrue || len(after) != 1 || len(before) > 1 {
			t.Errorf("%s: exit %d, comments %d\n%s", tt.name, r.code, len(after), r.stdout)
		}
	}
}

// TestActionCeilingInputsReachTheRun guards that max-output-limit and
// max-report-size become run's flags: a spec above the first is a spec
// error naming it, and a report budget of 1KiB leaves the output out.
func TestActionCeilingInputsReachTheRun(t *testing.T) {
	t.Parallel()
	ws := workspaceRepo(t, fakeSpec(2, 2))
	e := newEmulatedRunner(t, ws, "push")
	r := e.main(t, exitOne(), map[string]string{"max-output-limit": "1KiB"}, "action")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "1KiB") {
		t.Errorf("max-output-limit 1KiB: exit %d, want %d and the ceiling named\n%s", r.code, ExitUsage, r.stderr)
	}
	r = e.main(t, exitOne(), map[string]string{"max-report-size": "1KiB"}, "action")
	if r.code != ExitFalse {
		t.Fatalf("max-report-size 1KiB: exit %d, want %d\n%s", r.code, ExitFalse, r.stderr)
	}
	rep, err := reporttest.ReadFile(t, filepath.Join(ws, "behaves-report.json"), DefaultMaxReadReport)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OutputOmittedCases == 0 {
		t.Errorf("max-report-size 1KiB: no case's output was left out")
	}
}

// TestRunNeverPublishes guards that `behaves run` under Actions publishes
// nothing: no outputs, no summary, no state, no request to GitHub, and no
// workflow command in its log.
func TestRunNeverPublishes(t *testing.T) {
	t.Parallel()
	ws := workspaceRepo(t, fakeSpec(1, 1))
	e := newEmulatedRunner(t, ws, "pull_request")
	r := e.main(t, exitOne(), nil, "run", "--spec", filepath.Join(ws, "behaves.yml"), "--report", filepath.Join(ws, "r.json"))
	if r.code != ExitFalse {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, f := range []string{"set_output", "step_summary", "save_state", "set_env"} {
		if got := e.file(t, f); got != "" {
			t.Errorf("run wrote %s: %q", f, got)
		}
	}
	if comments, writes := e.gh.snapshot(); len(comments) != 0 || len(writes) != 0 {
		t.Errorf("run reached GitHub: %+v", writes)
	}
	if err := actionstest.CheckInert(r.stdout + "\n" + r.stderr); err != nil {
		t.Errorf("run's log: %v", err)
	}
}

// TestActionMalformedInputs guards that a malformed input fails the step
// with exit 2 and a message naming the input, before anything runs.
func TestActionMalformedInputs(t *testing.T) {
	t.Parallel()
	for input, value := range map[string]string{
		"fail-on":              "maybe",
		"max-memory":           "lots",
		"max-timeout":          "soon",
		"max-cases":            "-",
		"pull-images":          "true",
		"comment":              "sometimes",
		"check-run":            "yes",
		"annotations":          "1",
		"parallel":             "-1",
		"command":              "build",
		"images":               "python",
		"allow-untracked":      "/abs/**",
		"allowed-registries":   "https://x",
		"max-output-limit":     "lots",
		"max-report-size":      "0",
		"pass-at":              "0,5",
		"max-reference-output": "lots",
		"html":                 "a\nb",
		"shard":                "4/3",
		"allow-missing":        "yes",
		"reports":              "shards", // with command run
	} {
		e := newEmulatedRunner(t, t.TempDir(), "push")
		sb := &recordingSandbox{}
		r := e.main(t, Env{NewSandbox: fixed(sb)}, map[string]string{input: value}, "action")
		if r.code != ExitUsage || !strings.Contains(r.stdout, "input "+input+":") {
			t.Errorf("%s=%q: exit %d, want %d and a message naming the input:\n%s%s", input, value, r.code, ExitUsage, r.stdout, r.stderr)
		}
		if len(sb.seen) != 0 || e.file(t, "save_state") != "" {
			t.Errorf("%s=%q: something ran", input, value)
		}
	}
}

// TestArgs guards the post step's dispatch by the binary's name.
func TestArgs(t *testing.T) {
	t.Parallel()
	if got := Args([]string{"/usr/local/bin/behaves-post", "action"}); len(got) != 1 || got[0] != "action-post" {
		t.Errorf("Args(behaves-post action) = %q", got)
	}
	if got := Args([]string{"/usr/local/bin/behaves", "action"}); len(got) != 1 || got[0] != "action" {
		t.Errorf("Args(behaves action) = %q", got)
	}
	if got := Args(nil); got != nil {
		t.Errorf("Args(nil) = %q", got)
	}
}

// TestActionPostWithoutState guards that the post step of a step that saved
// no run ID does nothing and succeeds.
func TestActionPostWithoutState(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	code := Main(context.Background(), []string{"action-post"}, Env{Stdout: &out, Stderr: io.Discard,
		NewSweeper: func() (runner.Sweeper, error) { t.Error("the post step without state reached Docker"); return nil, nil }})
	if code != ExitTrue || !strings.Contains(out.String(), "nothing to clean up") {
		t.Errorf("exit %d: %s", code, out.String())
	}
}

// TestActionPostRemovesOnlyItsRun fakes the leftovers of the step's run and
// of another run on the real daemon: the post step removes the first only.
func TestActionPostRemovesOnlyItsRun(t *testing.T) {
	t.Parallel()
	cl := dockertest.Client(t)
	img := dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")
	mine, other := newRunID(), newRunID()
	owner := map[string]string{runner.LabelHost: "action-container", runner.LabelPID: "1", runner.LabelStartedAt: time.Now().UTC().Format(time.RFC3339)}
	fakeRun(t, cl, img, mine, copyMap(owner))
	fakeRun(t, cl, img, other, copyMap(owner))
	var out, errOut bytes.Buffer
	code := Main(context.Background(), Args([]string{"/usr/local/bin/" + PostName, "action"}), Env{
		Stdout: &out, Stderr: &errOut,
		Getenv: func(k string) string {
			if k == "STATE_run-id" {
				return mine
			}
			return ""
		},
		NewSweeper: DockerSweeper,
	})
	if code != ExitTrue {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if n := left(t, cl, mine); n != 0 {
		t.Errorf("the step's run has %d objects left:\n%s", n, out.String())
	}
	if n := left(t, cl, other); n != 2 {
		t.Errorf("the other run has %d object(s) left, want its 2 untouched", n)
	}
	if !strings.Contains(out.String(), "removed 2 leftovers") {
		t.Errorf("stdout:\n%s", out.String())
	}
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
