package docker

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/system"
	"github.com/google/go-cmp/cmp"

	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
)

const testImageID = "sha256:1111111111111111111111111111111111111111111111111111111111111111"

func testProfile() runner.Profile {
	return runner.Profile{
		Name:          "python",
		Image:         "python@sha256:2222222222222222222222222222222222222222222222222222222222222222",
		Command:       []string{"python3", "-I"},
		ProgramName:   "main.py",
		Timeout:       5 * time.Second,
		Memory:        128 << 20,
		CPUs:          0.5,
		Pids:          64,
		OutputLimit:   64 << 10,
		OutputCeiling: 4 << 20,
		User:          "65534:65534",
		Tmpfs:         map[string]int64{"/tmp": 16 << 20},
		Env:           map[string]string{"LANG": "C.UTF-8", "A": "1"},
	}
}

// The runtimes as runtimeFrom resolves them from this daemon's registrations:
// runc, runsc with --network=none, and runsc in its default network mode.
var (
	runcRuntime     = ociRuntime{LoopbackWithoutSandbox: true}
	runscRuntime    = ociRuntime{GVisor: true, LoopbackWithoutSandbox: true}
	netstackRuntime = ociRuntime{GVisor: true}
)

func testImage() imageInfo {
	return imageInfo{
		Ref:        "python@sha256:2222222222222222222222222222222222222222222222222222222222222222",
		ID:         testImageID,
		RepoDigest: "python@sha256:2222222222222222222222222222222222222222222222222222222222222222",
		Env:        []string{"PATH=/usr/bin:/bin", "FROM_IMAGE=1"},
		Volumes:    []string{"/data", "/tmp"},
	}
}

func TestContainerConfig(t *testing.T) {
	t.Parallel()
	lbl := map[string]string{"behaves.run-id": "r1"}
	cfg, hc := containerConfig(runner.Apply(testProfile()), testImage(), runcRuntime, "vol1",
		runner.Invocation{Args: []string{"5", "a b"}, Stdin: []byte("ignored here")}, lbl)

	wantCfg := &container.Config{
		Image:        testImageID,
		Hostname:     "behaves",
		User:         "65534:65534",
		Entrypoint:   []string{"python3", "-I", "/program/main.py"},
		Cmd:          []string{"5", "a b"},
		Env:          []string{"A=1", "LANG=C.UTF-8"},
		WorkingDir:   "/program",
		Healthcheck:  &container.HealthConfig{Test: []string{"NONE"}},
		AttachStdin:  true,
		AttachStdout: true,
		AttachStderr: true,
		OpenStdin:    true,
		StdinOnce:    true,
		// The engine's network sandbox is skipped: the default.
		NetworkDisabled: true,
		Labels:          lbl,
	}
	if diff := cmp.Diff(wantCfg, cfg); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}

	pids := int64(64)
	init := true
	wantHC := &container.HostConfig{
		NetworkMode: "none",
		// No DNS: with the sandbox skipped it would not apply.
		ReadonlyRootfs: true,
		CapDrop:        []string{"ALL"},
		SecurityOpt:    []string{"no-new-privileges"},
		IpcMode:        "private",
		ShmSize:        64 << 20,
		LogConfig:      container.LogConfig{Type: "none"},
		Init:           &init,
		AutoRemove:     false,
		Tmpfs: map[string]string{
			// The profile's own tmpfs covers the image's VOLUME /tmp.
			"/tmp": "rw,nosuid,nodev,noexec,size=16777216",
			// The image's VOLUME /data: min(memory 128MiB, 64MiB).
			"/data": "rw,nosuid,nodev,noexec,size=67108864",
		},
		Mounts: []mount.Mount{{
			Type:          mount.TypeVolume,
			Source:        "vol1",
			Target:        "/program",
			ReadOnly:      true,
			VolumeOptions: &mount.VolumeOptions{NoCopy: true},
		}},
		Resources: container.Resources{
			Memory:     128 << 20,
			MemorySwap: 128 << 20,
			NanoCPUs:   500_000_000,
			PidsLimit:  &pids,
			Ulimits: []*container.Ulimit{
				{Name: "nofile", Soft: 256, Hard: 256},
				{Name: "fsize", Soft: 64 << 20, Hard: 64 << 20},
				{Name: "core", Soft: 0, Hard: 0},
			},
		},
	}
	if diff := cmp.Diff(wantHC, hc); diff != "" {
		t.Errorf("host config (-want +got):\n%s", diff)
	}
	// The fields whose zero value would be a hole, asserted by name.
	if hc.PidsLimit == nil || *hc.PidsLimit <= 0 {
		t.Errorf("PidsLimit = %v, want a pointer to a positive value (a pointer to 0 is unlimited)", hc.PidsLimit)
	}
	if hc.Privileged || len(hc.CapAdd) > 0 || len(hc.Binds) > 0 || hc.PidMode != "" || hc.UsernsMode != "" {
		t.Errorf("unexpected privilege or host access: %+v", hc)
	}
}

func TestContainerConfigDoesNotAliasProfile(t *testing.T) {
	t.Parallel()
	prof := testProfile()
	cfg, _ := containerConfig(runner.Apply(prof), testImage(), runcRuntime, "v", runner.Invocation{}, nil)
	cfg.Entrypoint[0] = "changed"
	if prof.Command[0] != "python3" {
		t.Fatal("the config shares the profile's command slice")
	}
	if len(cfg.Cmd) != 0 {
		t.Errorf("Cmd with no args = %q, want none", cfg.Cmd)
	}
}

func TestContainerConfigSizes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		memory    int64
		tmpfs     map[string]int64
		volumes   []string
		wantTmpfs map[string]string
		wantFsize int64
	}{
		{
			name:      "no tmpfs: fsize floor",
			memory:    256 << 20,
			wantTmpfs: map[string]string{},
			wantFsize: 64 << 20,
		},
		{
			name:      "a large tmpfs raises fsize",
			memory:    1 << 30,
			tmpfs:     map[string]int64{"/tmp": 200 << 20, "/scratch/": 1 << 20},
			wantTmpfs: map[string]string{"/tmp": "rw,nosuid,nodev,noexec,size=209715200", "/scratch": "rw,nosuid,nodev,noexec,size=1048576"},
			wantFsize: 200 << 20,
		},
		{
			name:    "volume tmpfs is min(memory, 64MiB); a parent tmpfs does not cover a volume",
			memory:  32 << 20,
			tmpfs:   map[string]int64{"/tmp": 1 << 20},
			volumes: []string{"/tmp/cache", "/var/lib/x"},
			wantTmpfs: map[string]string{
				"/tmp":       "rw,nosuid,nodev,noexec,size=1048576",
				"/tmp/cache": "rw,nosuid,nodev,noexec,size=33554432",
				"/var/lib/x": "rw,nosuid,nodev,noexec,size=33554432",
			},
			wantFsize: 64 << 20,
		},
		{
			name:      "a VOLUME at /program is the program volume's place",
			memory:    64 << 20,
			volumes:   []string{"/program"},
			wantTmpfs: map[string]string{},
			wantFsize: 64 << 20,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			prof := testProfile()
			prof.Memory, prof.Tmpfs = tt.memory, tt.tmpfs
			img := testImage()
			img.Volumes = tt.volumes
			_, hc := containerConfig(runner.Apply(prof), img, runcRuntime, "v", runner.Invocation{}, nil)
			if diff := cmp.Diff(tt.wantTmpfs, hc.Tmpfs); diff != "" {
				t.Errorf("tmpfs (-want +got):\n%s", diff)
			}
			if got, _ := ulimit(hc, "fsize"); got != tt.wantFsize {
				t.Errorf("fsize = %d, want %d", got, tt.wantFsize)
			}
		})
	}
}

func TestContainerConfigGVisor(t *testing.T) {
	t.Parallel()
	prof := testProfile()
	prof.Runtime = "runsc"
	_, hc := containerConfig(runner.Apply(prof), testImage(), runscRuntime, "v", runner.Invocation{}, nil)
	if hc.Runtime != "runsc" {
		t.Errorf("Runtime = %q", hc.Runtime)
	}
	if hc.PidsLimit != nil {
		t.Errorf("PidsLimit = %d under runsc, want unset (runsc fails to start with it)", *hc.PidsLimit)
	}
	// The bound under runsc is RLIMIT_NPROC (gVisor's kernel counts it per
	// sandbox), soft = hard so that the program cannot raise it.
	var nproc []container.Ulimit
	for _, u := range hc.Ulimits {
		if u != nil && u.Name == "nproc" {
			nproc = append(nproc, *u)
		}
	}
	if want := []container.Ulimit{{Name: "nproc", Soft: 64, Hard: 64}}; !cmp.Equal(nproc, want) {
		t.Errorf("nproc ulimits = %+v, want %+v", nproc, want)
	}
	// The other ulimits are those of every container.
	for _, name := range []string{"nofile", "fsize", "core"} {
		if _, ok := ulimit(hc, name); !ok {
			t.Errorf("ulimit %s missing under runsc", name)
		}
	}
	if hc.Memory != prof.Memory || hc.MemorySwap != prof.Memory {
		t.Errorf("memory %d, swap %d under runsc; want %d for both (it bounds the sandbox's host tasks)", hc.Memory, hc.MemorySwap, prof.Memory)
	}
	if got := limitsFrom(runner.Apply(prof), hc).Pids; got != 64 {
		t.Errorf("recorded pids = %d, want 64", got)
	}
	// Under the default runtime nproc is never set: it counts per uid
	// across the whole host.
	_, hc = containerConfig(runner.Apply(testProfile()), testImage(), runcRuntime, "v", runner.Invocation{}, nil)
	if _, ok := ulimit(hc, "nproc"); ok {
		t.Error("nproc set under runc")
	}
}

// TestContainerConfigNetworkSandbox: the engine's network sandbox is skipped
// (NetworkDisabled, no DNS) by default under runc and under runsc registered
// with --network=none; network_files: managed, or runsc in its default
// network mode, keeps it, with DNS 127.0.0.1. The recorded settings say
// which, and nothing else of the configuration changes.
func TestContainerConfigNetworkSandbox(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		files    runner.NetworkFiles
		runtime  string
		rt       ociRuntime
		skipped  bool
		wantPids bool // the pids cgroup (runc) rather than nproc (gVisor)
	}{
		{"runc, default", "", "", runcRuntime, true, true},
		{"runc, none", runner.NetworkFilesNone, "", runcRuntime, true, true},
		{"runc, managed", runner.NetworkFilesManaged, "", runcRuntime, false, true},
		{"runsc --network=none, none", runner.NetworkFilesNone, "runsc", runscRuntime, true, false},
		{"runsc --network=none, managed", runner.NetworkFilesManaged, "runsc", runscRuntime, false, false},
		{"runsc default network, none", runner.NetworkFilesNone, "runsc-netstack", netstackRuntime, false, false},
		{"runsc default network, managed", runner.NetworkFilesManaged, "runsc-netstack", netstackRuntime, false, false},
	}
	_, base := containerConfig(runner.Apply(testProfile()), testImage(), runcRuntime, "v", runner.Invocation{}, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			prof, img := testProfile(), testImage()
			prof.NetworkFiles, prof.Runtime = tt.files, tt.runtime
			cfg, hc := containerConfig(runner.Apply(prof), img, tt.rt, "v", runner.Invocation{}, nil)
			var wantDNS []string
			if !tt.skipped {
				wantDNS = []string{"127.0.0.1"}
			}
			if cfg.NetworkDisabled != tt.skipped || !cmp.Equal([]string(hc.DNS), wantDNS) {
				t.Errorf("NetworkDisabled %v, DNS %q; want %v, %q", cfg.NetworkDisabled, hc.DNS, tt.skipped, wantDNS)
			}
			if hc.NetworkMode != "none" {
				t.Errorf("NetworkMode = %q: isolation does not depend on the sandbox", hc.NetworkMode)
			}
			if (hc.PidsLimit != nil) != tt.wantPids {
				t.Errorf("PidsLimit %v: gVisor %v", hc.PidsLimit, tt.rt.GVisor)
			}
			// Only the network settings (and the runtime's own) differ from
			// the default.
			other := *hc
			other.DNS, other.Runtime, other.Resources = base.DNS, base.Runtime, base.Resources
			if diff := cmp.Diff(base, &other); diff != "" {
				t.Errorf("other host settings changed (-runc default +%s):\n%s", tt.name, diff)
			}
			st := settingsFrom(runner.Apply(prof), img, cfg, hc)
			if st.NetworkDisabled != tt.skipped || !cmp.Equal(st.DNS, wantDNS) || st.NetworkMode != "none" {
				t.Errorf("settings: network_disabled %v, dns %q, network_mode %q; want %v, %q, none", st.NetworkDisabled, st.DNS, st.NetworkMode, tt.skipped, wantDNS)
			}
		})
	}
}

// TestRuntimeFrom: gVisor is told by the registered runtime's path (its base
// name runsc) or shim type, not by its name, and the network sandbox may be
// skipped under it only when it is registered with --network=none.
func TestRuntimeFrom(t *testing.T) {
	t.Parallel()
	reg := func(p string, args ...string) system.RuntimeWithStatus {
		return system.RuntimeWithStatus{Runtime: system.Runtime{Path: p, Args: args}}
	}
	info := system.Info{
		DefaultRuntime: "runc",
		Runtimes: map[string]system.RuntimeWithStatus{
			"runc":             reg("runc"),
			"crun":             reg("/usr/bin/crun"),
			"runsc":            reg("/usr/bin/runsc", "--network=none"),
			"runsc-netstack":   reg("/usr/bin/runsc"),
			"runsc-host":       reg("/usr/bin/runsc", "--network=host"),
			"runsc-two-args":   reg("/usr/bin/runsc", "--platform", "ptrace", "-network", "none"),
			"runsc-last-wins":  reg("/usr/bin/runsc", "--network=none", "--network=sandbox"),
			"runsc-after-dash": reg("/usr/bin/runsc", "--", "--network=none"),
			"runsc-dangling":   reg("/usr/bin/runsc", "--network"),
			"gvisor":           reg("/opt/gvisor/bin/runsc", "-network=none"),
			"runsc-shim":       {Runtime: system.Runtime{Type: "io.containerd.runsc.v1"}},
			"not-runsc":        reg("/usr/bin/runsc-wrapper.sh", "--network=none"),
		},
	}
	for name, want := range map[string]ociRuntime{
		"":                 runcRuntime,
		"runc":             runcRuntime,
		"crun":             runcRuntime,
		"runsc":            runscRuntime,
		"runsc-netstack":   netstackRuntime,
		"runsc-host":       netstackRuntime,
		"runsc-two-args":   runscRuntime,
		"runsc-last-wins":  netstackRuntime,
		"runsc-after-dash": netstackRuntime,
		"runsc-dangling":   netstackRuntime,
		"gvisor":           runscRuntime,
		"runsc-shim":       netstackRuntime,
		"not-runsc":        runcRuntime,
	} {
		got, err := runtimeFrom(info, name)
		if err != nil || got != want {
			t.Errorf("runtimeFrom(%q) = %+v, %v; want %+v", name, got, err, want)
		}
	}

	// The daemon's default runtime is resolved like a named one.
	def := info
	def.DefaultRuntime = "runsc-netstack"
	if got, err := runtimeFrom(def, ""); err != nil || got != netstackRuntime {
		t.Errorf("default runsc-netstack: %+v, %v", got, err)
	}
	// A default the engine does not name or list is runc, the engine's own.
	for _, d := range []string{"", "io.containerd.runc.v2"} {
		def.DefaultRuntime = d
		if got, err := runtimeFrom(def, ""); err != nil || got != runcRuntime {
			t.Errorf("default %q: %+v, %v; want runc", d, got, err)
		}
	}
	// A named runtime the engine lacks is an error that names it.
	if got, err := runtimeFrom(info, "nosuchruntime"); err == nil || !strings.Contains(err.Error(), `"nosuchruntime"`) || !strings.Contains(err.Error(), "runsc-netstack") {
		t.Errorf("runtimeFrom(nosuchruntime) = %+v, %v; want an error naming it and the registered ones", got, err)
	}
}

func TestHelperConfig(t *testing.T) {
	t.Parallel()
	lbl := map[string]string{"behaves.role": "helper"}
	cfg, hc := helperConfig(runner.Apply(testProfile()), testImage(), []string{"vol1", "vol2"}, lbl)
	if !cmp.Equal([]string(cfg.Entrypoint), []string{"/nonexistent"}) || cfg.Image != testImageID || !cmp.Equal(cfg.Labels, lbl) {
		t.Errorf("helper config = %+v", cfg)
	}
	if hc.NetworkMode != "none" || hc.LogConfig.Type != "none" || hc.AutoRemove || !cmp.Equal([]string(hc.CapDrop), []string{"ALL"}) {
		t.Errorf("helper host config = %+v", hc)
	}
	if !cfg.NetworkDisabled || hc.DNS != nil {
		t.Errorf("helper: NetworkDisabled %v, DNS %q; want the network sandbox skipped", cfg.NetworkDisabled, hc.DNS)
	}
	wantMounts := []mount.Mount{
		{Type: mount.TypeVolume, Source: "vol1", Target: "/.behaves-delivery/0", VolumeOptions: &mount.VolumeOptions{NoCopy: true}},
		{Type: mount.TypeVolume, Source: "vol2", Target: "/.behaves-delivery/1", VolumeOptions: &mount.VolumeOptions{NoCopy: true}},
	}
	if diff := cmp.Diff(wantMounts, hc.Mounts); diff != "" {
		t.Errorf("helper mounts (-want +got):\n%s", diff)
	}
	// Every image VOLUME is covered, so the helper gets no anonymous volume.
	for _, v := range testImage().Volumes {
		if _, ok := hc.Tmpfs[v]; !ok {
			t.Errorf("helper does not cover VOLUME %s: %v", v, hc.Tmpfs)
		}
	}
}

func TestSettingsAndLimitsFromConfig(t *testing.T) {
	t.Parallel()
	prof, img := testProfile(), testImage()
	cfg, hc := containerConfig(runner.Apply(prof), img, runcRuntime, "vol1", runner.Invocation{}, nil)
	got := settingsFrom(runner.Apply(prof), img, cfg, hc)
	want := runner.Settings{
		Image:        prof.Image,
		ImageID:      testImageID,
		RepoDigest:   img.RepoDigest,
		ImageEnv:     []string{"PATH=/usr/bin:/bin", "FROM_IMAGE=1"},
		Entrypoint:   []string{"python3", "-I", "/program/main.py"},
		User:         "65534:65534",
		NetworkMode:  "none",
		NetworkFiles: runner.NetworkFilesNone,
		TmpfsBytes:   map[string]int64{"/tmp": 16 << 20, "/data": 64 << 20},
		ProgramDir:   "/program",
		Env:          []string{"A=1", "LANG=C.UTF-8"},
		// The profile's tmpfs alone: /data is the image's VOLUME's.
		Applied: runner.Applied{
			Image: prof.Image, Command: []string{"python3", "-I", "/program/main.py"}, User: "65534:65534",
			Env: []string{"A=1", "LANG=C.UTF-8"}, Tmpfs: map[string]int64{"/tmp": 16 << 20}, NetworkFiles: runner.NetworkFilesNone,
			Limits: runner.Limits{TimeoutMS: 5000, MemoryBytes: 128 << 20, CPUs: 0.5, Pids: 64, OutputLimit: 65536, OutputCeiling: 4 << 20},
		},
		Container: runner.Container{
			Hostname:        "behaves",
			NetworkDisabled: true,
			ReadonlyRootfs:  true,
			CapDrop:         []string{"ALL"},
			SecurityOpt:     []string{"no-new-privileges"},
			Memory:          128 << 20,
			MemorySwap:      128 << 20,
			NanoCPUs:        500_000_000,
			PidsLimit:       64,
			Ulimits:         map[string]int64{"nofile": 256, "fsize": 64 << 20, "core": 0},
			IpcMode:         "private",
			LogDriver:       "none",
			Init:            true,
			Tmpfs:           map[string]string{"/tmp": "rw,nosuid,nodev,noexec,size=16777216", "/data": "rw,nosuid,nodev,noexec,size=67108864"},
			ProgramMount:    "volume:vol1:/program:ro",
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	// The neutral sizes are the tmpfs mounts the engine was given.
	if len(got.TmpfsBytes) != len(hc.Tmpfs) {
		t.Errorf("tmpfs_bytes %v, engine tmpfs %v: not the same mounts", got.TmpfsBytes, hc.Tmpfs)
	}
	for p, n := range got.TmpfsBytes {
		if hc.Tmpfs[p] != tmpfsOptions(n) {
			t.Errorf("tmpfs_bytes[%s] = %d, the engine mounts it %q", p, n, hc.Tmpfs[p])
		}
	}

	wantLimits := runner.Limits{
		TimeoutMS:     5000,
		MemoryBytes:   128 << 20,
		CPUs:          0.5,
		Pids:          64,
		OutputLimit:   64 << 10,
		OutputCeiling: 4 << 20,
		NoFile:        256,
		FileSize:      64 << 20,
	}
	if diff := cmp.Diff(wantLimits, limitsFrom(runner.Apply(prof), hc)); diff != "" {
		t.Errorf("limits (-want +got):\n%s", diff)
	}
}

func TestLabels(t *testing.T) {
	t.Parallel()
	opt := Options{RunID: "0123456789abcdef", Host: "ci-1", PID: 4242, PIDNamespace: "pid:[4026532301]", StartedAt: time.Date(2026, 5, 7, 21, 9, 36, 5, time.FixedZone("x", 3600))}
	for _, role := range []string{RoleProgram, RoleHelper, RoleVolume} {
		want := map[string]string{
			"behaves.run-id":        "0123456789abcdef",
			"behaves.host":          "ci-1",
			"behaves.pid":           "4242",
			"behaves.pid-namespace": "pid:[4026532301]",
			"behaves.started-at":    "2026-05-07T20:09:36Z",
			"behaves.role":          role,
		}
		if diff := cmp.Diff(want, labels(opt, role)); diff != "" {
			t.Errorf("labels(%s) (-want +got):\n%s", role, diff)
		}
	}
}

func TestShortRunIDAndNames(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"9f86d081-884c-4d63": "9f86d081",
		"ab-cd":              "abcd",
		"../..":              "run",
		"ÄÖÜabc":             "abc",
	} {
		if got := runIDLetters(in); got != want {
			t.Errorf("runIDLetters(%q) = %q, want %q", in, got, want)
		}
		sum := sha256.Sum256([]byte(in))
		if got := shortRunID(in); got != want+hex.EncodeToString(sum[:2]) {
			t.Errorf("shortRunID(%q) = %q, want %q and 4 hex digits of its hash", in, got, want)
		}
	}
	// Run IDs that start alike (as tests make them) give distinct names.
	if a, b := shortRunID("test-sweep-75f9aa2c"), shortRunID("test-sweep-0d2c41e7"); a == b {
		t.Errorf("shortRunID gives %q for two run IDs", a)
	}
	s := &Sandbox{prefix: "behaves-9f86d081-"}
	if a, b := s.nextName(""), s.nextName("-helper"); a != "behaves-9f86d081-1" || b != "behaves-9f86d081-2-helper" {
		t.Errorf("names = %q, %q", a, b)
	}
}

func TestCheckProfile(t *testing.T) {
	t.Parallel()
	prog := runner.Program{Files: runner.FilesOf(map[string][]byte{"src/fizz.py": []byte("x")}), Entry: "src/fizz.py"}
	prof := testProfile()
	prof.ProgramName = ""
	got, err := runner.CheckProfile(prof, prog)
	if err != nil || got.ProgramName != "fizz.py" {
		t.Fatalf("checkProfile default name = %q, %v", got.ProgramName, err)
	}

	bad := testProfile()
	bad.Command = nil
	bad.Pids = 0
	bad.User = "0:0"
	bad.ProgramName = "../x"
	bad.Tmpfs = map[string]int64{"/program/tmp": 1}
	bad.Env = map[string]string{"A=B": "1"}
	_, err = runner.CheckProfile(bad, prog)
	if err == nil {
		t.Fatal("checkProfile accepted a bad profile")
	}
	for _, want := range []string{"no command", "pids limit", "user", "program name", "cover the program", "environment name"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	for _, u := range []string{"65534", "nobody:nogroup", "1:0", "-1:5", ""} {
		if runner.CheckUser(u) == nil {
			t.Errorf("runner.CheckUser(%q) accepted", u)
		}
	}
	if err := runner.CheckUser("1000:1000"); err != nil {
		t.Errorf("runner.CheckUser(1000:1000) = %v", err)
	}
}

// TestReportFixtureIsTheSandboxs: the settings and limits that the report
// tests' fixtures record (reporttest.Settings, reporttest.Limits) are what
// this sandbox records for their profile (reporttest.Profile), so that a report
// test never reads settings no real run could write.
func TestReportFixtureIsTheSandboxs(t *testing.T) {
	t.Parallel()
	prof := reporttest.Profile()
	img := imageInfo{Ref: prof.Image, ID: reporttest.Settings.ImageID, Env: reporttest.Settings.ImageEnv}
	cfg, hc := containerConfig(runner.Apply(prof), img, runcRuntime, "behaves-run-0001-program", runner.Invocation{}, nil)
	if diff := cmp.Diff(settingsFrom(runner.Apply(prof), img, cfg, hc), reporttest.Settings); diff != "" {
		t.Errorf("reporttest.Settings is not what the sandbox records (-sandbox +fixture):\n%s", diff)
	}
	if diff := cmp.Diff(limitsFrom(runner.Apply(prof), hc), reporttest.Limits); diff != "" {
		t.Errorf("reporttest.Limits is not what the sandbox records (-sandbox +fixture):\n%s", diff)
	}
}
