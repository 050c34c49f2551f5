package docker

import (
	"context"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/behaves-dev/behaves/internal/dockertest"
)

// TestIntegrationOOMLogged checks oomLogged against the real engine's event
// log (filters, since, the "oom" and "destroy" actions): a container whose
// child was OOM-killed while its shell exited 0 is found, read up to its
// removal or, when it still exists, up to now; a container that was not
// OOM-killed is not. Guards the second source of OOM kills, which Engine
// 20.10 needs when it loses State.OOMKilled (see oom.go).
func TestIntegrationOOMLogged(t *testing.T) {
	t.Parallel()
	sb := newTestSandbox(t)
	img := dockertest.Image(t, "BEHAVES_IMAGE_BUSYBOX")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// runExited runs script in a 16 MiB container to its exit and returns
	// its ID, creation time and whether its state says OOM-killed.
	runExited := func(script string) (id, created string, stateOOM bool) {
		t.Helper()
		cfg := &container.Config{Image: img, Cmd: []string{"/bin/sh", "-c", script}, Labels: labels(sb.opt, RoleProgram)}
		hc := &container.HostConfig{NetworkMode: "none", Resources: container.Resources{Memory: 16 << 20, MemorySwap: 16 << 20}}
		c, err := sb.cli.ContainerCreate(ctx, cfg, hc, nil, nil, sb.nextName(""))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sb.removeContainer(context.Background(), c.ID, c.ID) })
		waitC, errC := sb.cli.ContainerWait(ctx, c.ID, container.WaitConditionNextExit)
		if err := sb.cli.ContainerStart(ctx, c.ID, container.StartOptions{}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-waitC:
		case err := <-errC:
			t.Fatal(err)
		}
		info, err := sb.cli.ContainerInspect(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		return c.ID, info.Created, info.State.OOMKilled
	}

	// tail keeps a line in memory until its end: 64 MiB without a newline
	// is more than the container has.
	const childOOM = "head -c 67108864 /dev/zero | tail >/dev/null; echo survived"
	oomID, oomCreated, stateOOM := runExited(childOOM)
	if !stateOOM {
		t.Logf("the engine's state lost this OOM kill (the case oomLogged is for)")
	}
	if oom, err := sb.oomLogged(ctx, oomID, oomCreated, false); err != nil || !oom {
		t.Errorf("OOM-killed child, container not removed: oomLogged = %v, %v; want true", oom, err)
	}
	if err := sb.removeContainer(ctx, oomID, oomID); err != nil {
		t.Fatal(err)
	}
	if oom, err := sb.oomLogged(ctx, oomID, oomCreated, true); err != nil || !oom {
		t.Errorf("OOM-killed child, container removed: oomLogged = %v, %v; want true", oom, err)
	}

	okID, okCreated, _ := runExited("echo fine")
	if oom, err := sb.oomLogged(ctx, okID, okCreated, false); err != nil || oom {
		t.Errorf("no OOM kill, container not removed: oomLogged = %v, %v; want false", oom, err)
	}
	if err := sb.removeContainer(ctx, okID, okID); err != nil {
		t.Fatal(err)
	}
	if oom, err := sb.oomLogged(ctx, okID, okCreated, true); err != nil || oom {
		t.Errorf("no OOM kill, container removed: oomLogged = %v, %v; want false", oom, err)
	}
}
