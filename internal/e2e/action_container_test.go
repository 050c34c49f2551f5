package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/behaves-dev/behaves/internal/actionstest"
	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/gittest"
	"github.com/behaves-dev/behaves/internal/publish"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportschema/schematest"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/runner/docker"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// The action's image (BEHAVES_IMAGE_ACTION, built from the Dockerfile by
// scripts/action-image.sh with local base images) is run the way the runner
// runs a container action: `docker run` of the image with its own entry
// point, the Docker socket mounted, the workspace at /github/workspace (the
// working directory), the file commands under /github/file_commands, the
// home and the event under /github/home and /github/workflow, and the
// environment naming those container paths.

// actionRun is what one run of the action's container did.
type actionRun struct {
	code           int
	stdout, stderr string
}

// runnerDirs are the host folders the runner mounts into a container
// action, and the file-command files it names in the environment.
type runnerDirs struct {
	workspace, fileCommands, home, workflow string
	env                                     []string // the runner's GITHUB_* environment, container paths
}

// newRunnerDirs makes the runner's folders around workspace, the way
// actions/runner's ContainerActionHandler lays them out, with the event
// payload at /github/workflow/event.json.
func newRunnerDirs(t *testing.T, workspace, event string) runnerDirs {
	t.Helper()
	tmp := t.TempDir()
	d := runnerDirs{
		workspace:    workspace,
		fileCommands: filepath.Join(tmp, "_runner_file_commands"),
		home:         filepath.Join(tmp, "_github_home"),
		workflow:     filepath.Join(tmp, "_github_workflow"),
	}
	for _, dir := range []string{d.fileCommands, d.home, d.workflow} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(d.workflow, "event.json"), []byte(event), 0o644); err != nil {
		t.Fatal(err)
	}
	// The runner names each file command's file per step with a random suffix.
	files := map[string]string{
		"GITHUB_OUTPUT":       "set_output_",
		"GITHUB_STEP_SUMMARY": "step_summary_",
		"GITHUB_STATE":        "save_state_",
		"GITHUB_ENV":          "set_env_",
		"GITHUB_PATH":         "add_path_",
	}
	suffix := randomHex(t)
	for name, prefix := range files {
		if err := os.WriteFile(filepath.Join(d.fileCommands, prefix+suffix), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		d.env = append(d.env, name+"=/github/file_commands/"+prefix+suffix)
	}
	d.env = append(d.env,
		"HOME=/github/home",
		"CI=true",
		"GITHUB_ACTIONS=true",
		"GITHUB_WORKSPACE=/github/workspace",
		"GITHUB_EVENT_PATH=/github/workflow/event.json",
		"GITHUB_EVENT_NAME=pull_request",
		"GITHUB_REPOSITORY=behaves-dev/action-test",
		"GITHUB_RUN_ID=4242",
		"GITHUB_RUN_ATTEMPT=1",
		"GITHUB_SHA="+strings.Repeat("ab", 20),
		"RUNNER_OS=Linux",
		"RUNNER_TEMP=/home/runner/work/_temp", // not rewritten by the runner: no such path inside
	)
	return d
}

// fileCommand reads a file command's file on the host.
func (d runnerDirs) fileCommand(t *testing.T, name string) string {
	t.Helper()
	for _, kv := range d.env {
		if v, ok := strings.CutPrefix(kv, name+"=/github/file_commands/"); ok {
			b, err := os.ReadFile(filepath.Join(d.fileCommands, v))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
	}
	t.Fatalf("no %s in the runner's environment", name)
	return ""
}

// daemonSocket is the host path of the daemon's unix socket, which the
// runner mounts at /var/run/docker.sock.
func daemonSocket(t *testing.T, cl *client.Client) string {
	t.Helper()
	u, err := url.Parse(cl.DaemonHost())
	if err != nil || u.Scheme != "unix" {
		if dockertest.Required() {
			t.Fatalf("BEHAVES_REQUIRE_DOCKER=1: the daemon at %q is not on a unix socket the action could mount", cl.DaemonHost())
		}
		t.Skipf("the daemon at %q is not on a unix socket the action could mount", cl.DaemonHost())
	}
	return u.Path
}

// runActionContainer runs image with args (after its own entry point) as
// the runner runs a container action, with extra environment, and returns
// its exit code and output. binds are host:container mounts beyond the
// socket; the container is removed when the test ends.
func runActionContainer(t *testing.T, cl *client.Client, image string, binds, env, args []string) actionRun {
	t.Helper()
	return runActionEntrypoint(t, cl, image, nil, binds, env, args)
}

// runActionEntrypoint is runActionContainer with another entry point (nil:
// the image's), as the runner starts a post-entrypoint.
func runActionEntrypoint(t *testing.T, cl *client.Client, image string, entrypoint, binds, env, args []string) actionRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	binds = append([]string{daemonSocket(t, cl) + ":/var/run/docker.sock"}, binds...)
	created, err := cl.ContainerCreate(ctx, &container.Config{
		Image:        image,
		Entrypoint:   entrypoint,
		Cmd:          args,
		Env:          env,
		WorkingDir:   "/github/workspace",
		Labels:       map[string]string{"behaves-test.action": t.Name()},
		AttachStdout: true,
		AttachStderr: true,
	}, &container.HostConfig{Binds: binds}, nil, nil, "")
	if created.ID != "" {
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := cl.ContainerRemove(ctx, created.ID, container.RemoveOptions{Force: true, RemoveVolumes: true}); err != nil && !errdefs.IsNotFound(err) {
				t.Errorf("removing the action's container: %v", err)
			}
		})
	}
	if err != nil {
		t.Fatalf("creating the action's container: %v", err)
	}
	// Attach and ask for the exit before starting, or output and exit are lost.
	att, err := cl.ContainerAttach(ctx, created.ID, container.AttachOptions{Stream: true, Stdout: true, Stderr: true})
	if err != nil {
		t.Fatalf("attaching to the action's container: %v", err)
	}
	defer att.Close()
	waitC, errC := cl.ContainerWait(ctx, created.ID, container.WaitConditionNextExit)
	var stdout, stderr bytes.Buffer
	copied := make(chan error, 1)
	go func() {
		_, err := stdcopy.StdCopy(&stdout, &stderr, att.Reader)
		copied <- err
	}()
	if err := cl.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		t.Fatalf("starting the action's container: %v", err)
	}
	var code int
	select {
	case w := <-waitC:
		if w.Error != nil {
			t.Fatalf("waiting for the action's container: %s", w.Error.Message)
		}
		code = int(w.StatusCode)
	case err := <-errC:
		t.Fatalf("waiting for the action's container: %v", err)
	}
	if err := <-copied; err != nil {
		t.Fatalf("reading the action's output: %v", err)
	}
	return actionRun{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// seenContainer is a container of some behaves run that the host's daemon
// created, inspected when its create event arrived.
type seenContainer struct {
	id, runID, role string
	mounts          []container.MountPoint // nil when it was gone before the inspect
	binds           []string
	gone            bool
}

// watchBehavesContainers records every container with a behaves.run-id
// label that the daemon creates until the returned function is called,
// which returns them.
func watchBehavesContainers(t *testing.T, cl *client.Client) func() []seenContainer {
	t.Helper()
	var (
		mu   sync.Mutex
		seen []seenContainer
		wg   sync.WaitGroup
	)
	stop := followEvents(t, cl, filters.NewArgs(
		filters.Arg("type", string(events.ContainerEventType)),
		filters.Arg("event", string(events.ActionCreate)),
		filters.Arg("label", "behaves.run-id"),
	), func(m events.Message) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := seenContainer{id: m.Actor.ID, runID: m.Actor.Attributes["behaves.run-id"], role: m.Actor.Attributes["behaves.role"]}
			ins, err := cl.ContainerInspect(context.Background(), m.Actor.ID)
			switch {
			case errdefs.IsNotFound(err):
				c.gone = true
			case err != nil:
				t.Errorf("inspecting %s: %v", m.Actor.ID, err)
			default:
				c.mounts, c.binds = ins.Mounts, ins.HostConfig.Binds
			}
			mu.Lock()
			seen = append(seen, c)
			mu.Unlock()
		}()
	})
	return func() []seenContainer {
		stop()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return seen
	}
}

// actionWorkspace is a workspace with a committed spec for the action's
// container tests: greet is true, wrong is false, and never-runs is
// undetermined (its profile's image is absent). The shell profile's image
// is to be given as busybox.
func actionWorkspace(t *testing.T) (ws, head string) {
	t.Helper()
	ws = gittest.NewRepo(t)
	gittest.WriteFile(t, ws, "behaves.yml", `version: 1
profiles:
  shell:
    image: "sha256:0000000000000000000000000000000000000000000000000000000000000000"
    command: ["/bin/sh"]
    timeout: 3s
  absent:
    image: "sha256:1111111111111111111111111111111111111111111111111111111111111111"
    command: ["/bin/sh"]
programs:
  - name: greet
    file: programs/greet.sh
    profile: shell
    cases:
      - {name: arg, args: [world], expect: {stdout: {equals: "hello world"}}}
      - {name: stdin, stdin_file: inputs/name.txt, expect: {stdout: {equals: "hello tracked"}}}
  - name: wrong
    file: programs/wrong.sh
    profile: shell
    cases:
      - {name: exit, expect: {exit_code: 0, stdout: {equals: "right"}}}
  - name: never-runs
    file: programs/greet.sh
    profile: absent
    cases:
      - {name: arg, args: [x], expect: {stdout: {equals: "hello x"}}}
`)
	gittest.WriteFile(t, ws, "programs/greet.sh", "if [ $# -gt 0 ]; then echo \"hello $1\"; else read -r n; echo \"hello $n\"; fi\n")
	gittest.WriteFile(t, ws, "programs/wrong.sh", "echo wrong; exit 3\n")
	gittest.WriteFile(t, ws, "inputs/name.txt", "tracked\n")
	gittest.Commit(t, ws, "a spec for the action")
	return ws, strings.TrimSpace(gittest.Git(t, ws, "rev-parse", "HEAD"))
}

// binds are the runner's mounts of d into the action's container.
func (d runnerDirs) binds() []string {
	return []string{
		d.workspace + ":/github/workspace",
		d.fileCommands + ":/github/file_commands",
		d.home + ":/github/home",
		d.workflow + ":/github/workflow",
	}
}

// checkActionRun checks what a run of the action's container on
// actionWorkspace did, whether as `behaves run` or `behaves action`: the
// report it wrote into the workspace (at reportName) and its verdicts, the
// runner's facts it records, that the programs' containers were made by the
// host's daemon with no host path mounted, and that nothing of the run is
// left. It returns the report.
func checkActionRun(t *testing.T, cl *client.Client, ws, head, reportName string, run actionRun, containers []seenContainer, hostHadGithub bool) report.Report {
	t.Helper()
	logs := fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", run.code, indent(run.stdout), indent(run.stderr))
	data, err := os.ReadFile(filepath.Join(ws, reportName))
	if err != nil {
		t.Fatalf("no report in the workspace: %v\n%s", err, logs)
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("the report is not valid JSON: %v\n%s", err, logs)
	}
	schematest.Check(t, "the report the action wrote", data)
	dockertest.AssertNothingLeft(t, cl, rep.RunID)

	if run.code != 1 {
		t.Errorf("exit code %d, want 1 (a false program)\n%s", run.code, logs)
	}
	want := map[string]verdict.Verdict{"greet": verdict.True, "wrong": verdict.False, "never-runs": verdict.Undetermined}
	for _, p := range rep.Programs {
		if p.Verdict != want[p.Name] {
			t.Errorf("program %s: verdict %s, want %s", p.Name, p.Verdict, want[p.Name])
		}
		delete(want, p.Name)
	}
	if len(want) > 0 {
		t.Errorf("programs missing from the report: %v\n%s", want, logs)
	}
	if rep.SpecFile != "behaves.yml" {
		t.Errorf("report spec_file %q: want behaves.yml (relative to the repository, /github/workspace)", rep.SpecFile)
	}
	if got := rep.GitHub; got.RunID != "4242" || got.Repository != "behaves-dev/action-test" || got.HeadSHA != head {
		t.Errorf("the report's github %+v: want run 4242 of behaves-dev/action-test at the event's head %s", got, head)
	}
	if want := committedVersion(t); rep.Tool.Version != want {
		t.Errorf("the report's tool.version %q, want the committed %q", rep.Tool.Version, want)
	}

	// The programs' containers: made through the socket by the host's daemon,
	// labelled with the run, and never given a host path.
	var programs, inspected int
	for _, c := range containers {
		if c.runID != rep.RunID {
			continue // another test's run on the same daemon
		}
		if c.role == "program" {
			programs++
		}
		if c.gone {
			continue
		}
		inspected++
		if len(c.binds) > 0 {
			t.Errorf("%s container %s has binds %v", c.role, c.id, c.binds)
		}
		for _, m := range c.mounts {
			if m.Type == mount.TypeBind || strings.HasPrefix(m.Source, "/github") || strings.Contains(m.Source, "docker.sock") {
				t.Errorf("%s container %s mounts %s %s at %s", c.role, c.id, m.Type, m.Source, m.Destination)
			}
		}
	}
	t.Logf("run %s: %d program containers created by the host's daemon, %d of the run's containers inspected", rep.RunID, programs, inspected)
	// greet runs twice and wrong once; never-runs' image is absent.
	if programs != 3 {
		t.Errorf("the daemon created %d program containers for run %s, want 3\n%s", programs, rep.RunID, logs)
	}
	if inspected == 0 {
		t.Errorf("no container of run %s could be inspected before it was removed", rep.RunID)
	}
	// A bind of a missing host path makes it: none may appear.
	if _, err := os.Stat("/github"); err == nil && !hostHadGithub {
		t.Errorf("/github exists on the host after the run: something bind-mounted a path under it")
	}
	return rep
}

// TestActionContainer builds nothing: it runs the action's image, as the
// runner would, on a workspace with a committed spec, with `behaves run`
// as the step's arguments. It checks the verdicts in the report the
// container wrote into the workspace, that the programs' containers were
// made by the host's daemon with no host path mounted (the workspace and
// /github/... exist only in the action's container: programs are
// delivered through the API), the runner's facts the report records from
// the rewritten environment, that nothing of the run is left, and that
// behaves run publishes nothing.
func TestActionContainer(t *testing.T) {
	t.Parallel()
	cl := dockertest.Client(t)
	action := dockertest.Image(t, "BEHAVES_IMAGE_ACTION")
	busybox := dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")
	ws, head := actionWorkspace(t)
	dirs := newRunnerDirs(t, ws, fmt.Sprintf(`{"pull_request": {"number": 7, "head": {"sha": %q}}}`, head))

	_, statErr := os.Stat("/github")
	hostHadGithub := statErr == nil
	seen := watchBehavesContainers(t, cl)
	run := runActionContainer(t, cl, action, dirs.binds(),
		append(dirs.env, "INPUT_SPEC=behaves.yml", "INPUT_FAIL-ON=undetermined", "INPUT_PULL-IMAGES=false"),
		[]string{"run", "--spec", "behaves.yml", "--report", "behaves-report.json", "--image", "shell=" + busybox},
	)
	rep := checkActionRun(t, cl, ws, head, "behaves-report.json", run, seen(), hostHadGithub)
	if rep.Spec != "behaves.yml" {
		t.Errorf("report spec %q: want behaves.yml, as given", rep.Spec)
	}
	// behaves run never publishes: the file commands stay empty.
	for _, name := range []string{"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_STATE", "GITHUB_ENV", "GITHUB_PATH"} {
		if got := dirs.fileCommand(t, name); got != "" {
			t.Errorf("%s holds %q after behaves run, want nothing", name, got)
		}
	}
}

// TestActionContainerAction runs the action's image as the runner runs
// action.yml: the main step is `behaves action` (runs.args) with the
// inputs as INPUT_* variables and no GitHub API (comment off, no check
// run); then the post step, the image's behaves-post with the same args
// and the main step's state as STATE_run-id. Besides what
// checkActionRun checks, the main step must publish through the file
// commands (the enumerated outputs, the job summary, the run ID as state)
// and annotate the spec in its log with nothing else the runner would act
// on; the post step must remove the leftovers of that run ID and nothing
// else.
func TestActionContainerAction(t *testing.T) {
	t.Parallel()
	cl := dockertest.Client(t)
	action := dockertest.Image(t, "BEHAVES_IMAGE_ACTION")
	busybox := dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")
	ws, head := actionWorkspace(t)
	dirs := newRunnerDirs(t, ws, fmt.Sprintf(`{"pull_request": {"number": 7, "head": {"sha": %q}}}`, head))
	// What the runner sets for every step; publish reaches none of it with
	// the comment off and no check run.
	env := append(dirs.env,
		"GITHUB_SERVER_URL=https://github.com",
		"GITHUB_API_URL=http://127.0.0.1:9", // discard: never dialled
		"GITHUB_GRAPHQL_URL=http://127.0.0.1:9/graphql",
		"INPUT_COMMAND=run",
		"INPUT_SPEC=behaves.yml",
		"INPUT_REPORT=out/behaves-report.json",
		"INPUT_FAIL-ON=undetermined",
		"INPUT_IMAGES=shell="+busybox+"\n",
		"INPUT_PULL-IMAGES=false",
		"INPUT_GITHUB-TOKEN=",
		"INPUT_COMMENT=off",
		"INPUT_CHECK-RUN=false",
		"INPUT_ANNOTATIONS=true",
	)
	if err := os.MkdirAll(filepath.Join(ws, "out"), 0o755); err != nil {
		t.Fatal(err)
	}

	_, statErr := os.Stat("/github")
	hostHadGithub := statErr == nil
	seen := watchBehavesContainers(t, cl)
	run := runActionContainer(t, cl, action, dirs.binds(), env, []string{"action"})
	rep := checkActionRun(t, cl, ws, head, "out/behaves-report.json", run, seen(), hostHadGithub)
	logs := fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", run.code, indent(run.stdout), indent(run.stderr))

	// The step's outputs: exactly the enumerated ones, the report's path
	// relative to the workspace in a heredoc.
	outputs := dirs.fileCommand(t, "GITHUB_OUTPUT")
	got := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(outputs, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		if name, delim, ok := strings.Cut(lines[i], "<<"); ok {
			if i+2 >= len(lines) || lines[i+2] != delim {
				t.Fatalf("GITHUB_OUTPUT: the heredoc %q is not one line closed by its delimiter:\n%s", lines[i], outputs)
			}
			got[name] = lines[i+1]
			i += 2
			continue
		}
		name, value, ok := strings.Cut(lines[i], "=")
		if !ok {
			t.Fatalf("GITHUB_OUTPUT: line %q is neither name=value nor a heredoc:\n%s", lines[i], outputs)
		}
		if _, dup := got[name]; dup {
			t.Errorf("GITHUB_OUTPUT sets %s twice:\n%s", name, outputs)
		}
		got[name] = value
	}
	wantOutputs := map[string]string{"verdict": "false", "total": "3", "true": "1", "false": "1", "undetermined": "1", "report": "out/behaves-report.json"}
	if fmt.Sprint(got) != fmt.Sprint(wantOutputs) {
		t.Errorf("GITHUB_OUTPUT holds %v, want %v:\n%s", got, wantOutputs, outputs)
	}
	if rep.Verdict != verdict.False {
		t.Errorf("the report's verdict %s, want false", rep.Verdict)
	}

	// The job summary: markdown with the headline.
	summary := dirs.fileCommand(t, "GITHUB_STEP_SUMMARY")
	if !strings.HasPrefix(summary, "#") || !strings.Contains(summary, publish.Headline(rep)) {
		t.Errorf("GITHUB_STEP_SUMMARY is not markdown with the headline %q:\n%s", publish.Headline(rep), summary)
	}

	// The state: the run ID, saved for the post step.
	state := dirs.fileCommand(t, "GITHUB_STATE")
	if want := "run-id=" + rep.RunID + "\n"; state != want || !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(rep.RunID) {
		t.Errorf("GITHUB_STATE holds %q, want %q (16 hex digits, the report's run_id)", state, want)
	}
	for _, name := range []string{"GITHUB_ENV", "GITHUB_PATH"} {
		if got := dirs.fileCommand(t, name); got != "" {
			t.Errorf("%s holds %q, want nothing", name, got)
		}
	}

	// The log: annotations (an error at the false case in the spec and one
	// at its program's file, a warning at the undetermined case in the
	// spec) and stop-commands regions; nothing else the runner would act on.
	annotations := map[string]int{}
	cmds := actionstest.Commands(run.stdout + "\n" + run.stderr)
	for i := 0; i < len(cmds); i++ {
		c := cmds[i]
		switch c.Name {
		case "stop-commands":
			if len(c.Data) < 16 || i+1 == len(cmds) || !strings.EqualFold(cmds[i+1].Name, c.Data) {
				t.Errorf("the log's stop-commands region %q is not closed by its token of 16 characters or more", c.Text)
			}
			i++
		case "error", "warning":
			file, _, _ := strings.Cut(strings.TrimPrefix(c.Text, "::"+c.Name+" file="), ",")
			annotations[c.Name+" "+file]++
		default:
			t.Errorf("the runner would act on %q", c.Text)
		}
	}
	wantAnnotations := map[string]int{"error behaves.yml": 1, "error programs/wrong.sh": 1, "warning behaves.yml": 1}
	if fmt.Sprint(annotations) != fmt.Sprint(wantAnnotations) {
		t.Errorf("the log's annotations by level and file: %v, want %v\n%s", annotations, wantAnnotations, logs)
	}

	// The post step: a leftover of the main step's run (faked: the main
	// step removed its own) and one of another run. behaves-post, started
	// with the main step's args and its state, removes the first only.
	other := randomHex(t)
	fakeLeftover(t, cl, rep.RunID)
	fakeLeftover(t, cl, other)
	post := runActionEntrypoint(t, cl, action, []string{"/usr/local/bin/behaves-post"}, dirs.binds(),
		append(append([]string(nil), dirs.env...), "STATE_run-id="+rep.RunID), []string{"action"})
	postLogs := fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", post.code, indent(post.stdout), indent(post.stderr))
	if post.code != 0 || !strings.Contains(post.stdout, "removed 1 leftover") {
		t.Errorf("the post step: want exit 0 and 1 leftover removed\n%s", postLogs)
	}
	dockertest.AssertNothingLeft(t, cl, rep.RunID)
	if cs, vs := dockertest.Leftovers(t, cl, other); len(cs) != 0 || len(vs) != 1 {
		t.Errorf("another run's leftovers after the post step: containers %v, volumes %v; want its volume untouched\n%s", cs, vs, postLogs)
	}
}

// fakeLeftover creates a volume labelled as behaves labels a run's
// volumes, as a run of runID would leave it, and removes it when the test
// ends if it is still there.
func fakeLeftover(t *testing.T, cl *client.Client, runID string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v, err := cl.VolumeCreate(ctx, volume.CreateOptions{Driver: "local", Labels: map[string]string{
		runner.LabelRunID:     runID,
		runner.LabelRole:      docker.RoleVolume,
		runner.LabelHost:      "action-container",
		runner.LabelPID:       "1",
		runner.LabelStartedAt: time.Now().UTC().Format(time.RFC3339),
	}})
	if v.Name != "" {
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := cl.VolumeRemove(ctx, v.Name, true); err != nil && !errdefs.IsNotFound(err) {
				t.Errorf("removing the faked leftover %s: %v", v.Name, err)
			}
		})
	}
	if err != nil {
		t.Fatalf("faking a leftover of run %s: %v", runID, err)
	}
}

// The image is what a container action needs: its entry point is behaves,
// it runs as root (no USER: the runner's files belong to root), and
// `behaves version` names the committed version, since the runner builds
// from a tarball with no VCS information.
func TestActionImage(t *testing.T) {
	t.Parallel()
	cl := dockertest.Client(t)
	action := dockertest.Image(t, "BEHAVES_IMAGE_ACTION")
	ins, err := cl.ImageInspect(context.Background(), action)
	if err != nil {
		t.Fatalf("inspecting the action's image: %v", err)
	}
	if ins.Config == nil {
		t.Fatal("the action's image has no config")
	}
	if got := ins.Config.User; got != "" {
		t.Errorf("the image's USER is %q; container actions run as root", got)
	}
	if got := ins.Config.Entrypoint; len(got) != 1 || got[0] != "/usr/local/bin/behaves" {
		t.Errorf("the image's entry point is %q, want [/usr/local/bin/behaves]", got)
	}
	run := runActionContainer(t, cl, action, nil, nil, []string{"version"})
	if want := "behaves " + committedVersion(t) + " (commit unknown)\n"; run.code != 0 || run.stdout != want {
		t.Errorf("behaves version in the image: exit %d, stdout %q, stderr %q; want exit 0 and %q", run.code, run.stdout, run.stderr, want)
	}
	// action.yml's post-entrypoint: the same binary under the name it
	// dispatches on, started with the main step's args as the runner does.
	// Without the main step's state it has nothing to remove.
	post := runActionEntrypoint(t, cl, action, []string{"/usr/local/bin/behaves-post"}, nil, nil, []string{"action"})
	if post.code != 0 || !strings.Contains(post.stdout, "nothing to clean up") {
		t.Errorf("the post-entrypoint: exit %d, stdout %q, stderr %q; want exit 0 and nothing to clean up", post.code, post.stdout, post.stderr)
	}
}

// committedVersion is internal/cli/VERSION, what a build without VCS
// information names.
func committedVersion(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "cli", "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}
