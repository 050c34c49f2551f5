// Package dockertest owns what the integration tests share: reaching the
// real Docker daemon (skip without it, fail when BEHAVES_REQUIRE_DOCKER=1, as
// in CI), the locally built images named by BEHAVES_IMAGE_* (written by
// scripts/images.sh), the check that a run left nothing behind, found by
// its run-ID label, and a PID no process holds (for owners that are gone).
// It is imported only by tests.
package dockertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
)

// The labels behaves puts on every container and volume (the docker package
// defines them; they are repeated here so that this package does not depend
// on the code it checks).
const (
	labelRunID = "behaves.run-id"
	labelRole  = "behaves.role"
)

// FreePID finds a PID that no process holds right now: the owner of a
// dead run, for the tests of behaves gc.
func FreePID(tb testing.TB) int {
	tb.Helper()
	for pid := 32767; pid > 300; pid-- {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); errors.Is(err, os.ErrNotExist) {
			return pid
		}
	}
	tb.Skip("no free PID found")
	return 0
}

// Required reports whether the integration tests must run (CI).
func Required() bool { return os.Getenv("BEHAVES_REQUIRE_DOCKER") == "1" }

// skipOrFail skips the test, or fails it when Docker is required.
func skipOrFail(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if Required() {
		tb.Fatalf("BEHAVES_REQUIRE_DOCKER=1: "+format, args...)
	}
	tb.Skipf(format, args...)
}

// Client returns a client of the real daemon, closed when the test ends.
func Client(tb testing.TB) *client.Client {
	tb.Helper()
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err = cli.Ping(ctx)
	}
	if err != nil {
		skipOrFail(tb, "Docker unreachable: %v", err)
	}
	tb.Cleanup(func() { cli.Close() })
	return cli
}

// RegistryDigest returns BEHAVES_IMAGE_REGISTRY_DIGEST, the test image
// that scripts/registry.sh pushed to its loopback registry
// (127.0.0.1:<port>/behaves-test/busybox@sha256:…). Without it the test
// skips, or fails when BEHAVES_REQUIRE_DOCKER=1 (CI, whose .ci/run runs
// scripts/registry.sh).
func RegistryDigest(tb testing.TB) string {
	tb.Helper()
	ref := os.Getenv("BEHAVES_IMAGE_REGISTRY_DIGEST")
	if ref == "" {
		skipOrFail(tb, "BEHAVES_IMAGE_REGISTRY_DIGEST is not set (bash scripts/registry.sh --env-file /tmp/behaves-images.env, then source that file)")
	}
	return ref
}

// Image returns the image ID in the environment variable name
// (BEHAVES_IMAGE_BUSYBOX, BEHAVES_IMAGE_PYTHON, BEHAVES_IMAGE_ENTRYPOINT).
func Image(tb testing.TB, name string) string {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" {
		skipOrFail(tb, "%s is not set (run scripts/images.sh and source its env file, or use scripts/test.sh)", name)
	}
	return v
}

// Leftovers lists the containers and volumes labelled with runID.
func Leftovers(tb testing.TB, cli *client.Client, runID string) (containers, volumes []string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f := filters.NewArgs(filters.Arg("label", labelRunID+"="+runID))
	cs, err := cli.ContainerList(ctx, container.ListOptions{All: true, Filters: f})
	if err != nil {
		tb.Fatalf("listing containers: %v", err)
	}
	for _, c := range cs {
		containers = append(containers, fmt.Sprintf("%v (%s)", c.Names, c.Labels[labelRole]))
	}
	vs, err := cli.VolumeList(ctx, volume.ListOptions{Filters: f})
	if err != nil {
		tb.Fatalf("listing volumes: %v", err)
	}
	for _, v := range vs.Volumes {
		volumes = append(volumes, v.Name)
	}
	return containers, volumes
}

// AssertNothingLeft fails the test when a container or volume of runID is left.
func AssertNothingLeft(tb testing.TB, cli *client.Client, runID string) {
	tb.Helper()
	if runID == "" {
		tb.Errorf("no run ID to check for leftovers")
		return
	}
	cs, vs := Leftovers(tb, cli, runID)
	if len(cs) > 0 || len(vs) > 0 {
		tb.Errorf("run %s left containers %v and volumes %v", runID, cs, vs)
	}
}
