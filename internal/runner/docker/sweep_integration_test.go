package docker

// The sweep against the real daemon (skips or fails like the other
// integration tests, through dockertest). Every sweep here is restricted
// (SweepOptions.Only) to the test's own run ID, so that it can never remove
// another test's containers or volumes.

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/runner"
)

// What a dead run's sandbox left — its program volume (an attempt never
// closed) and a running container — is found by the labels the sandbox
// wrote, judged dead, and removed; a second removal finds it already gone.
func TestSweepRemovesWhatADeadSandboxLeft(t *testing.T) {
	t.Parallel()
	cl := dockertest.Client(t)
	img := dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")
	runID := "test-sweep-" + randomHex(8)
	t.Cleanup(func() {
		// Whatever the sweep missed (registered first: runs last).
		sw, err := NewSweeper(runner.SweepOptions{Only: func(id string) bool { return id == runID }, Process: func(int) runner.Process { return runner.Process{} }})
		if err == nil {
			defer sw.Close()
			if plan, err := sw.Plan(context.Background(), 0); err == nil {
				for _, p := range plan {
					sw.Remove(context.Background(), p.LeftoverRun)
				}
			}
		}
		dockertest.AssertNothingLeft(t, cl, runID)
	})
	startedAt := time.Now().Add(-time.Minute)
	opt := Options{RunID: runID, PID: dockertest.FreePID(t), StartedAt: startedAt}
	sb, err := New(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The attempt is never closed: its volume is what a killed behaves leaves.
	if _, err := prepareOne(ctx, sb, shProgram("true\n"), shProfile(img)); err != nil {
		t.Fatal(err)
	}
	// A container still running when its behaves died.
	created, err := cl.ContainerCreate(ctx,
		&container.Config{Image: img, Entrypoint: []string{"/bin/sleep", "600"}, Labels: labels(sb.opt, RoleProgram), NetworkDisabled: true},
		&container.HostConfig{NetworkMode: "none"}, nil, nil, sb.nextName(""))
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		t.Fatal(err)
	}

	host, _ := os.Hostname()
	sw, err := NewSweeper(runner.SweepOptions{Only: func(id string) bool { return id == runID }})
	if err != nil {
		t.Fatal(err)
	}
	defer sw.Close()
	plan, err := sw.Plan(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 1 {
		t.Fatalf("plan has %d runs, want only this test's: %+v", len(plan), plan)
	}
	p := plan[0]
	if p.Err != nil || p.Owner.Host != host || p.Owner.PID != opt.PID || p.Owner.PIDNamespace != runner.PIDNamespace() || !p.Owner.StartedAt.Equal(startedAt.Truncate(time.Second)) {
		t.Errorf("owner %+v (err %v), want host %s, pid %d, pid namespace %s, started %s", p.Owner, p.Err, host, opt.PID, runner.PIDNamespace(), startedAt)
	}
	if runner.PIDNamespace() == "" {
		t.Error("runner.PIDNamespace() is empty on Linux: /proc/self/ns/pid was not read")
	}
	if !p.Remove || !p.Dead {
		t.Fatalf("decision %+v, want dead and removed", p.Decision)
	}
	if len(p.Containers) != 1 || len(p.Volumes) != 1 {
		t.Fatalf("leftovers %+v / %+v, want the running container and the volume", p.Containers, p.Volumes)
	}
	for round := 1; round <= 2; round++ {
		for _, r := range sw.Remove(ctx, p.LeftoverRun) {
			if r.Err != nil {
				t.Errorf("removal %d: %v", round, r.Err)
			}
		}
	}
	if cs, vs := dockertest.Leftovers(t, cl, runID); len(cs)+len(vs) > 0 {
		t.Errorf("left after the sweep: containers %v, volumes %v", cs, vs)
	}
}
