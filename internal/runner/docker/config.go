package docker

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"

	"github.com/behaves-dev/behaves/internal/runner"
)

const (
	// programDir is where the program's volume is mounted, read-only.
	programDir = "/program"
	// helperDir is where a helper container mounts the volumes it fills
	// (helperDir/0, helperDir/1, …): a path no image is expected to use.
	helperDir = "/.behaves-delivery"

	// workingDir is the program's working directory. It is always the
	// program's own (read-only) directory, whatever the profile's tmpfs: a
	// spec author can rely on one place, relative reads of the program's
	// other files work, and writable scratch is only ever where the profile
	// says (absolute tmpfs paths).
	workingDir = programDir

	// containerHostname is the fixed hostname of every program container, so
	// that nothing of the host or the run leaks through it.
	containerHostname = "behaves"

	// noFileLimit is the nofile ulimit (soft = hard).
	noFileLimit = 256

	// minFileSizeLimit is the floor of the fsize ulimit: the size of the
	// private /dev/shm (shmSize), the one sized writable mount every
	// container has even without a profile tmpfs.
	minFileSizeLimit = 64 << 20

	// shmSize is the size of the container's private /dev/shm, set
	// explicitly so that it does not depend on the daemon's default.
	shmSize = 64 << 20

	// maxVolumeTmpfs caps the tmpfs that covers an image VOLUME.
	maxVolumeTmpfs = 64 << 20

	// tmpfsFlags are the mount flags of every tmpfs (the size follows).
	tmpfsFlags = "rw,nosuid,nodev,noexec"
)

// imageInfo is what the image check learned about a pinned image.
type imageInfo struct {
	// Ref is the profile's reference ("sha256:…" or "name@sha256:…").
	Ref string
	// ID is the image ID (the config digest, "sha256:…"): containers are
	// created from it, never from a name.
	ID string
	// RepoDigest is the registry digest that matched the pin, or for an ID
	// pin the image's first repo digest; "" when the image has none.
	RepoDigest string
	// Env is the image's ENV (Config.Env), as the engine will add it.
	Env []string
	// Volumes are the image's declared VOLUME paths, cleaned and sorted.
	Volumes []string
}

// volumeTmpfsSize is the size of the tmpfs that covers each image VOLUME the
// profile does not cover itself: min(profile memory, 64 MiB). tmpfs pages are
// charged to the container's memory cgroup, so the memory limit bounds all
// scratch together; the cap keeps a volume nobody asked for from offering
// more than a modest scratch area.
func volumeTmpfsSize(ap runner.Applied) int64 {
	if m := ap.Limits.MemoryBytes; m > 0 && m < maxVolumeTmpfs {
		return m
	}
	return maxVolumeTmpfs
}

// tmpfsSizes is every tmpfs a program container gets: the profile's (ap's), plus
// one per image VOLUME whose exact path the profile does not already mount
// (the engine creates an anonymous, unsized volume for any VOLUME path
// without a mount of its own, so a tmpfs on a parent path is not enough).
// /program is skipped: the program volume is mounted there.
func tmpfsSizes(ap runner.Applied, img imageInfo) map[string]int64 {
	sizes := make(map[string]int64, len(ap.Tmpfs)+len(img.Volumes))
	maps.Copy(sizes, ap.Tmpfs) // cleaned by runner.Apply
	for _, v := range img.Volumes {
		if _, ok := sizes[v]; ok || v == programDir {
			continue
		}
		sizes[v] = volumeTmpfsSize(ap)
	}
	return sizes
}

// tmpfsOptions is the mount option string of a tmpfs of size bytes.
func tmpfsOptions(size int64) string {
	return fmt.Sprintf("%s,size=%d", tmpfsFlags, size)
}

// fileSizeLimit is the fsize ulimit: max(largest tmpfs, 64 MiB), so that a
// program can fill any scratch mount it was given with one file but can never
// create a file larger than the largest place it could write to.
func fileSizeLimit(tmpfs map[string]int64) int64 {
	limit := int64(minFileSizeLimit)
	for _, size := range tmpfs {
		limit = max(limit, size)
	}
	return limit
}

// imageTmpfs is the tmpfs map that covers the image's volumes alone, for the
// helper container (which is never started, but would otherwise get an
// anonymous volume per VOLUME at create time).
func imageTmpfs(ap runner.Applied, img imageInfo) map[string]string {
	out := map[string]string{}
	for _, v := range img.Volumes {
		if v != programDir {
			out[v] = tmpfsOptions(volumeTmpfsSize(ap))
		}
	}
	return out
}

// dnsServers is the DNS setting of a container whose network sandbox the
// engine sets up: a resolver inside the container's own, empty network
// namespace, so that /etc/resolv.conf never names the host's resolvers.
var dnsServers = []string{"127.0.0.1"}

// skipNetworkSandbox says whether a program container applying ap under rt is
// created with Config.NetworkDisabled: unless the profile asks for managed
// network files, or the runtime would then leave the program without a
// loopback that is up (see ociRuntime).
func skipNetworkSandbox(ap runner.Applied, rt ociRuntime) bool {
	return ap.NetworkFiles != runner.NetworkFilesManaged && rt.LoopbackWithoutSandbox
}

// containerConfig builds the configuration of the container that runs one
// invocation under runtime rt. It is pure: everything it needs is an
// argument. Of the profile it reads only ap (runner.Apply), what the
// evidence key compares: a setting this function used from anywhere else
// could change an outcome without changing the key.
//
// ap must be of a profile checked by checkProfile (ProgramName set, Pids > 0).
func containerConfig(ap runner.Applied, img imageInfo, rt ociRuntime, volume string, inv runner.Invocation, labels map[string]string) (*container.Config, *container.HostConfig) {
	sizes := tmpfsSizes(ap, img)
	tmpfs := make(map[string]string, len(sizes))
	for p, size := range sizes {
		tmpfs[p] = tmpfsOptions(size)
	}
	fsize := fileSizeLimit(sizes)

	cfg := &container.Config{
		Image:    img.ID,
		Hostname: containerHostname,
		User:     ap.User,
		// The image ENTRYPOINT never applies: the applied command (the
		// profile's, with the program's path unless a build ran) is the
		// entrypoint, the invocation's arguments are the command.
		Entrypoint: slices.Clone(ap.Command),
		Cmd:        slices.Clone(inv.Args),
		// Nothing of behaves' own environment is added; the engine adds
		// the image's ENV, PATH, HOSTNAME and HOME itself.
		Env:          slices.Clone(ap.Env),
		WorkingDir:   workingDir,
		Healthcheck:  &container.HealthConfig{Test: []string{"NONE"}},
		AttachStdin:  true,
		AttachStdout: true,
		AttachStderr: true,
		OpenStdin:    true,
		StdinOnce:    true,
		Tty:          false,
		// NetworkMode "none" (below) and the runtime are what isolate: the
		// container gets a network namespace of its own with only
		// loopback, whether or not the engine sets up its network sandbox
		// (libnetwork) for it. NetworkDisabled skips that sandbox, which
		// measured on Engine 20.10 is about 110 ms of every start (35–45%
		// of a bare lifecycle). What the program loses is what the sandbox
		// manages: /etc/hosts and /etc/resolv.conf are then the engine's
		// init-layer files, empty (an image's own files do not show
		// through), so localhost resolves by address only, and the DNS
		// setting would not apply, so it is not set. Kept when the profile
		// says network_files: managed, or when the runtime would leave no
		// loopback up without it (gVisor not registered with
		// --network=none; see skipNetworkSandbox).
		NetworkDisabled: skipNetworkSandbox(ap, rt),
		Labels:          labels,
	}

	var ulimits []*container.Ulimit
	ulimits = append(ulimits,
		&container.Ulimit{Name: "nofile", Soft: noFileLimit, Hard: noFileLimit},
		&container.Ulimit{Name: "fsize", Soft: fsize, Hard: fsize},
		&container.Ulimit{Name: "core", Soft: 0, Hard: 0},
	)
	pids := ap.Limits.Pids
	pidsLimit := &pids
	if rt.GVisor {
		// Under gVisor's runsc the profile's pids bound is RLIMIT_NPROC,
		// not the pids cgroup. Measured on this engine (runsc 20221219,
		// ptrace platform, cgroup v1, 2 CPUs):
		//   - The pids cgroup counts the sandbox's own host tasks (the
		//     sentry's Go threads, the gofer, a ptrace stub per guest
		//     address space): about 66 for an idle sandbox, more with more
		//     CPUs. pids 32 fails to start ("StartRoot … EOF"), and a limit
		//     reached later kills the sandbox (the container exits 2), which
		//     would read as the program's own exit code 2.
		//   - gVisor's kernel enforces RLIMIT_NPROC itself, per sandbox: it
		//     counts the sandbox's tasks of the uid, threads included (fork
		//     and thread creation fail with EAGAIN at pids; two sandboxes of
		//     the same uid held 40 processes each under nproc 64). Under
		//     runc the same ulimit would count the uid across the whole
		//     host, so it is set only here.
		//   - The memory limit bounds what the guest cannot see: every host
		//     task of the sandbox is in the container's memory cgroup
		//     (OOMKilled works). A process costs more memory under runsc
		//     (a forked python3 ≈ 4 MiB, the sandbox ≈ 17 MiB), and fork
		//     churn grows the sandbox's host tasks although the guest's stay
		//     under nproc (a fork bomb under nproc 32 reached about 1,250
		//     in 15 s, ~18 KiB of memory each) until the memory limit, the
		//     timeout or the program's end stops it.
		// The recorded pids limit (limitsFrom) is the nproc value.
		pidsLimit = nil
		ulimits = append(ulimits, &container.Ulimit{Name: "nproc", Soft: pids, Hard: pids})
	}

	var dns []string
	if !cfg.NetworkDisabled {
		dns = slices.Clone(dnsServers)
	}
	hc := &container.HostConfig{
		NetworkMode:    "none",
		DNS:            dns,
		ReadonlyRootfs: true,
		CapDrop:        []string{"ALL"},
		// Setting only no-new-privileges keeps the engine's default seccomp
		// profile (a "seccomp=…" entry would replace it).
		SecurityOpt: []string{"no-new-privileges"},
		IpcMode:     container.IPCModePrivate,
		ShmSize:     shmSize,
		// The default json-file driver would keep every byte the program
		// writes on the host's disk; attach delivers the streams.
		LogConfig:  container.LogConfig{Type: "none"},
		Init:       boolPtr(true),
		AutoRemove: false,
		Privileged: false,
		Runtime:    ap.Runtime,
		Tmpfs:      tmpfs,
		Mounts: []mount.Mount{{
			Type:          mount.TypeVolume,
			Source:        volume,
			Target:        programDir,
			ReadOnly:      true,
			VolumeOptions: &mount.VolumeOptions{NoCopy: true},
		}},
		Resources: container.Resources{
			Memory:     ap.Limits.MemoryBytes,
			MemorySwap: ap.Limits.MemoryBytes, // equal: no swap on top
			NanoCPUs:   nanoCPUs(ap.Limits.CPUs),
			PidsLimit:  pidsLimit,
			Ulimits:    ulimits,
		},
	}
	return cfg, hc
}

// helperConfig builds the configuration of the helper container that fills
// program volumes: it is created, receives one archive (deliveryTar) and is
// removed, never started. Volume k is mounted at helperDir/k. Its root is
// writable, because the engine refuses a copy into a read-only root unless
// the destination itself is a volume, and one copy must reach every
// volume: the copy writes nothing but the program files into the volumes
// (the mount points are made by the engine), and the helper's own layer is
// removed with it. ap and img give the tmpfs that covers the image's
// VOLUMEs, so that creating the helper makes no anonymous volume.
func helperConfig(ap runner.Applied, img imageInfo, volumes []string, labels map[string]string) (*container.Config, *container.HostConfig) {
	cfg := &container.Config{
		Image: img.ID,
		// A scratch image has no command, and create needs one; it never
		// runs.
		Entrypoint: []string{"/nonexistent"},
		Hostname:   containerHostname,
		// The engine sets up a network sandbox at start, never at create:
		// for a container that is never started NetworkDisabled changes
		// nothing measurable (create + remove took 108–150 ms either way
		// here, run-to-run noise), and were it ever started it would get
		// no engine-managed network.
		NetworkDisabled: true,
		Labels:          labels,
	}
	hc := &container.HostConfig{
		NetworkMode:    "none",
		ReadonlyRootfs: false,
		CapDrop:        []string{"ALL"},
		SecurityOpt:    []string{"no-new-privileges"},
		LogConfig:      container.LogConfig{Type: "none"},
		AutoRemove:     false,
		// The default runtime: the helper never runs, and a profile's
		// runtime problem belongs to the program's containers.
		Tmpfs: imageTmpfs(ap, img),
	}
	for k, v := range volumes {
		hc.Mounts = append(hc.Mounts, mount.Mount{
			Type:          mount.TypeVolume,
			Source:        v,
			Target:        helperDir + "/" + strconv.Itoa(k),
			ReadOnly:      false,
			VolumeOptions: &mount.VolumeOptions{NoCopy: true},
		})
	}
	return cfg, hc
}

func nanoCPUs(cpus float64) int64 {
	return int64(math.Round(cpus * 1e9))
}

func boolPtr(b bool) *bool { return &b }

// ulimit returns the soft value of the named ulimit in hc, and whether it is
// set.
func ulimit(hc *container.HostConfig, name string) (int64, bool) {
	for _, u := range hc.Ulimits {
		if u != nil && u.Name == name {
			return u.Soft, true
		}
	}
	return 0, false
}

// settingsFrom derives the report's settings from a built configuration, so
// that what is recorded is what is applied; ap is what it was built from
// (containerConfig's), recorded whole for the evidence key.
func settingsFrom(ap runner.Applied, img imageInfo, cfg *container.Config, hc *container.HostConfig) runner.Settings {
	ul := make(map[string]int64, len(hc.Ulimits))
	for _, u := range hc.Ulimits {
		if u != nil {
			ul[u.Name] = u.Soft
		}
	}
	var pids int64
	if hc.PidsLimit != nil {
		pids = *hc.PidsLimit
	}
	var mounts []string
	for _, m := range hc.Mounts {
		mode := "rw"
		if m.ReadOnly {
			mode = "ro"
		}
		mounts = append(mounts, fmt.Sprintf("%s:%s:%s:%s", m.Type, m.Source, m.Target, mode))
	}
	return runner.Settings{
		Image:        ap.Image,
		ImageID:      img.ID,
		RepoDigest:   img.RepoDigest,
		ImageEnv:     slices.Clone(img.Env),
		Entrypoint:   slices.Clone([]string(cfg.Entrypoint)),
		User:         cfg.User,
		NetworkMode:  string(hc.NetworkMode),
		NetworkFiles: ap.NetworkFiles,
		Runtime:      hc.Runtime,
		TmpfsBytes:   tmpfsSizes(ap, img),
		Applied:      ap.Clone(),
		ProgramDir:   programDir,
		Env:          slices.Clone(cfg.Env),
		Container: runner.Container{
			Hostname:        cfg.Hostname,
			NetworkDisabled: cfg.NetworkDisabled,
			DNS:             slices.Clone(hc.DNS),
			ReadonlyRootfs:  hc.ReadonlyRootfs,
			CapDrop:         slices.Clone([]string(hc.CapDrop)),
			SecurityOpt:     slices.Clone(hc.SecurityOpt),
			Memory:          hc.Memory,
			MemorySwap:      hc.MemorySwap,
			NanoCPUs:        hc.NanoCPUs,
			PidsLimit:       pids,
			Ulimits:         ul,
			IpcMode:         string(hc.IpcMode),
			LogDriver:       hc.LogConfig.Type,
			Init:            hc.Init != nil && *hc.Init,
			Tmpfs:           cloneMap(hc.Tmpfs),
			ProgramMount:    strings.Join(mounts, ","),
		},
	}
}

// limitsFrom derives the limits recorded in each event from a built
// configuration and the applied settings it was built from.
func limitsFrom(ap runner.Applied, hc *container.HostConfig) runner.Limits {
	nofile, _ := ulimit(hc, "nofile")
	fsize, _ := ulimit(hc, "fsize")
	var pids int64
	if hc.PidsLimit != nil {
		pids = *hc.PidsLimit
	} else if n, ok := ulimit(hc, "nproc"); ok {
		pids = n
	}
	return runner.Limits{
		TimeoutMS:     ap.Limits.TimeoutMS,
		MemoryBytes:   hc.Memory,
		CPUs:          float64(hc.NanoCPUs) / 1e9,
		Pids:          pids,
		OutputLimit:   ap.Limits.OutputLimit,
		OutputCeiling: ap.Limits.OutputCeiling,
		NoFile:        nofile,
		FileSize:      fsize,
	}
}

func cloneMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
