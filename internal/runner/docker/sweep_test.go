package docker

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/volume"

	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/runner"
)

var sweepNow = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// sweepNS is the PID namespace of the fake runs and sweeps.
const sweepNS = "pid:[4026531836]"

// ownerLabels are the labels the sandbox puts on what a run makes.
func ownerLabels(runID, host string, pid int, startedAt time.Time, role string) map[string]string {
	return map[string]string{
		runner.LabelRunID:        runID,
		runner.LabelHost:         host,
		runner.LabelPID:          strconv.Itoa(pid),
		runner.LabelPIDNamespace: sweepNS,
		runner.LabelStartedAt:    startedAt.UTC().Format(time.RFC3339),
		runner.LabelRole:         role,
	}
}

func TestParseOwner(t *testing.T) {
	t.Parallel()
	good := ownerLabels("r1", "h", 42, sweepNow, RoleProgram)
	o, err := ParseOwner(good)
	if err != nil || o != (runner.Owner{RunID: "r1", Host: "h", PID: 42, PIDNamespace: sweepNS, StartedAt: sweepNow}) {
		t.Fatalf("ParseOwner(good) = %+v, %v", o, err)
	}
	// The labels the sandbox writes are the labels the sweep reads.
	o, err = ParseOwner(labels(Options{RunID: "r2", Host: "h2", PID: 7, StartedAt: sweepNow}, RoleVolume))
	if err != nil || o != (runner.Owner{RunID: "r2", Host: "h2", PID: 7, StartedAt: sweepNow}) {
		t.Fatalf("ParseOwner(sandbox labels) = %+v, %v", o, err)
	}
	for _, tc := range []struct {
		name, key, value, want string
	}{
		{"no run id", runner.LabelRunID, "", runner.LabelRunID},
		{"no host", runner.LabelHost, "", runner.LabelHost},
		{"no pid", runner.LabelPID, "", runner.LabelPID},
		{"pid not a number", runner.LabelPID, "12a", runner.LabelPID},
		{"pid zero", runner.LabelPID, "0", runner.LabelPID},
		{"pid negative", runner.LabelPID, "-1", runner.LabelPID}, // kill(-1, 0) would ask about every process
		{"no started-at", runner.LabelStartedAt, "", runner.LabelStartedAt},
		{"started-at not RFC 3339", runner.LabelStartedAt, "2025-06-01 12:00", runner.LabelStartedAt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := ownerLabels("r1", "h", 42, sweepNow, RoleProgram)
			l[tc.key] = tc.value
			if _, err := ParseOwner(l); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseOwner = %v, want an error naming %s", err, tc.want)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	t.Parallel()
	const host, otherHost = "this-host", "other-host"
	const ns, otherNS = "pid:[4026531836]", "pid:[4026532301]"
	started := sweepNow.Add(-time.Hour)
	run := func(h string, pid int, at time.Time) runner.LeftoverRun {
		return runner.LeftoverRun{ID: "r", Owner: runner.Owner{RunID: "r", Host: h, PID: pid, PIDNamespace: ns, StartedAt: at}}
	}
	inNS := func(pidNS string, pid int) runner.LeftoverRun {
		r := run(host, pid, started)
		r.Owner.PIDNamespace = pidNS
		return r
	}
	// processes on this host, by PID
	procs := map[int]runner.Process{
		100: {Alive: true, Started: started.Add(-2 * time.Second)}, // the owner itself
		101: {Alive: true, Started: started.Add(time.Hour / 2)},    // a later process reusing the PID
		102: {Alive: true},                                         // start time unknown
		103: {Alive: true, Started: started.Add(StartSlack)},       // at the edge of the slack: still the owner
	}
	lookup := func(pid int) runner.Process { return procs[pid] } // others: gone
	for _, tc := range []struct {
		name        string
		run         runner.LeftoverRun
		olderThan   time.Duration
		remove      bool
		dead        bool
		reasonParts []string
	}{
		{"this host, pid gone → dead", run(host, 999, started), 0, true, true, []string{"pid 999", "gone"}},
		{"this host, pid alive → kept", run(host, 100, started), 0, false, false, []string{"pid 100", "still running"}},
		{"this host, pid reused by a later process → dead", run(host, 101, started), 0, true, true, []string{"pid 101", "now belongs to a process started at 2025-06-01T11:30:00Z"}},
		{"this host, pid alive, start time unknown → kept", run(host, 102, started), 0, false, false, []string{"still running"}},
		{"this host, pid alive, started within the slack → kept", run(host, 103, started), 0, false, false, []string{"still running"}},
		{"this host, pid gone, older-than not reached → still dead", run(host, 999, sweepNow.Add(-time.Minute)), 24 * time.Hour, true, true, []string{"gone"}},
		{"this host, pid alive, older than --older-than → removed", run(host, 100, started), 30 * time.Minute, true, false, []string{"still running", "started 1h0m0s ago", "--older-than 30m0s"}},
		{"this host, pid alive, younger than --older-than → kept", run(host, 100, started), 2 * time.Hour, false, false, []string{"still running"}},
		{"this host's name, another PID namespace, pid free here → kept", inNS(otherNS, 999), 0, false, false, []string{"another PID namespace", otherNS, "only --older-than"}},
		{"this host's name, another PID namespace, pid reused here → kept", inNS(otherNS, 101), 0, false, false, []string{"another PID namespace"}},
		{"this host's name, no namespace label (an earlier behaves) → kept", inNS("", 999), 0, false, false, []string{"another PID namespace"}},
		{"another PID namespace, older than --older-than → removed", inNS(otherNS, 999), 30 * time.Minute, true, false, []string{"another PID namespace", "--older-than 30m0s"}},
		{"other host → kept", run(otherHost, 999, started), 0, false, false, []string{`host "other-host"`, "only --older-than"}},
		{"other host, older than --older-than → removed", run(otherHost, 999, started), 30 * time.Minute, true, false, []string{`host "other-host"`, "--older-than 30m0s"}},
		{"other host, younger than --older-than → kept", run(otherHost, 999, started), 2 * time.Hour, false, false, []string{"only --older-than"}},
		{"other host, started in the future (clock skew) → kept", run(otherHost, 999, sweepNow.Add(time.Hour)), time.Minute, false, false, []string{"only --older-than"}},
		{"malformed labels → kept and reported", runner.LeftoverRun{ID: "r", Err: errors.New("behaves.pid \"x\" is not a process ID")}, 0, false, false, []string{"do not name its owner", `behaves.pid "x"`}},
		{"malformed labels, even with --older-than → kept", runner.LeftoverRun{ID: "r", Err: errors.New("bad")}, time.Nanosecond, false, false, []string{"do not name its owner"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := Decide(tc.run, Policy{Host: host, PIDNamespace: ns, Now: sweepNow, OlderThan: tc.olderThan, Process: lookup})
			if d.Remove != tc.remove || d.Dead != tc.dead {
				t.Errorf("Decide = %+v, want remove %v, dead %v", d, tc.remove, tc.dead)
			}
			for _, part := range tc.reasonParts {
				if !strings.Contains(d.Reason, part) {
					t.Errorf("reason %q lacks %q", d.Reason, part)
				}
			}
		})
	}
}

func TestDecideAsksAboutProcessesOfThisHostOnly(t *testing.T) {
	t.Parallel()
	asked := false
	p := Policy{Host: "here", Now: sweepNow, Process: func(int) runner.Process { asked = true; return runner.Process{} }}
	d := Decide(runner.LeftoverRun{ID: "r", Owner: runner.Owner{RunID: "r", Host: "there", PID: 1, StartedAt: sweepNow}}, p)
	if asked || d.Remove {
		t.Errorf("a run of another host: asked %v, decision %+v", asked, d)
	}
	// Without a way to look processes up, a run of this host is alive.
	p.Process = nil
	if d := Decide(runner.LeftoverRun{ID: "r", Owner: runner.Owner{RunID: "r", Host: "here", PID: 1, StartedAt: sweepNow}}, p); d.Remove {
		t.Errorf("no runner.Process func: %+v, want kept", d)
	}
}

func TestGroupRuns(t *testing.T) {
	t.Parallel()
	old, young := sweepNow.Add(-2*time.Hour), sweepNow.Add(-time.Hour)
	bad := ownerLabels("bad", "h", 1, old, RoleProgram)
	bad[runner.LabelPID] = "x"
	split := ownerLabels("split", "h", 2, young, RoleVolume)
	split[runner.LabelPID] = "3"
	cs := []container.Summary{
		{ID: "c1", Names: []string{"/behaves-young-1"}, Labels: ownerLabels("young", "h", 5, young, RoleProgram)},
		{ID: "c2", Names: []string{"/behaves-old-1-helper"}, Labels: ownerLabels("old", "h", 4, old, RoleHelper)},
		{ID: "c3", Labels: map[string]string{"other": "x"}}, // not ours: no run ID
		{ID: "c4", Names: []string{"/b"}, Labels: bad},
		{ID: "c5", Names: []string{"/s"}, Labels: ownerLabels("split", "h", 2, young, RoleProgram)},
		{ID: "c6", Names: []string{"/skip"}, Labels: ownerLabels("skipped", "h", 2, young, RoleProgram)},
	}
	vs := []*volume.Volume{
		{Name: "v-old", Labels: ownerLabels("old", "h", 4, old, RoleVolume)},
		nil,
		{Name: "v-split", Labels: split},
	}
	runs := GroupRuns(cs, vs, func(id string) bool { return id != "skipped" })
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	// malformed (zero start) first, then oldest first, then by ID
	if got, want := strings.Join(ids, ","), "bad,split,old,young"; got != want {
		t.Fatalf("runs %s, want %s", got, want)
	}
	if runs[0].Err == nil || !strings.Contains(runs[0].Err.Error(), "container b") {
		t.Errorf("bad run: err %v, want one naming container b", runs[0].Err)
	}
	if runs[1].Err == nil || !strings.Contains(runs[1].Err.Error(), "volume v-split names another owner") {
		t.Errorf("split run: err %v, want the disagreement", runs[1].Err)
	}
	if len(runs[1].Containers) != 1 || len(runs[1].Volumes) != 1 {
		t.Errorf("split run keeps its objects: %+v", runs[1])
	}
	o := runs[2]
	if o.Err != nil || o.Owner.PID != 4 || !o.Owner.StartedAt.Equal(old) {
		t.Errorf("old run: %+v", o)
	}
	if len(o.Containers) != 1 || o.Containers[0] != (runner.LeftoverObject{Kind: runner.KindContainer, ID: "c2", Name: "behaves-old-1-helper", Role: RoleHelper}) {
		t.Errorf("old run containers: %+v", o.Containers)
	}
	if len(o.Volumes) != 1 || o.Volumes[0] != (runner.LeftoverObject{Kind: runner.KindVolume, ID: "v-old", Name: "v-old", Role: RoleVolume}) {
		t.Errorf("old run volumes: %+v", o.Volumes)
	}
}

func TestParseProcStat(t *testing.T) {
	t.Parallel()
	// A command name with spaces and parentheses; starttime is field 22.
	line := "4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n"
	state, start, err := parseProcStat([]byte(line))
	if err != nil || state != 'S' || start != 987654 {
		t.Errorf("parseProcStat = %c, %d, %v; want S, 987654", state, start, err)
	}
	for _, bad := range []string{"", "4242 no parens S 1", "1 (x) S 1 2 3", "1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 -5 0"} {
		if _, _, err := parseProcStat([]byte(bad)); err == nil {
			t.Errorf("parseProcStat(%q) accepted", bad)
		}
	}
}

func TestLocalProcess(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	self := LocalProcess(os.Getpid())
	if !self.Alive || self.Started.IsZero() || self.Started.After(time.Now()) {
		t.Errorf("this process: %+v, want alive and started in the past", self)
	}
	if p := LocalProcess(dockertest.FreePID(t)); p.Alive {
		t.Errorf("a free PID: %+v, want gone", p)
	}
	if p := signalZero(os.Getpid()); !p.Alive {
		t.Errorf("signal 0 to this process: %+v, want alive", p)
	}
	if p := signalZero(dockertest.FreePID(t)); p.Alive {
		t.Errorf("signal 0 to a free PID: %+v, want gone", p)
	}
}

func TestLocalProcessZombieIsGone(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	cmd := exec.Command("/bin/sh", "-c", "exit 0")
	if err := cmd.Start(); err != nil {
		t.Skip("cannot start /bin/sh:", err)
	}
	pid := cmd.Process.Pid
	defer cmd.Wait()
	// Until Wait reaps it, the exited child stays a zombie.
	for deadline := time.Now().Add(10 * time.Second); ; {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			t.Fatal(err)
		}
		if st, _, _ := parseProcStat(b); st == 'Z' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the child never became a zombie")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if p := LocalProcess(pid); p.Alive {
		t.Errorf("a zombie: %+v, want gone", p)
	}
}

// fakeSweepEngine records the sweep's engine calls.
type fakeSweepEngine struct {
	mu         sync.Mutex
	containers []container.Summary
	volumes    []*volume.Volume
	listErr    error
	removeErr  map[string]error // by container ID or volume name
	calls      []string
	noDeadline []string
}

func (f *fakeSweepEngine) record(ctx context.Context, call string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
	if _, ok := ctx.Deadline(); !ok {
		f.noDeadline = append(f.noDeadline, call)
	}
}

func (f *fakeSweepEngine) ContainerList(ctx context.Context, o container.ListOptions) ([]container.Summary, error) {
	f.record(ctx, "list containers all="+strconv.FormatBool(o.All)+" label="+strings.Join(o.Filters.Get("label"), ","))
	return f.containers, f.listErr
}

func (f *fakeSweepEngine) VolumeList(ctx context.Context, o volume.ListOptions) (volume.ListResponse, error) {
	f.record(ctx, "list volumes label="+strings.Join(o.Filters.Get("label"), ","))
	return volume.ListResponse{Volumes: f.volumes}, nil
}

func (f *fakeSweepEngine) ContainerRemove(ctx context.Context, id string, o container.RemoveOptions) error {
	f.record(ctx, "remove container "+id+" force="+strconv.FormatBool(o.Force)+" volumes="+strconv.FormatBool(o.RemoveVolumes))
	return f.removeErr[id]
}

func (f *fakeSweepEngine) VolumeRemove(ctx context.Context, id string, force bool) error {
	f.record(ctx, "remove volume "+id)
	return f.removeErr[id]
}

func (f *fakeSweepEngine) Close() error { return nil }

func TestSweeperPlanAndRemove(t *testing.T) {
	t.Parallel()
	started := sweepNow.Add(-time.Hour)
	eng := &fakeSweepEngine{
		containers: []container.Summary{
			{ID: "c-dead", Names: []string{"/behaves-dead-1"}, Labels: ownerLabels("dead", "here", 10, started, RoleProgram)},
			{ID: "c-dead2", Names: []string{"/behaves-dead-2"}, Labels: ownerLabels("dead", "here", 10, started, RoleProgram)},
			{ID: "c-live", Names: []string{"/behaves-live-1"}, Labels: ownerLabels("live", "here", 11, started, RoleProgram)},
			{ID: "c-other", Names: []string{"/behaves-other-1"}, Labels: ownerLabels("not-mine", "here", 10, started, RoleProgram)},
		},
		volumes: []*volume.Volume{
			{Name: "v-dead", Labels: ownerLabels("dead", "here", 10, started, RoleVolume)},
			{Name: "v-gone", Labels: ownerLabels("dead", "here", 10, started, RoleVolume)},
		},
		removeErr: map[string]error{
			"c-dead2": errors.New("engine says no"),
			"v-gone":  cerrdefs.ErrNotFound.WithMessage("no such volume"),
		},
	}
	sw := newSweeper(eng, runner.SweepOptions{
		Host:         "here",
		PIDNamespace: sweepNS,
		Now:          func() time.Time { return sweepNow },
		Process:      func(pid int) runner.Process { return runner.Process{Alive: pid == 11} },
		Only:         func(id string) bool { return id != "not-mine" },
	})
	plan, err := sw.Plan(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 2 || plan[0].ID != "dead" || !plan[0].Remove || plan[1].ID != "live" || plan[1].Remove {
		t.Fatalf("plan %+v, want dead removed and live kept (and not-mine ignored)", plan)
	}
	rs := sw.Remove(context.Background(), plan[0].LeftoverRun)
	var got []string
	for _, r := range rs {
		s := r.Kind + " " + r.Name
		if r.Err != nil {
			s += ": " + r.Err.Error()
		}
		got = append(got, s)
	}
	want := []string{
		"container behaves-dead-1",
		"container behaves-dead-2: removing container behaves-dead-2: engine says no",
		"volume v-dead",
		"volume v-gone", // not found: already clean
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("removals:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantCalls := []string{
		"list containers all=true label=" + runner.LabelRunID,
		"list volumes label=" + runner.LabelRunID,
		"remove container c-dead force=true volumes=true",
		"remove container c-dead2 force=true volumes=true",
		"remove volume v-dead",
		"remove volume v-gone",
	}
	if strings.Join(eng.calls, "\n") != strings.Join(wantCalls, "\n") {
		t.Errorf("engine calls:\n%s\nwant:\n%s", strings.Join(eng.calls, "\n"), strings.Join(wantCalls, "\n"))
	}
	if len(eng.noDeadline) > 0 {
		t.Errorf("calls without a deadline: %v", eng.noDeadline)
	}
}

func TestSweeperPlanListError(t *testing.T) {
	t.Parallel()
	eng := &fakeSweepEngine{listErr: errors.New("Cannot connect to the Docker daemon")}
	_, err := newSweeper(eng, runner.SweepOptions{Host: "here"}).Plan(context.Background(), 0)
	if err == nil || !strings.Contains(err.Error(), "listing containers") || !strings.Contains(err.Error(), "Cannot connect") {
		t.Errorf("Plan = %v, want the list error", err)
	}
}
