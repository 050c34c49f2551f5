package e2e

import (
	"archive/tar"
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	"gopkg.in/yaml.v3"

	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/gittest"
	"github.com/behaves-dev/behaves/internal/publish"
	"github.com/behaves-dev/behaves/internal/release"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportschema/schematest"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// A real runner: nektos/act runs the self-test workflow (the copy that
// act_workflow_test.go derives from it, which takes the demo's images from
// this machine instead of pulling them) against the real daemon, with a
// local job-container image. act builds a local Docker action (`uses: ./`)
// itself, with no build arguments, and pulls by default; here nothing can be
// pulled, so the action's image (scripts/action-image.sh: the Dockerfile
// built with local base images) is tagged as act names a local action's
// image, and act runs with --pull=false --rebuild=false.
//
// act skips actions/checkout of the workflow's own repository (it already
// copies or, with --bind, mounts the working folder), so the workflow's
// checkout step needs no network.
//
// act mirrors host paths into its containers, unlike the runner, so this
// does not replace TestActionContainerAction; and act v0.2.89 gives a
// Docker action's post-entrypoint no STATE_* variables (pkg/runner/action.go:
// runPostStep calls populateEnvsFromSavedState for node actions only), so
// under act the post step runs but finds no run ID; the post step's cleanup
// is tested by TestActionContainerAction.
//
// scripts/act.sh installs act and builds the runner image; .ci/run runs it
// and sets BEHAVES_REQUIRE_ACT=1, so that this test fails instead of
// skipping when act or its image is missing.

// actVersion is the act release this test is written against: its JSON log,
// its local checkout and its post steps.
const actVersion = "0.2.89"

// actRunTimeout bounds the act run (the demo takes about 20 s).
const actRunTimeout = 10 * time.Minute

// actActionImage is the name act gives the image of a local Docker action
// at the root of the repository (`uses: ./`): pkg/runner/action.go's
// execAsDocker, "act-" + the action's name with every non-alphanumeric
// character as "-" + "-dockeraction:latest", with leading dashes trimmed.
const actActionImage = "act-dockeraction:latest"

// requireAct returns the act binary and the runner image (BEHAVES_ACT,
// else act on PATH, and BEHAVES_IMAGE_RUNNER, both written by
// scripts/act.sh). Without them, or with another act version, the test
// skips, or fails under BEHAVES_REQUIRE_ACT=1 (.ci/run).
func requireAct(t *testing.T) (bin, runnerImage string) {
	t.Helper()
	skip := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...) + " (bash scripts/act.sh installs act and builds the runner image, then source the images env file)"
		if os.Getenv("BEHAVES_REQUIRE_ACT") == "1" {
			t.Fatal("BEHAVES_REQUIRE_ACT=1: " + msg)
		}
		t.Skip(msg)
	}
	bin = os.Getenv("BEHAVES_ACT")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("act"); err != nil {
			skip("no act: BEHAVES_ACT is not set and act is not on PATH")
		}
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		skip("%s --version: %v", bin, err)
	}
	if got := strings.TrimSpace(string(out)); got != "act version "+actVersion {
		skip("%s says %q; this test knows act %s", bin, got, actVersion)
	}
	runnerImage = os.Getenv("BEHAVES_IMAGE_RUNNER")
	if runnerImage == "" {
		skip("BEHAVES_IMAGE_RUNNER is not set")
	}
	return bin, runnerImage
}

// actEntry is one line of act's --json log (logrus fields).
type actEntry struct {
	Msg   string `json:"msg"`
	Level string `json:"level"`
	// Stage is Pre, Main or Post for a step's lines.
	Stage string `json:"stage"`
	// StepID is the step's id (or its index), as act's one-element list;
	// the job's setup and completion spell it "stepid", which decodes here
	// too (encoding/json matches names case-insensitively).
	StepID []string `json:"stepID"`
	// Command is set for a workflow command act acted on (with Raw, the
	// line), and for the outputs and the summary of file commands.
	Command    string            `json:"command"`
	Name       string            `json:"name"`
	Arg        string            `json:"arg"`
	KVPairs    map[string]string `json:"kvPairs"`
	Raw        string            `json:"raw"`
	Content    string            `json:"content"`
	RawOutput  bool              `json:"raw_output"`
	StepResult string            `json:"stepResult"`
	JobResult  string            `json:"jobResult"`
}

func (e actEntry) step() string {
	if len(e.StepID) == 0 {
		return ""
	}
	return e.StepID[0]
}

// actLog is act's whole log, decoded.
type actLog struct {
	entries []actEntry
	text    string // for failure messages
}

// dump is act's log for a failure message.
func (l actLog) dump() string { return "act's log:\n" + indent(l.text) }

// actPush is act running workflow (written as file name) on a push of head,
// in the workspace ws: offline, against the local runner image, binding
// ws, with a fresh HOME (act reads .actrc from HOME and XDG_CONFIG_HOME, so
// the machine's settings stay out). Past actRunTimeout act is interrupted
// (it then cancels the job and runs the post steps), and killed a minute
// later; a test may wrap cmd.Cancel to do more first.
func actPush(t *testing.T, actBin, runnerImage, ws, head, name, workflow string) *exec.Cmd {
	t.Helper()
	tmp := t.TempDir()
	workflowPath := filepath.Join(tmp, name)
	eventPath := filepath.Join(tmp, "push.json")
	home := filepath.Join(tmp, "home")
	event := fmt.Sprintf(`{"ref": "refs/heads/main", "before": %q, "after": %q, "repository": {"full_name": "behaves-dev/behaves", "name": "behaves", "owner": {"login": "behaves-dev"}}}`,
		strings.Repeat("0", 40), head)
	for path, data := range map[string]string{workflowPath: workflow, eventPath: event} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), actRunTimeout)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, actBin, "push",
		"--workflows", workflowPath,
		"--eventpath", eventPath,
		"--pull=false", "--rebuild=false", "--bind",
		"-P", "ubuntu-latest="+runnerImage,
		"--no-cache-server", "--json")
	cmd.Dir = ws
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = time.Minute
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); name != "HOME" && !strings.HasPrefix(name, "XDG_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
	return cmd
}

// runAct runs act's command, stops watching the daemon, and returns act's
// log and the daemon objects made while it ran; act failing fails the test.
func runAct(t *testing.T, cmd *exec.Cmd, stopWatching func() []daemonObject) (actLog, []daemonObject) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	runErr := cmd.Run()
	objs := stopWatching()
	t.Logf("act ran in %s", time.Since(start).Round(time.Millisecond))
	log := parseActLog(t, stdout.String()+stderr.String())
	if runErr != nil {
		t.Fatalf("act: %v\n%s", runErr, log.dump())
	}
	return log, objs
}

// parseActLog decodes act's --json log; a line that is not JSON fails the
// test.
func parseActLog(t *testing.T, out string) actLog {
	t.Helper()
	l := actLog{text: out}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		var e actEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Errorf("act's log has a line that is not JSON (%v): %q", err, line)
			continue
		}
		l.entries = append(l.entries, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading act's log: %v", err)
	}
	return l
}

// stage returns the entries of one step's stage.
func (l actLog) stage(stepID, stage string) []actEntry {
	var es []actEntry
	for _, e := range l.entries {
		if e.step() == stepID && e.Stage == stage {
			es = append(es, e)
		}
	}
	return es
}

// result is the stepResult act logged for one step's stage ("" when it
// logged none: the stage did not run).
func (l actLog) result(stepID, stage string) string {
	for _, e := range l.stage(stepID, stage) {
		if e.StepResult != "" {
			return e.StepResult
		}
	}
	return ""
}

// outputs are the step outputs act took from a stage's GITHUB_OUTPUT (file
// commands are logged as set-output without a raw line).
func (l actLog) outputs(t *testing.T, stepID string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, e := range l.stage(stepID, "Main") {
		if e.Command == "set-output" && e.Raw == "" {
			if _, dup := got[e.Name]; dup {
				t.Errorf("step %s sets output %s twice", stepID, e.Name)
			}
			got[e.Name] = e.Arg
		}
	}
	return got
}

// copyRepo copies the repository's files, as the action's image is built
// from them (scripts/action-image.sh: git's tracked and untracked but not
// ignored files, as they are in the working tree), into a fresh git
// repository with origin at github.com/behaves-dev/behaves, commits them and
// returns the folder and the commit: the work tree a checkout of this
// revision would give the workflow.
func copyRepo(t *testing.T, root string) (ws, head string) {
	t.Helper()
	ws = gittest.NewRepo(t)
	files := strings.Split(strings.TrimRight(gittest.Git(t, root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"), "\x00"), "\x00")
	copied := 0
	for _, f := range files {
		src, dst := filepath.Join(root, f), filepath.Join(ws, f)
		fi, err := os.Lstat(src)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, dst); err != nil {
				t.Fatal(err)
			}
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, b, fi.Mode().Perm()); err != nil {
				t.Fatal(err)
			}
		default:
			continue // a submodule's folder and the like
		}
		copied++
	}
	if copied == 0 {
		t.Fatalf("git ls-files listed no file in %s", root)
	}
	gittest.Git(t, ws, "remote", "add", "origin", "https://github.com/behaves-dev/behaves.git")
	gittest.Commit(t, ws, "the repository as the action's image was built from it")
	return ws, strings.TrimSpace(gittest.Git(t, ws, "rev-parse", "HEAD"))
}

// tagForAct tags the action's image as act names a local action's image,
// and when the test ends gives the tag back to the image it named before,
// or removes it when it named nothing (only when the image keeps another
// name: removing its last name would delete the image).
//
// The act tests hold the tag one at a time (actTag): one's cleanup must not
// take the tag from another's act run.
func tagForAct(t *testing.T, cl *client.Client, action string) {
	t.Helper()
	actTag.Lock()
	t.Cleanup(actTag.Unlock) // registered first: runs after the tag is given back
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	before := ""
	if ins, err := cl.ImageInspect(ctx, actActionImage); err == nil {
		before = ins.ID
	} else if !errdefs.IsNotFound(err) {
		t.Fatalf("inspecting %s: %v", actActionImage, err)
	}
	if err := cl.ImageTag(ctx, action, actActionImage); err != nil {
		t.Fatalf("tagging the action's image as %s: %v", actActionImage, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if before != "" && before != action {
			if err := cl.ImageTag(ctx, before, actActionImage); err != nil {
				t.Errorf("giving %s back to %s: %v", actActionImage, before, err)
			}
			return
		}
		if before == action {
			return // it was already ours
		}
		ins, err := cl.ImageInspect(ctx, actActionImage)
		if err != nil || ins.ID != action || len(ins.RepoTags) < 2 {
			return // retagged by someone else, or our image's only name
		}
		if _, err := cl.ImageRemove(ctx, actActionImage, image.RemoveOptions{}); err != nil && !errdefs.IsNotFound(err) {
			t.Errorf("removing the tag %s: %v", actActionImage, err)
		}
	})
}

// actTag serializes the tests that run act: each tags the action's image
// as actActionImage for its run (tagForAct).
var actTag sync.Mutex

// daemonObject is a container, volume or network the daemon created.
type daemonObject struct{ kind, id, name string }

// actToolCache is the volume act keeps its tool cache in between runs.
const actToolCache = "act-toolcache"

// watchActObjects records every container, volume and network whose name
// starts with "act-" that the daemon creates until the returned function is
// called, which returns them (snapshot returns those seen so far); when
// the test ends it removes those that are still there, so that a failed act
// run leaves nothing. act's tool cache is kept when it was there before and
// removed when this run made it. Call it after tagForAct: under its lock no
// other act run can make the cache in between (a test that looked before
// waiting kept the cache another test had made, and left it behind).
func watchActObjects(t *testing.T, cl *client.Client) (snapshot, stop func() []daemonObject) {
	t.Helper()
	var keepVolumes []string
	if _, err := cl.VolumeInspect(context.Background(), actToolCache); err == nil {
		keepVolumes = append(keepVolumes, actToolCache)
	}
	var (
		mu   sync.Mutex
		seen []daemonObject
	)
	stopFollowing := followEvents(t, cl, filters.NewArgs(
		filters.Arg("type", string(events.ContainerEventType)),
		filters.Arg("type", string(events.VolumeEventType)),
		filters.Arg("type", string(events.NetworkEventType)),
		filters.Arg("event", string(events.ActionCreate)),
	), func(m events.Message) {
		name := m.Actor.Attributes["name"]
		if m.Type == events.VolumeEventType {
			name = m.Actor.ID // a volume's ID is its name
		}
		if strings.HasPrefix(name, "act-") {
			o := daemonObject{kind: string(m.Type), id: m.Actor.ID, name: name}
			mu.Lock()
			if !slices.Contains(seen, o) { // a volume's create event comes with every use
				seen = append(seen, o)
			}
			mu.Unlock()
		}
	})
	snapshot = func() []daemonObject {
		mu.Lock()
		defer mu.Unlock()
		return append([]daemonObject(nil), seen...)
	}
	stop = func() []daemonObject {
		stopFollowing()
		return snapshot()
	}
	t.Cleanup(func() {
		objs := stop()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var errs []error
		// Containers first: a volume or network in use cannot go.
		for _, kind := range []string{"container", "volume", "network"} {
			for _, o := range objs {
				if o.kind != kind {
					continue
				}
				var err error
				switch kind {
				case "container":
					err = cl.ContainerRemove(ctx, o.id, container.RemoveOptions{Force: true, RemoveVolumes: true})
				case "volume":
					keep := false
					for _, k := range keepVolumes {
						keep = keep || o.name == k
					}
					if keep {
						continue
					}
					err = cl.VolumeRemove(ctx, o.name, true)
				case "network":
					err = cl.NetworkRemove(ctx, o.id)
				}
				if err != nil && !errdefs.IsNotFound(err) {
					errs = append(errs, fmt.Errorf("removing act's %s %s: %w", kind, o.name, err))
				}
			}
		}
		if err := errors.Join(errs...); err != nil {
			t.Error(err)
		}
	})
	return snapshot, stop
}

// exists says whether the daemon still has o.
func (o daemonObject) exists(t *testing.T, cl *client.Client) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var err error
	switch o.kind {
	case "container":
		_, err = cl.ContainerInspect(ctx, o.id)
	case "volume":
		_, err = cl.VolumeInspect(ctx, o.name)
	case "network":
		_, err = cl.NetworkInspect(ctx, o.id, network.InspectOptions{})
	}
	if errdefs.IsNotFound(err) {
		return false
	}
	if err != nil {
		t.Errorf("inspecting act's %s %s: %v", o.kind, o.name, err)
	}
	return true
}

// workflowStep is a step of a workflow: act's id for it (its id, else its
// index), its name and what it uses.
type workflowStep struct{ id, name, uses string }

// workflowSteps lists the steps of a workflow's one job.
func workflowSteps(workflow []byte) ([]workflowStep, error) {
	var w struct {
		Jobs map[string]struct {
			Steps []struct {
				ID   string `yaml:"id"`
				Name string `yaml:"name"`
				Uses string `yaml:"uses"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(workflow, &w); err != nil {
		return nil, fmt.Errorf("parsing the workflow: %w", err)
	}
	if len(w.Jobs) != 1 {
		return nil, fmt.Errorf("the workflow has %d jobs; this test knows one", len(w.Jobs))
	}
	var steps []workflowStep
	for _, job := range w.Jobs {
		for i, s := range job.Steps {
			id := s.ID
			if id == "" {
				id = strconv.Itoa(i)
			}
			steps = append(steps, workflowStep{id: id, name: cmp.Or(s.Name, s.Uses), uses: s.Uses})
		}
	}
	return steps, nil
}

// actBuildsDockerfile makes act build the action's image from ws's
// Dockerfile: the builder the local build uses (behaves-build/go, with the
// module cache of go.sum) as its BUILDER_IMAGE, the module proxy off, and
// no act-dockeraction image for act to find; when the test ends, the image
// act built is removed and the name given back.
func actBuildsDockerfile(t *testing.T, cl *client.Client, ws string) {
	t.Helper()
	actTag.Lock()
	t.Cleanup(actTag.Unlock)
	ctx := context.Background()
	builder, err := cl.ImageInspect(ctx, "behaves-build/go:latest")
	if err != nil {
		t.Fatalf("the builder image (bash scripts/action-image.sh builds it): %v", err)
	}
	path := filepath.Join(ws, "Dockerfile")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "ARG BUILDER_IMAGE="):
			lines[i] = "ARG BUILDER_IMAGE=" + builder.ID
		case strings.HasPrefix(l, "ARG GOPROXY="):
			lines[i] = "ARG GOPROXY=off"
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Commit(t, ws, "build with the local builder")
	before := ""
	if ins, err := cl.ImageInspect(ctx, actActionImage); err == nil {
		before = ins.ID
		if _, err := cl.ImageRemove(ctx, actActionImage, image.RemoveOptions{}); err != nil {
			t.Fatalf("untagging %s: %v", actActionImage, err)
		}
	}
	t.Cleanup(func() {
		if ins, err := cl.ImageInspect(ctx, actActionImage); err == nil && ins.ID != before {
			_, _ = cl.ImageRemove(ctx, actActionImage, image.RemoveOptions{Force: true})
		}
		if before != "" {
			if err := cl.ImageTag(ctx, before, actActionImage); err != nil {
				t.Errorf("giving %s back to %s: %v", actActionImage, before, err)
			}
		}
	})
}

// watchCreates records, from now until the returned function is called,
// when the daemon creates each container that carries a behaves run ID,
// by run ID. It reads the live event stream: a replay of the daemon's log
// since a time holds only its last 256 events, which a loaded CI machine
// overwrites within seconds.
func watchCreates(t *testing.T, cl *client.Client) (stop func() map[string][]time.Time) {
	t.Helper()
	seen := map[string][]time.Time{}
	stopFollowing := followEvents(t, cl, filters.NewArgs(
		filters.Arg("type", string(events.ContainerEventType)),
		filters.Arg("event", string(events.ActionCreate)),
		filters.Arg("label", "behaves.run-id"),
	), func(m events.Message) {
		id := m.Actor.Attributes["behaves.run-id"]
		seen[id] = append(seen[id], time.Unix(0, m.TimeNano))
	})
	return func() map[string][]time.Time {
		// A container's create event is on the stream long before the
		// run that made it removes it and returns.
		stopFollowing()
		return seen
	}
}

// actSavedRunID reads the run ID that behaves' main step saved as action
// state (GITHUB_STATE: run-id=<id>) from act's job container, the first
// container act created, which holds the step's file commands under
// /var/run/act; "" when the step has not saved one (yet).
func actSavedRunID(cl *client.Client, created func() []daemonObject) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	job := ""
	for _, o := range created() {
		if o.kind == "container" {
			job = o.id
			break
		}
	}
	if job == "" {
		return "", nil // act had not started its job: behaves has not run
	}
	rc, _, err := cl.CopyFromContainer(ctx, job, "/var/run/act/workflow/statecmd.txt")
	if errdefs.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading act's state file: %w", err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	if _, err := tr.Next(); err != nil {
		return "", fmt.Errorf("reading act's state file: %w", err)
	}
	b, err := io.ReadAll(io.LimitReader(tr, 1<<20))
	if err != nil {
		return "", fmt.Errorf("reading act's state file: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if id, ok := strings.CutPrefix(line, "run-id="); ok {
			return id, nil
		}
	}
	return "", nil
}

// sweepRun removes the containers and volumes labelled with runID, as the
// action's post step does.
func sweepRun(t *testing.T, cl *client.Client, runID string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	f := filters.NewArgs(filters.Arg("label", "behaves.run-id="+runID))
	var errs []error
	cs, err := cl.ContainerList(ctx, container.ListOptions{All: true, Filters: f})
	errs = append(errs, err)
	for _, c := range cs {
		if err := cl.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true}); err != nil && !errdefs.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	vs, err := cl.VolumeList(ctx, volume.ListOptions{Filters: f})
	errs = append(errs, err)
	for _, v := range vs.Volumes {
		if err := cl.VolumeRemove(ctx, v.Name, true); err != nil && !errdefs.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		t.Errorf("removing the leftovers of run %s: %v", runID, err)
	}
	t.Logf("removed run %s's leftovers: %d container(s), %d volume(s)", runID, len(cs), len(vs.Volumes))
}

// annotation is an annotation act read from a step's log: level, file and
// line, and the title.
type annotation struct {
	level, file string
	line        int
	title       string
}

func (a annotation) String() string {
	return fmt.Sprintf("%s %s:%d %q", a.level, a.file, a.line, a.title)
}

// actAnnotations returns the annotations act read from a step's main
// stage, in order, and fails the test on any other workflow command act
// acted on there: behaves prints annotations, its stop-commands regions
// (each closed by its token) and notices, nothing else.
func actAnnotations(t *testing.T, log actLog, stepID string) []annotation {
	t.Helper()
	var got []annotation
	var others []string
	open := ""
	for _, e := range log.stage(stepID, "Main") {
		if e.Raw == "" {
			continue // not a workflow command
		}
		switch {
		case open != "" && e.Command == "ignored":
			// a line act left alone inside a stop-commands region
		case open != "":
			if e.Command != open {
				others = append(others, "inside a stop-commands region: "+e.Raw)
			}
			open = ""
		case e.Command == "stop-commands":
			if len(e.Arg) < 16 {
				others = append(others, "a short stop-commands token: "+e.Raw)
			}
			open = e.Arg
		case e.Command == "error" || e.Command == "warning":
			line, _ := strconv.Atoi(e.KVPairs["line"])
			got = append(got, annotation{e.Command, e.KVPairs["file"], line, e.KVPairs["title"]})
		case e.Command == "notice":
			t.Logf("behaves' notice in step %s: %s", stepID, e.Arg)
		default:
			others = append(others, e.Raw)
		}
	}
	if open != "" {
		others = append(others, "a stop-commands region left open: "+open)
	}
	if len(others) > 0 {
		t.Errorf("act acted on workflow commands behaves should not have printed in step %s: %q", stepID, others)
	}
	return got
}

// folderExample is the example the self-test's folder step runs.
const folderExample = "examples/python-package"

// actFolderStep checks the self-test's second `uses: ./` step (id
// folder), the action on examples/python-package: its outputs, its report
// (this run's, nothing of it left) and the annotations act read, which are
// exactly those the example's expected.json states for `behaves publish`,
// in the same order: among them the error at the line of the module that
// raised (tool/parsing.py), not at the package's entry.
func actFolderStep(t *testing.T, cl *client.Client, log actLog, ws string) {
	t.Helper()
	const reportPath = "behaves-report-folder.json"
	data, err := os.ReadFile(filepath.Join(ws, reportPath))
	if err != nil {
		t.Fatalf("no report of the folder step in the workspace: %v\n%s", err, log.dump())
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("the folder step's report is not valid JSON: %v", err)
	}
	schematest.Check(t, "the report the folder step wrote", data)
	dockertest.AssertNothingLeft(t, cl, rep.RunID)
	if rep.SpecFile != folderExample+"/behaves.yml" {
		t.Errorf("the folder step's report: spec_file %q, want %s/behaves.yml", rep.SpecFile, folderExample)
	}

	b, err := os.ReadFile(filepath.Join(repoRoot(t), folderExample, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want exampleExpectation
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("%s/expected.json: %v", folderExample, err)
	}
	gotVerdicts := map[string]verdict.Verdict{}
	for _, p := range rep.Programs {
		gotVerdicts[p.Name] = p.Verdict
	}
	if fmt.Sprint(gotVerdicts) != fmt.Sprint(want.Programs) {
		t.Errorf("the folder step's verdicts %v, want %v", gotVerdicts, want.Programs)
	}
	pc := rep.Counts.Programs
	wantOutputs := map[string]string{
		"verdict": "false", "report": reportPath,
		"total": strconv.Itoa(pc.Total), "true": strconv.Itoa(pc.True),
		"false": strconv.Itoa(pc.False), "undetermined": strconv.Itoa(pc.Undetermined),
	}
	if got := log.outputs(t, "folder"); fmt.Sprint(got) != fmt.Sprint(wantOutputs) {
		t.Errorf("the folder step's outputs %v, want %v", got, wantOutputs)
	}

	got := actAnnotations(t, log, "folder")
	if len(want.Annotations) == 0 {
		t.Fatalf("%s/expected.json states no annotations", folderExample)
	}
	var wantAnns []annotation
	for _, a := range want.Annotations {
		wantAnns = append(wantAnns, annotation{a.Level, a.File, a.Line, a.Title})
	}
	if fmt.Sprint(got) != fmt.Sprint(wantAnns) {
		t.Errorf("act read the folder step's annotations\n%s\nwant (%s/expected.json)\n%s", indent(fmt.Sprint(got)), folderExample, indent(fmt.Sprint(wantAnns)))
	}
	module := false
	for _, a := range got {
		module = module || a.file == folderExample+"/versions/refactor/tool/parsing.py"
	}
	if !module {
		t.Errorf("act read no annotation at the module that raised, %s/versions/refactor/tool/parsing.py: %v", folderExample, got)
	}
}

// TestActSelfTest runs the self-test workflow under nektos/act against the
// real daemon and checks what a workflow author would see: the job
// succeeds (the behaves step fails on the demo's false samples, which
// continue-on-error lets through, and the workflow's own check of the
// step's outputs passes); act took the step's outputs (verdict false and
// the report's counts), its job summary with the headline and a row per
// program, and the annotations behaves printed as workflow commands: an
// error at each false case's line in the spec and one at each false
// program's file, nothing else act acted on but behaves' stop-commands
// regions and a notice; the post step ran the image's behaves-post; the
// report in the workspace belongs to this run and commit; and nothing of
// the run (labelled with its run ID) or of act (its job container and
// volumes) is left. The workflow's second behaves step runs the action on
// examples/python-package, a program that is a folder: act read exactly
// the annotations its expected.json states for `behaves publish`, among
// them the one at the line of the module that raised (actFolderStep).
func TestActSelfTest(t *testing.T) {
	t.Parallel()
	actSelfTest(t, nil, false)
}

// TestActDockerfileBuild is TestActSelfTest with act building the action's
// image from the Dockerfile, as a runner does for image: Dockerfile, with
// the builder image already present (the locally built behaves-build/go
// as the Dockerfile's BUILDER_IMAGE, GOPROXY off): to measure the time from
// act's start to the first program container on that path. It takes
// minutes, so it runs only with BEHAVES_ACT_DOCKERFILE_BUILD=1.
func TestActDockerfileBuild(t *testing.T) {
	if os.Getenv("BEHAVES_ACT_DOCKERFILE_BUILD") != "1" {
		t.Skip("BEHAVES_ACT_DOCKERFILE_BUILD=1 runs it (a measurement: minutes)")
	}
	actSelfTest(t, nil, true)
}

// TestActReleasedAction releases this checkout's HEAD to the loopback
// registry (package release, as scripts/release.sh does), and runs the
// self-test workflow under act with the release's action.yml: act pulls the
// image by its digest and builds nothing, and the job, its outputs, the
// summary, the annotations and the report are what TestActSelfTest finds
// for the image: Dockerfile path. It logs the time from act's start to the
// first program container of each path.
func TestActReleasedAction(t *testing.T) {
	t.Parallel()
	requireAct(t)
	ref := dockertest.RegistryDigest(t)
	registry, _, _ := strings.Cut(ref, "/")
	dockertest.Image(t, "BEHAVES_IMAGE_ACTION") // the image the Dockerfile path's checks compare with
	rel, err := release.Build(context.Background(), release.Options{Registry: registry, Out: t.TempDir(),
		Name: "behaves-test/act-release", Repo: repoRoot(t), Log: t.Logf})
	if err != nil {
		t.Fatalf("releasing HEAD: %v", err)
	}
	actSelfTest(t, rel, false)
}

// actSelfTest is TestActSelfTest, of the image: Dockerfile path (rel nil:
// the action's image, tagged as act names a local action's, or with build
// set built by act from the Dockerfile) or of a release (its action.yml in
// the workspace, its image pulled by act).
func actSelfTest(t *testing.T, rel *release.Release, build bool) {
	actBin, runnerImage := requireAct(t)
	cl := dockertest.Client(t)
	action := dockertest.Image(t, "BEHAVES_IMAGE_ACTION")
	python := dockertest.Image(t, "BEHAVES_IMAGE_PYTHON")
	busybox := dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")
	root := repoRoot(t)

	orig, err := os.ReadFile(filepath.Join(root, selfTestPath))
	if err != nil {
		t.Fatal(err)
	}
	workflow, err := deriveSelfTest(orig, map[string]string{"python": python, "shell": busybox})
	if err != nil {
		t.Fatalf("deriving the act copy of %s: %v", selfTestPath, err)
	}
	ws, head := copyRepo(t, root)
	actionImage := actActionImage
	switch {
	case build:
		actBuildsDockerfile(t, cl, ws)
		head = strings.TrimSpace(gittest.Git(t, ws, "rev-parse", "HEAD"))
	case rel == nil:
		tagForAct(t, cl, action)
	default:
		// The release's action.yml, committed as a release is; its image
		// not on the daemon, so that act pulls it.
		b, err := os.ReadFile(filepath.Join(rel.Out, "action.yml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, "action.yml"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		gittest.Commit(t, ws, "release: the action runs the image by digest")
		head = strings.TrimSpace(gittest.Git(t, ws, "rev-parse", "HEAD"))
		actionImage = rel.Reference
		actTag.Lock() // one act run at a time (see tagForAct)
		t.Cleanup(actTag.Unlock)
		if _, err := cl.ImageRemove(context.Background(), rel.Reference, image.RemoveOptions{Force: true}); err != nil && !errdefs.IsNotFound(err) {
			t.Fatalf("removing the daemon's copy of %s: %v", rel.Reference, err)
		}
		t.Cleanup(func() { _, _ = cl.ImageRemove(context.Background(), rel.Reference, image.RemoveOptions{Force: true}) })
	}
	created, stopWatching := watchActObjects(t, cl)
	cmd := actPush(t, actBin, runnerImage, ws, head, "self-test.yml", string(workflow))

	// Past the timeout, act is interrupted (it then cancels the job: it
	// removes the running step's container, killing behaves, runs the post
	// steps and removes its job container), and killed only if that does
	// not end it. The post step would remove the behaves run's leftovers,
	// but act gives it no state: read the run ID the main step saved from
	// the job container first, and sweep the run when the test ends.
	var cancelled struct {
		runID string
		err   error
	}
	cmd.Cancel = func() error {
		cancelled.runID, cancelled.err = actSavedRunID(cl, created)
		return cmd.Process.Signal(os.Interrupt)
	}
	t.Cleanup(func() {
		if cancelled.err != nil {
			t.Errorf("act ran out of time, and the run ID behaves saved could not be read: its containers may be left: %v", cancelled.err)
		}
		if cancelled.runID != "" {
			sweepRun(t, cl, cancelled.runID)
		}
	})
	creates := watchCreates(t, cl)
	actStart := time.Now()
	log, objs := runAct(t, cmd, stopWatching)
	dump := log.dump

	// The job and each step.
	jobResult := ""
	for _, e := range log.entries {
		if e.JobResult != "" {
			jobResult = e.JobResult
		}
	}
	if jobResult != "success" {
		t.Errorf("act's job result %q, want success\n%s", jobResult, dump())
	}
	// Every step of the workflow succeeds (actions/checkout of the
	// workflow's own repository too: act skips it), but the action's two,
	// which fail on the demo's and the folder example's false programs
	// (continue-on-error), and whose post steps succeed.
	steps, err := workflowSteps(workflow)
	if err != nil {
		t.Fatal(err)
	}
	var actionSteps []string
	for _, s := range steps {
		want := "success"
		if s.uses == "./" {
			want, actionSteps = "failure", append(actionSteps, s.id)
		}
		if got := log.result(s.id, "Main"); got != want {
			t.Errorf("step %s (%s): result %q, want %q", s.id, s.name, got, want)
		}
	}
	if fmt.Sprint(actionSteps) != "[behaves folder]" {
		t.Fatalf("the workflow's `uses: ./` steps have the ids %q, want behaves (the demo) and folder (examples/python-package)", actionSteps)
	}
	for _, id := range actionSteps {
		if got := log.result(id, "Post"); got != "success" {
			t.Errorf("the post step of %s: result %q, want success", id, got)
		}
	}
	if got, want := log.outputs(t, imagesStepID), map[string]string{"python": python, "shell": busybox}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the images step's outputs %v, want the local images %v", got, want)
	}

	// The report the step wrote into the workspace: this run's, this commit's.
	data, err := os.ReadFile(filepath.Join(ws, "behaves-report.json"))
	if err != nil {
		t.Fatalf("no report in the workspace: %v\n%s", err, dump())
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("the report is not valid JSON: %v", err)
	}
	schematest.Check(t, "the report the action wrote", data)
	dockertest.AssertNothingLeft(t, cl, rep.RunID)
	path := "image: Dockerfile (the image built already)"
	switch {
	case rel != nil:
		path = "the released image, pulled by digest"
	case build:
		path = "image: Dockerfile, built by act (the builder image present)"
	}
	if at := creates()[rep.RunID]; len(at) == 0 {
		t.Errorf("the daemon created no container of the run %s", rep.RunID)
	} else {
		t.Logf("%s: %s from act's start to the first program container", path, at[0].Sub(actStart).Round(time.Millisecond))
	}
	wantVerdicts := map[string]verdict.Verdict{
		"fizzbuzz":                verdict.True,
		"samples/a_correct.py":    verdict.True,
		"samples/b_off_by_one.py": verdict.False,
		"samples/c_never_ends.py": verdict.False,
		"greet":                   verdict.True,
	}
	gotVerdicts := map[string]verdict.Verdict{}
	for _, p := range rep.Programs {
		gotVerdicts[p.Name] = p.Verdict
	}
	if fmt.Sprint(gotVerdicts) != fmt.Sprint(wantVerdicts) {
		t.Errorf("the demo's verdicts %v, want %v", gotVerdicts, wantVerdicts)
	}
	if rep.SpecFile != "demo/behaves.yml" {
		t.Errorf("report spec_file %q, want demo/behaves.yml", rep.SpecFile)
	}
	if g := rep.GitHub; g.EventName != "push" || g.Repository != "behaves-dev/behaves" || g.SHA != head || g.HeadSHA != head {
		t.Errorf("the report's github %+v: want a push of behaves-dev/behaves at %s", g, head)
	}
	if want := committedVersion(t); rep.Tool.Version != want {
		t.Errorf("the report's tool.version %q, want the committed %q", rep.Tool.Version, want)
	}

	// The step's outputs, as act took them from GITHUB_OUTPUT: exactly the
	// enumerated ones, agreeing with the report.
	pc := rep.Counts.Programs
	wantOutputs := map[string]string{
		"verdict": "false", "report": "behaves-report.json",
		"total": strconv.Itoa(pc.Total), "true": strconv.Itoa(pc.True),
		"false": strconv.Itoa(pc.False), "undetermined": strconv.Itoa(pc.Undetermined),
	}
	if pc.Total != 5 || pc.True != 3 || pc.False != 2 || pc.Undetermined != 0 {
		t.Errorf("the report counts %+v programs, want 5: 3 true, 2 false", pc)
	}
	if got := log.outputs(t, "behaves"); fmt.Sprint(got) != fmt.Sprint(wantOutputs) {
		t.Errorf("the behaves step's outputs %v, want %v\n%s", got, wantOutputs, dump())
	}

	// The job summary act read from GITHUB_STEP_SUMMARY: the headline and a
	// row per program.
	var summaries []string
	for _, e := range log.stage("behaves", "Main") {
		if e.Command == "summary" {
			summaries = append(summaries, e.Content)
		}
	}
	if len(summaries) != 1 {
		t.Fatalf("act logged %d job summaries for the behaves step, want 1\n%s", len(summaries), dump())
	}
	summary := summaries[0]
	if !strings.HasPrefix(summary, "## ") || !strings.Contains(summary, publish.Headline(rep)) {
		t.Errorf("the job summary does not start with a heading holding %q:\n%s", publish.Headline(rep), summary)
	}
	for name := range wantVerdicts {
		if !strings.Contains(summary, "| `"+name+"` |") {
			t.Errorf("the job summary has no row for %s:\n%s", name, summary)
		}
	}

	// The workflow commands act acted on in the behaves step: the
	// annotations, behaves' stop-commands regions (each closed by its
	// token) and a notice; nothing else.
	got := actAnnotations(t, log, "behaves")
	// Want: each false case at its line in the spec, each false program at
	// its file (the line is behaves' choice: a traceback's or 1), each
	// undetermined case as a warning.
	var want []annotation
	for _, p := range rep.Programs {
		for _, c := range p.Cases {
			level := map[verdict.Verdict]string{verdict.False: "error", verdict.Undetermined: "warning"}[c.Verdict]
			if level != "" {
				want = append(want, annotation{level, rep.SpecFile, c.Line, p.Name + " / " + c.Name})
			}
		}
	}
	fileLines := map[string]int{}
	for _, a := range got {
		if a.file != rep.SpecFile {
			fileLines[a.file] = a.line
		}
	}
	for _, p := range rep.Programs {
		if p.Verdict == verdict.False {
			first := ""
			for _, c := range p.Cases {
				if c.Verdict == verdict.False {
					first = c.Name
					break
				}
			}
			want = append(want, annotation{"error", p.File, fileLines[p.File], p.Name + " / " + first})
		}
	}
	sortAnnotations := func(as []annotation) string {
		s := make([]string, len(as))
		for i, a := range as {
			s[i] = a.String()
		}
		sort.Strings(s)
		return strings.Join(s, "\n")
	}
	if g, w := sortAnnotations(got), sortAnnotations(want); g != w {
		t.Errorf("act read the annotations\n%s\nwant\n%s", indent(g), indent(w))
	}
	for file, line := range fileLines {
		if line < 1 {
			t.Errorf("the annotation at %s has line %d", file, line)
		}
	}

	actFolderStep(t, cl, log, ws)

	// The post step: act started the image's behaves-post, which exited 0.
	// act gives it no STATE_run-id (see above), so it has nothing to remove.
	post := log.stage("behaves", "Post")
	startedPost := false
	for _, e := range post {
		startedPost = startedPost || (strings.Contains(e.Msg, "docker run image="+actionImage) &&
			strings.Contains(e.Msg, `entrypoint=["/usr/local/bin/behaves-post"]`))
	}
	if !startedPost {
		t.Errorf("act did not start %s with the post-entrypoint /usr/local/bin/behaves-post\n%s", actionImage, dump())
	}
	var postOut []string
	for _, e := range post {
		if e.RawOutput {
			postOut = append(postOut, e.Msg)
		}
	}
	t.Logf("the post step printed: %q", postOut)

	// act used the image under test: it did not rebuild it; a release's
	// it pulled by digest, and built nothing.
	switch {
	case build:
		built := false
		for _, e := range log.entries {
			built = built || strings.Contains(e.Msg, "docker build")
		}
		if !built {
			t.Errorf("act's log shows no docker build of the Dockerfile\n%s", dump())
		}
	case rel == nil:
		if ins, err := cl.ImageInspect(context.Background(), actActionImage); err != nil || ins.ID != action {
			t.Errorf("%s is %s after act (err %v), want the action's image %s: act rebuilt it", actActionImage, ins.ID, err, action)
		}
	default:
		pulled := false
		for _, e := range log.entries {
			if strings.Contains(e.Msg, "docker build") || strings.Contains(e.Msg, "Building image") {
				t.Errorf("act built an image for the released action: %q", e.Msg)
			}
			pulled = pulled || strings.Contains(e.Msg, "docker pull image="+rel.Reference)
		}
		if !pulled {
			t.Errorf("act's log shows no pull of %s\n%s", rel.Reference, dump())
		}
		if ins, err := cl.ImageInspect(context.Background(), rel.Reference); err != nil || len(ins.RepoDigests) == 0 {
			t.Errorf("the daemon has no %s after act (err %v)", rel.Reference, err)
		}
	}

	// act's own objects: the job container and the step containers removed,
	// its volumes too (but the tool cache, which act keeps by design);
	// nothing of the run left (checked above by its label).
	var jobContainers int
	for _, o := range objs {
		if o.kind == "container" && strings.HasPrefix(o.name, "act-self-test-demo") {
			jobContainers++
		}
		if o.name == actToolCache {
			continue
		}
		if o.exists(t, cl) {
			t.Errorf("act left its %s %s", o.kind, o.name)
		}
	}
	// The job container, the two steps of the action (main, post).
	if jobContainers < 3 {
		t.Errorf("saw %d containers of act's job created, want at least 3 (the job, behaves' main and post): %v", jobContainers, objs)
	}
	t.Logf("act created %d objects: %v", len(objs), objs)
}
