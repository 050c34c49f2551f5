package docker

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/volume"

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

// The labels the sandbox writes are the labels the sweep reads.
func TestSandboxLabelsNameTheOwner(t *testing.T) {
	t.Parallel()
	o, err := runner.ParseOwner(labels(Options{RunID: "r2", Host: "h2", PID: 7, StartedAt: sweepNow}, RoleVolume))
	if err != nil || o != (runner.Owner{RunID: "r2", Host: "h2", PID: 7, StartedAt: sweepNow}) {
		t.Fatalf("ParseOwner(sandbox labels) = %+v, %v", o, err)
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
