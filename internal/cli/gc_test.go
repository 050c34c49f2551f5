package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"

	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/runner/docker"
)

// fakeSweeper plans what it is given and records what it is asked to do.
type fakeSweeper struct {
	plan      []runner.Planned
	planErr   error
	removeErr map[string]error // by leftover name

	mu        sync.Mutex
	olderThan []time.Duration
	removed   []string
	closed    int
}

func (f *fakeSweeper) Plan(ctx context.Context, olderThan time.Duration) ([]runner.Planned, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.olderThan = append(f.olderThan, olderThan)
	return f.plan, f.planErr
}

func (f *fakeSweeper) Remove(ctx context.Context, r runner.LeftoverRun) []runner.Removal {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []runner.Removal
	for _, l := range append(append([]runner.LeftoverObject{}, r.Containers...), r.Volumes...) {
		f.removed = append(f.removed, l.Name)
		out = append(out, runner.Removal{LeftoverObject: l, Err: f.removeErr[l.Name]})
	}
	return out
}

func (f *fakeSweeper) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed++
	return nil
}

func (f *fakeSweeper) factory() func() (runner.Sweeper, error) {
	return func() (runner.Sweeper, error) { return f, nil }
}

var gcStarted = time.Date(2025, 6, 1, 11, 0, 0, 0, time.UTC)

// planned is a run of n containers and n volumes with a decision.
func planned(id string, n int, remove, dead bool, reason string) runner.Planned {
	r := runner.LeftoverRun{ID: id, Owner: runner.Owner{RunID: id, Host: "here", PID: 4242, StartedAt: gcStarted}}
	for i := range n {
		r.Containers = append(r.Containers, runner.LeftoverObject{Kind: runner.KindContainer, ID: "cid-" + id, Name: fmt.Sprintf("behaves-%s-%d", id, i+1), Role: docker.RoleProgram})
		r.Volumes = append(r.Volumes, runner.LeftoverObject{Kind: runner.KindVolume, ID: fmt.Sprintf("vol-%s-%d", id, i+1), Name: fmt.Sprintf("vol-%s-%d", id, i+1), Role: docker.RoleVolume})
	}
	return runner.Planned{LeftoverRun: r, Decision: runner.Decision{Remove: remove, Dead: dead, Reason: reason}}
}

func gcMain(t *testing.T, newSweeper func() (runner.Sweeper, error), args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), append([]string{"gc"}, args...), Env{Stdout: &out, Stderr: &errOut, NewSweeper: newSweeper})
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

func TestGCRemovesWhatThePlanSays(t *testing.T) {
	t.Parallel()
	sw := &fakeSweeper{plan: []runner.Planned{
		planned("dead1", 2, true, true, "its owner, pid 4242 on this host, is gone"),
		planned("live1", 1, false, false, "its owner, pid 4242 on this host, is still running"),
	}}
	r := gcMain(t, sw.factory())
	if r.code != ExitTrue || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if got, want := strings.Join(sw.removed, " "), "behaves-dead1-1 behaves-dead1-2 vol-dead1-1 vol-dead1-2"; got != want {
		t.Errorf("removed %s, want %s", got, want)
	}
	want := `removing run dead1 (pid 4242 on here, started 2025-06-01T11:00:00Z): its owner, pid 4242 on this host, is gone
  removed container behaves-dead1-1 (program)
  removed container behaves-dead1-2 (program)
  removed volume vol-dead1-1 (volume)
  removed volume vol-dead1-2 (volume)
kept run live1 (pid 4242 on here, started 2025-06-01T11:00:00Z): its owner, pid 4242 on this host, is still running
removed 2 containers and 2 volumes of 1 run; kept 1 run
`
	if r.stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.stdout, want)
	}
	if len(sw.olderThan) != 1 || sw.olderThan[0] != 0 || sw.closed != 1 {
		t.Errorf("olderThan %v, closed %d; want [0], 1", sw.olderThan, sw.closed)
	}
}

func TestGCDryRunRemovesNothing(t *testing.T) {
	t.Parallel()
	sw := &fakeSweeper{plan: []runner.Planned{planned("dead1", 1, true, true, "gone")}}
	r := gcMain(t, sw.factory(), "--dry-run")
	if r.code != ExitTrue || len(sw.removed) > 0 {
		t.Fatalf("exit %d, removed %v", r.code, sw.removed)
	}
	for _, line := range []string{"would remove run dead1", "  would remove container behaves-dead1-1 (program)", "  would remove volume vol-dead1-1 (volume)", "would remove 1 container and 1 volume of 1 run"} {
		if !strings.Contains(r.stdout, line) {
			t.Errorf("stdout lacks %q:\n%s", line, r.stdout)
		}
	}
}

func TestGCFailedRemovalIsListedAndExits4(t *testing.T) {
	t.Parallel()
	sw := &fakeSweeper{
		plan:      []runner.Planned{planned("dead1", 2, true, true, "gone"), planned("dead2", 1, true, true, "gone")},
		removeErr: map[string]error{"behaves-dead1-1": errors.New("removing container behaves-dead1-1: engine says no")},
	}
	r := gcMain(t, sw.factory())
	if r.code != ExitRunFailed {
		t.Errorf("exit %d, want %d", r.code, ExitRunFailed)
	}
	// One failure does not stop the others.
	if len(sw.removed) != 6 {
		t.Errorf("removed %v, want every leftover tried", sw.removed)
	}
	if !strings.Contains(r.stderr, "run dead1: removing container behaves-dead1-1: engine says no") || !strings.Contains(r.stderr, "1 removal failed") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	if strings.Contains(r.stdout, "removed container behaves-dead1-1 ") || !strings.Contains(r.stdout, "removed 2 containers and 3 volumes of 2 runs") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
}

func TestGCNothingToDo(t *testing.T) {
	t.Parallel()
	r := gcMain(t, (&fakeSweeper{}).factory())
	if r.code != ExitTrue || !strings.Contains(r.stdout, "nothing to remove") {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestGCDockerUnreachableExits4(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]func() (runner.Sweeper, error){
		"list fails":   (&fakeSweeper{planErr: errors.New("listing containers labelled behaves.run-id: Cannot connect to the Docker daemon")}).factory(),
		"client fails": func() (runner.Sweeper, error) { return nil, errors.New("creating the Docker client: bad DOCKER_HOST") },
		"no factory":   nil,
	} {
		r := gcMain(t, f)
		if r.code != ExitRunFailed || r.stderr == "" {
			t.Errorf("%s: exit %d, stderr %q; want %d and a reason", name, r.code, r.stderr, ExitRunFailed)
		}
	}
}

func TestGCOlderThan(t *testing.T) {
	t.Parallel()
	for arg, want := range map[string]time.Duration{"90m": 90 * time.Minute, "24h": 24 * time.Hour, "7d": 7 * 24 * time.Hour} {
		sw := &fakeSweeper{}
		if r := gcMain(t, sw.factory(), "--older-than", arg); r.code != ExitTrue || len(sw.olderThan) != 1 || sw.olderThan[0] != want {
			t.Errorf("--older-than %s: exit %d, planned with %v; want %v", arg, r.code, sw.olderThan, want)
		}
	}
	for _, args := range [][]string{
		{"--older-than", "soon"},
		{"--older-than", "0"},
		{"--older-than", "0d"},
		{"--older-than", "-1h"},
		{"--older-than", "1.5d"},
		{"--bogus"},
		{"extra"},
	} {
		sw := &fakeSweeper{}
		r := gcMain(t, sw.factory(), args...)
		if r.code != ExitUsage || r.stderr == "" || len(sw.olderThan) > 0 {
			t.Errorf("%q: exit %d, stderr %q, planned %v; want %d, a reason, no plan", args, r.code, r.stderr, sw.olderThan, ExitUsage)
		}
	}
}

// Labels are written by whoever reaches the daemon: what gc prints from them
// must not drive a terminal or the Actions runner.
func TestGCPrintsLabelsInert(t *testing.T) {
	t.Parallel()
	p := planned("x\x1b[2J\n::error::boom ##[error]bad", 1, true, true, "gone")
	p.Owner.Host = "h\r\u202eost"
	sw := &fakeSweeper{plan: []runner.Planned{p}}
	r := gcMain(t, sw.factory(), "--dry-run")
	out := r.stdout + r.stderr
	for _, bad := range []string{"\x1b", "\r", "\u202e", "##["} {
		if strings.Contains(out, bad) {
			t.Errorf("output holds %q:\n%s", bad, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "::") {
			t.Errorf("a line the runner would act on: %q", line)
		}
	}
}

// spec with one program and one case, for the run warning tests.
func oneCaseSpec(t *testing.T) string {
	return writeSpec(t, map[string]string{
		"behaves.yml": `version: 1
profiles:
  sh: {image: "` + testImage + `", command: ["/bin/sh"]}
programs:
  - {name: p, file: prog.sh, profile: sh, cases: [{name: c1}]}
`,
		"prog.sh": "true\n",
	})
}

func runWithSweeper(t *testing.T, newSweeper func() (runner.Sweeper, error)) result {
	t.Helper()
	zero := 0
	var out, errOut bytes.Buffer
	args := []string{"run", "--spec", oneCaseSpec(t), "--report", filepath.Join(t.TempDir(), "r.json")}
	code := Main(context.Background(), args, Env{
		Stdout: &out, Stderr: &errOut,
		NewSandbox: fixed(&recordingSandbox{ev: runner.Event{ExitCode: &zero}}),
		NewSweeper: newSweeper,
	})
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

func TestRunWarnsAboutDeadRunsOnly(t *testing.T) {
	t.Parallel()
	sw := &fakeSweeper{plan: []runner.Planned{
		planned("dead1", 2, true, true, "its owner, pid 4242 on this host, is gone"),
		planned("live1", 1, false, false, "still running"),
		planned("other", 1, false, false, "another host"),
	}}
	r := runWithSweeper(t, sw.factory())
	if r.code != ExitTrue {
		t.Fatalf("exit %d, want %d (a warning never changes the outcome)\nstderr: %s", r.code, ExitTrue, r.stderr)
	}
	want := "behaves: warning: run dead1 (pid 4242 on here, started 2025-06-01T11:00:00Z) left 2 containers and 2 volumes: its owner, pid 4242 on this host, is gone; `behaves gc` removes them\n"
	if r.stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", r.stderr, want)
	}
	if len(sw.removed) > 0 || len(sw.olderThan) != 1 || sw.olderThan[0] != 0 || sw.closed != 1 {
		t.Errorf("run removed %v, planned with %v, closed %d; want nothing removed, one plan without --older-than, closed", sw.removed, sw.olderThan, sw.closed)
	}
}

func TestRunWarningIsCapped(t *testing.T) {
	t.Parallel()
	sw := &fakeSweeper{}
	for i := range maxStaleLines + 3 {
		sw.plan = append(sw.plan, planned("dead"+strconv.Itoa(i), 1, true, true, "gone"))
	}
	r := runWithSweeper(t, sw.factory())
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != maxStaleLines+1 || !strings.Contains(lines[maxStaleLines], "and 3 more stale runs") {
		t.Errorf("stderr has %d lines, want %d and a count:\n%s", len(lines), maxStaleLines+1, r.stderr)
	}
}

func TestRunNeverFailsBecauseTheLookFailed(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]func() (runner.Sweeper, error){
		"list fails":   (&fakeSweeper{planErr: errors.New("listing volumes: engine hung up")}).factory(),
		"client fails": func() (runner.Sweeper, error) { return nil, errors.New("bad DOCKER_HOST") },
	} {
		r := runWithSweeper(t, f)
		if r.code != ExitTrue || !strings.Contains(r.stderr, "behaves: warning: could not look for leftovers of earlier runs") {
			t.Errorf("%s: exit %d, stderr %q; want %d and a warning", name, r.code, r.stderr, ExitTrue)
		}
	}
	if r := runWithSweeper(t, nil); r.code != ExitTrue || r.stderr != "" {
		t.Errorf("no sweeper: exit %d, stderr %q", r.code, r.stderr)
	}
}

// --- against the real daemon ---

// gcTestPrefix marks the run IDs of TestGCOnTheRealDaemon; each test run
// adds a random part, and gc there is restricted to its own prefix.
const gcTestPrefix = "test-gc-"

// fakeRun creates what a run with these owner labels would leave: a
// volume and a created, never-started container that mounts it. Its
// cleanup (registered first) removes whatever gc left.
func fakeRun(t *testing.T, cl *client.Client, img, runID string, lbl map[string]string) {
	t.Helper()
	lbl[runner.LabelRunID] = runID
	byRun := filters.NewArgs(filters.Arg("label", runner.LabelRunID+"="+runID))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cs, err := cl.ContainerList(ctx, container.ListOptions{All: true, Filters: byRun})
		if err != nil {
			t.Errorf("cleanup: listing containers of %s: %v", runID, err)
		}
		for _, c := range cs {
			if err := cl.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
				t.Errorf("cleanup: %v", err)
			}
		}
		vs, err := cl.VolumeList(ctx, volume.ListOptions{Filters: byRun})
		if err != nil {
			t.Errorf("cleanup: listing volumes of %s: %v", runID, err)
		}
		for _, v := range vs.Volumes {
			if err := cl.VolumeRemove(ctx, v.Name, false); err != nil {
				t.Errorf("cleanup: %v", err)
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	with := func(role string) map[string]string {
		m := map[string]string{runner.LabelRole: role}
		for k, v := range lbl {
			m[k] = v
		}
		return m
	}
	v, err := cl.VolumeCreate(ctx, volume.CreateOptions{Driver: "local", Labels: with(docker.RoleVolume)})
	if err != nil {
		t.Fatalf("creating a volume for %s: %v", runID, err)
	}
	_, err = cl.ContainerCreate(ctx,
		&container.Config{Image: img, Entrypoint: []string{"/bin/true"}, Labels: with(docker.RoleProgram), NetworkDisabled: true},
		&container.HostConfig{NetworkMode: "none", Mounts: []mount.Mount{{Type: mount.TypeVolume, Source: v.Name, Target: "/program", ReadOnly: true}}},
		nil, nil, "behaves-"+runID)
	if err != nil {
		t.Fatalf("creating a container for %s: %v", runID, err)
	}
}

// left counts the containers and volumes of runID.
func left(t *testing.T, cl *client.Client, runID string) int {
	cs, vs := dockertest.Leftovers(t, cl, runID)
	return len(cs) + len(vs)
}

// TestGCOnTheRealDaemon fakes the leftovers of runs in several states and
// runs `behaves gc` on them through Main. gc is restricted (SweepOptions.Only)
// to this test's run IDs, so that it can never touch another test's objects.
func TestGCOnTheRealDaemon(t *testing.T) {
	t.Parallel()
	cl := dockertest.Client(t)
	img := dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	prefix := gcTestPrefix + newRunID()[:12] + "-"
	rfc := func(d time.Duration) string { return time.Now().Add(-d).UTC().Format(time.RFC3339) }
	owner := func(h string, pid int, startedAgo time.Duration) map[string]string {
		return map[string]string{runner.LabelHost: h, runner.LabelPID: strconv.Itoa(pid), runner.LabelPIDNamespace: runner.PIDNamespace(), runner.LabelStartedAt: rfc(startedAgo)}
	}
	// A run of a process with this host's name but other processes (a
	// container on the host's network): its PID is free here, yet it may
	// be alive in its own namespace.
	otherNS := owner(host, dockertest.FreePID(t), time.Hour)
	otherNS[runner.LabelPIDNamespace] = "pid:[1]"
	me := os.Getpid()
	runs := map[string]map[string]string{
		"dead":      owner(host, dockertest.FreePID(t), time.Minute), // no process holds its PID
		"reused":    owner(host, me, time.Hour),                      // its PID now belongs to this test, which started later
		"live":      owner(host, me, 2*time.Minute),                  // this test is its owner, alive
		"otherhost": owner("elsewhere.invalid", me, time.Hour),       // another host's
		"otherns":   otherNS,                                         // this host's name, another PID namespace
		"malformed": {runner.LabelHost: host, runner.LabelPID: "not-a-pid", runner.LabelStartedAt: rfc(time.Hour)},
	}
	for name, lbl := range runs {
		fakeRun(t, cl, img, prefix+name, lbl)
	}
	gc := func(args ...string) result {
		t.Helper()
		var out, errOut bytes.Buffer
		code := Main(context.Background(), append([]string{"gc"}, args...), Env{
			Stdout: &out, Stderr: &errOut,
			NewSweeper: func() (runner.Sweeper, error) {
				return docker.NewSweeper(runner.SweepOptions{Only: func(id string) bool { return strings.HasPrefix(id, prefix) }})
			},
		})
		return result{code: code, stdout: out.String(), stderr: errOut.String()}
	}
	check := func(step string, r result, wantCode int, gone ...string) {
		t.Helper()
		if r.code != wantCode {
			t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", step, r.code, wantCode, r.stdout, r.stderr)
		}
		for name := range runs {
			n := left(t, cl, prefix+name)
			if wantGone := strings.Contains(" "+strings.Join(gone, " ")+" ", " "+name+" "); wantGone != (n == 0) {
				t.Errorf("%s: run %s has %d objects left; want gone: %v\nstdout:\n%s", step, name, n, wantGone, r.stdout)
			}
		}
	}

	r := gc("--dry-run")
	check("gc --dry-run", r, ExitTrue)
	if !strings.Contains(r.stdout, "would remove run "+prefix+"dead ") || !strings.Contains(r.stdout, "would remove run "+prefix+"reused ") {
		t.Errorf("gc --dry-run does not say what it would remove:\n%s", r.stdout)
	}
	r = gc()
	check("gc", r, ExitTrue, "dead", "reused")
	if !strings.Contains(r.stdout, "kept run "+prefix+"malformed: its labels do not name its owner") {
		t.Errorf("gc does not report the malformed run:\n%s", r.stdout)
	}
	if !regexp.MustCompile(`kept run ` + regexp.QuoteMeta(prefix) + `otherns \([^)]*\): its owner runs on this host but in another PID namespace`).MatchString(r.stdout) {
		t.Errorf("gc does not say why it keeps the other PID namespace's run:\n%s", r.stdout)
	}
	r = gc("--older-than", "1m")
	check("gc --older-than 1m", r, ExitTrue, "dead", "reused", "live", "otherhost", "otherns")
}
