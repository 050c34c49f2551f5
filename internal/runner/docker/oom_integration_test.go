package docker

import (
	"context"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/behaves-dev/behaves/internal/dockertest"
)

// TestIntegrationOOMEvents checks the second source of OOM kills (oom.go)
// against the real engine: a container whose child was OOM-killed while
// its shell exited 0 is found through the run's live subscription made before its
// start, even after more than the engine's 256 replayable events have been
// logged since (which once made a replay miss it in CI), and by replay up
// to now while it still exists; a container that was not OOM-killed is not.
func TestIntegrationOOMEvents(t *testing.T) {
	t.Parallel()
	sb := newTestSandbox(t)
	busybox := dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")
	python := dockertest.Image(t, "BEHAVES_IMAGE_PYTHON")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	create := func(img string, cmd ...string) string {
		t.Helper()
		cfg := &container.Config{Image: img, Entrypoint: cmd, Labels: labels(sb.opt, RoleProgram)}
		hc := &container.HostConfig{NetworkMode: "none", Resources: container.Resources{Memory: 64 << 20, MemorySwap: 64 << 20}}
		c, err := sb.cli.ContainerCreate(ctx, cfg, hc, nil, nil, sb.nextName(""))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sb.removeContainer(context.Background(), c.ID, c.ID) })
		return c.ID
	}
	// run starts a created container, with its subscription, and waits for
	// its exit; it returns the subscription and the container's creation
	// time and state.
	run := func(id string) (w *oomWatch, created string, stateOOM bool) {
		t.Helper()
		w, err := sb.watchOOM(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Stop)
		waitC, errC := sb.cli.ContainerWait(ctx, id, container.WaitConditionNextExit)
		if err := sb.cli.ContainerStart(ctx, id, container.StartOptions{}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-waitC:
		case err := <-errC:
			t.Fatal(err)
		}
		info, err := sb.cli.ContainerInspect(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return w, info.Created, info.State.OOMKilled
	}

	// The child asks for 512 MiB at once (the busybox "head | tail" way to
	// exhaust memory can thrash for a minute before the kill).
	oomID := create(python, "python3", "-I", "-c",
		"import subprocess, sys\nsubprocess.run([sys.executable, '-I', '-c', 'bytearray(512 << 20)'])\nprint('survived')")
	oomWatch, oomCreated, stateOOM := run(oomID)
	if !stateOOM {
		t.Logf("the engine's state lost this OOM kill (the case oom.go is for)")
	}
	if oom, err := sb.oomLoggedUntilNow(ctx, oomID, oomCreated); err != nil || !oom {
		t.Errorf("OOM-killed child, by replay before removal: %v, %v; want true", oom, err)
	}
	// Push the "oom" out of the engine's replay: 2 events (create,
	// destroy) per container, well past 256.
	for range 140 {
		id := create(busybox, "/nonexistent")
		if err := sb.removeContainer(ctx, id, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := sb.removeContainer(ctx, oomID, oomID); err != nil {
		t.Fatal(err)
	}
	if oom, err := oomWatch.OOMBeforeDestroy(time.Minute); err != nil || !oom {
		t.Errorf("OOM-killed child, live up to its removal: %v, %v; want true", oom, err)
	}

	okID := create(busybox, "/bin/sh", "-c", "echo fine")
	okWatch, okCreated, _ := run(okID)
	if oom, err := sb.oomLoggedUntilNow(ctx, okID, okCreated); err != nil || oom {
		t.Errorf("no OOM kill, by replay before removal: %v, %v; want false", oom, err)
	}
	if err := sb.removeContainer(ctx, okID, okID); err != nil {
		t.Fatal(err)
	}
	if oom, err := okWatch.OOMBeforeDestroy(time.Minute); err != nil || oom {
		t.Errorf("no OOM kill, live up to its removal: %v, %v; want false", oom, err)
	}
}
