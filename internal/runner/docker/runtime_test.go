package docker

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/runner"
)

// runtimesInfo answers docker info with the runtimes scripts/runsc.sh
// registers next to runc (as Engine 20.10 reports them over API 1.41).
func runtimesInfo(d *fakeDaemon, c *fakeCall) bool {
	writeJSON(c.W, http.StatusOK, map[string]any{
		"NCPU": fakeCPUs, "OSType": "linux", "DefaultRuntime": "runc",
		"Runtimes": map[string]any{
			"runc":           map[string]any{"path": "runc"},
			"runsc":          map[string]any{"path": "/usr/bin/runsc", "runtimeArgs": []string{"--network=none"}},
			"runsc-netstack": map[string]any{"path": "/usr/bin/runsc"},
		},
	})
	return true
}

// TestSandboxRuntimeRegistration: the sandbox reads each profile's runtime
// from the engine's registrations (once per sandbox) and skips the network
// sandbox accordingly, in what it records and in what it asks the engine to
// create; a runtime the engine lacks fails its program before anything is
// made.
func TestSandboxRuntimeRegistration(t *testing.T) {
	t.Parallel()
	d := newFakeDaemon(t)
	d.fault("info", runtimesInfo)
	sb := d.sandbox(t, Options{})
	ctx := context.Background()

	prog := runner.Program{Files: runner.FilesOf(map[string][]byte{"main.sh": []byte("echo ok\n")}), Entry: "main.sh"}
	var batch []runner.Request
	for _, rt := range []string{"", "runsc", "runsc-netstack"} {
		for _, files := range []runner.NetworkFiles{runner.NetworkFilesNone, runner.NetworkFilesManaged} {
			prof := faultProfile()
			prof.Runtime, prof.NetworkFiles = rt, files
			batch = append(batch, runner.Request{Program: prog, Profile: prof})
		}
	}
	results := sb.Prepare(ctx, batch)
	t.Cleanup(func() {
		for _, r := range results {
			if r.Attempt != nil {
				r.Attempt.Close(context.Background())
			}
		}
	})
	for i, r := range results {
		prof := batch[i].Profile
		if r.Err != nil {
			t.Fatalf("runtime %q, network_files %s: %v", prof.Runtime, prof.NetworkFiles, r.Err)
		}
		skipped := prof.NetworkFiles == runner.NetworkFilesNone && prof.Runtime != "runsc-netstack"
		st := r.Attempt.Settings()
		if st.NetworkDisabled != skipped || (len(st.DNS) == 0) != skipped || st.Runtime != prof.Runtime {
			t.Errorf("runtime %q, network_files %s: settings network_disabled %v, dns %q, runtime %q; want the sandbox skipped: %v",
				prof.Runtime, prof.NetworkFiles, st.NetworkDisabled, st.DNS, st.Runtime, skipped)
		}
		// What the engine is asked for is what is recorded.
		before := len(d.createdRequests())
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		ev, err := r.Attempt.Run(rctx, runner.Invocation{})
		cancel()
		if err != nil || ev.SandboxError != "" {
			t.Fatalf("run: %v, %q", err, ev.SandboxError)
		}
		created := d.createdRequests()[before:]
		if len(created) != 1 {
			t.Fatalf("%d creates for one run", len(created))
		}
		if c := created[0]; c.NetworkDisabled != st.NetworkDisabled || !slices.Equal(c.HostConfig.DNS, st.DNS) || c.HostConfig.Runtime != prof.Runtime {
			t.Errorf("runtime %q, network_files %s: created with NetworkDisabled %v, DNS %q, runtime %q; recorded %v, %q",
				prof.Runtime, prof.NetworkFiles, c.NetworkDisabled, c.HostConfig.DNS, c.HostConfig.Runtime, st.NetworkDisabled, st.DNS)
		}
	}
	if n := d.count("info"); n != 1 {
		t.Errorf("%d info requests for one sandbox, want 1", n)
	}

	// A runtime the engine does not list: the program fails with its name,
	// before any volume or container is made for it.
	creates := d.count("create") + d.count("volume-create")
	prof := faultProfile()
	prof.Runtime = "nosuchruntime"
	if att, err := prepareOne(ctx, sb, prog, prof); err == nil || !strings.Contains(err.Error(), `no runtime "nosuchruntime"`) {
		if att != nil {
			att.Close(ctx)
		}
		t.Errorf("Prepare under a runtime the engine lacks: %v", err)
	}
	if n := d.count("create") + d.count("volume-create"); n != creates {
		t.Errorf("%d creates for a program whose runtime is missing", n-creates)
	}
}

// TestSandboxRuntimeInfoFails: when the engine does not say which runtimes it
// has, the program fails with that reason (no guess), and the next program
// asks again.
func TestSandboxRuntimeInfoFails(t *testing.T) {
	t.Parallel()
	d := newFakeDaemon(t)
	d.fault("info", failWith(http.StatusInternalServerError, "info is broken"))
	sb := d.sandbox(t, Options{})
	ctx := context.Background()
	prog := runner.Program{Files: runner.FilesOf(map[string][]byte{"main.sh": []byte("echo ok\n")}), Entry: "main.sh"}
	att, err := prepareOne(ctx, sb, prog, faultProfile())
	if err == nil || !strings.Contains(err.Error(), "asking the Docker engine for its runtimes") || !strings.Contains(err.Error(), "info is broken") {
		t.Errorf("Prepare with info failing: %v", err)
	}
	if att != nil {
		att.Close(ctx)
	}
	if n := d.count("create") + d.count("volume-create"); n != 0 {
		t.Errorf("%d creates without knowing the runtime", n)
	}
	d.fault("info", runtimesInfo)
	att, err = prepareOne(ctx, sb, prog, faultProfile())
	if err != nil {
		t.Fatalf("Prepare after info recovered: %v", err)
	}
	defer att.Close(ctx)
	if !att.Settings().NetworkDisabled {
		t.Error("runc after info recovered: the network sandbox is kept")
	}
	if n := d.count("info"); n != 2 {
		t.Errorf("%d info requests, want 2 (a failure is not kept)", n)
	}
}

// TestSandboxRuntimeFromCPUs: run asks for the CPU count first; that answer's
// runtimes serve Prepare, so a run asks the engine for its information once.
func TestSandboxRuntimeFromCPUs(t *testing.T) {
	t.Parallel()
	d := newFakeDaemon(t)
	d.fault("info", runtimesInfo)
	sb := d.sandbox(t, Options{})
	ctx := context.Background()
	if n, err := sb.CPUs(ctx); err != nil || n != fakeCPUs {
		t.Fatalf("CPUs: %d, %v", n, err)
	}
	prof := faultProfile()
	prof.Runtime = "runsc-netstack"
	att, err := prepareOne(ctx, sb, runner.Program{Files: runner.FilesOf(map[string][]byte{"main.sh": []byte("echo ok\n")}), Entry: "main.sh"}, prof)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	defer att.Close(ctx)
	if att.Settings().NetworkDisabled {
		t.Error("runsc-netstack: the network sandbox is skipped")
	}
	if n := d.count("info"); n != 1 {
		t.Errorf("%d info requests, want 1", n)
	}
}
