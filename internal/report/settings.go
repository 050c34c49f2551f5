package report

import "github.com/behaves-dev/behaves/internal/runner"

// The report's own forms of the sandbox's settings and limits: the JSON
// of behaves.report/v1 is defined here, by these types' tags, so that a
// change to the sandbox's Go types (package runner) cannot change the
// published format unseen. SettingsOf, AppliedOf and LimitsOf convert
// from the runner's types, Runner back; TestSettingsRoundTrip fails when
// a field of the runner's has no place here.

// Settings are a program attempt's sandbox settings: first what any
// sandbox has, then, flattened into the same object, what a container
// engine's own settings came to (Container). docs/verdicts.md says what
// each member means.
type Settings struct {
	Image        string           `json:"image"`
	ImageID      string           `json:"image_id"`
	RepoDigest   string           `json:"repo_digest"`
	ImageEnv     []string         `json:"image_env"`
	Entrypoint   []string         `json:"entrypoint"`
	User         string           `json:"user"`
	NetworkMode  string           `json:"network_mode"`
	NetworkFiles string           `json:"network_files"`
	Runtime      string           `json:"runtime"`
	TmpfsBytes   map[string]int64 `json:"tmpfs_bytes"`
	ProgramDir   string           `json:"program_dir"`
	Env          []string         `json:"env"`
	Applied      Applied          `json:"applied"`
	Container
}

// Container is a container engine's own settings, in Docker's names and
// units.
type Container struct {
	Hostname        string            `json:"hostname"`
	NetworkDisabled bool              `json:"network_disabled"`
	DNS             []string          `json:"dns"`
	ReadonlyRootfs  bool              `json:"readonly_rootfs"`
	CapDrop         []string          `json:"cap_drop"`
	SecurityOpt     []string          `json:"security_opt"`
	Memory          int64             `json:"memory"`
	MemorySwap      int64             `json:"memory_swap"`
	NanoCPUs        int64             `json:"nano_cpus"`
	PidsLimit       int64             `json:"pids_limit"`
	Ulimits         map[string]int64  `json:"ulimits"`
	IpcMode         string            `json:"ipc_mode"`
	LogDriver       string            `json:"log_driver"`
	Init            bool              `json:"init"`
	Tmpfs           map[string]string `json:"tmpfs"`
	ProgramMount    string            `json:"program_mount"`
}

// Applied is what a sandbox built an attempt's containers from
// (runner.Applied): the settings part of the evidence key.
type Applied struct {
	Image        string           `json:"image"`
	Command      []string         `json:"command"`
	User         string           `json:"user"`
	Env          []string         `json:"env"`
	Tmpfs        map[string]int64 `json:"tmpfs"`
	Runtime      string           `json:"runtime"`
	NetworkFiles string           `json:"network_files"`
	Limits       Limits           `json:"limits"`
	OutputSize   int64            `json:"output_size"`
	Build        *Applied         `json:"build"`
	// Backend is the sandbox backend ("kubernetes"); "" for Docker, as
	// a report written before there was a second backend reads.
	Backend string `json:"backend"`
}

// Limits are the limits a run had, in behaves' own units.
type Limits struct {
	TimeoutMS     int64   `json:"timeout_ms"`
	MemoryBytes   int64   `json:"memory_bytes"`
	CPUs          float64 `json:"cpus"`
	Pids          int64   `json:"pids"`
	OutputLimit   int64   `json:"output_limit"`
	OutputCeiling int64   `json:"output_ceiling"`
	NoFile        int64   `json:"nofile"`
	FileSize      int64   `json:"fsize"`
}

// SettingsOf is s as a report records it.
func SettingsOf(s runner.Settings) Settings {
	return Settings{
		Image: s.Image, ImageID: s.ImageID, RepoDigest: s.RepoDigest, ImageEnv: s.ImageEnv, Entrypoint: s.Entrypoint,
		User: s.User, NetworkMode: s.NetworkMode, NetworkFiles: string(s.NetworkFiles), Runtime: s.Runtime,
		TmpfsBytes: s.TmpfsBytes, ProgramDir: s.ProgramDir, Env: s.Env, Applied: AppliedOf(s.Applied),
		Container: Container(s.Container),
	}
}

// Runner is s as the runner's type.
func (s Settings) Runner() runner.Settings {
	return runner.Settings{
		Image: s.Image, ImageID: s.ImageID, RepoDigest: s.RepoDigest, ImageEnv: s.ImageEnv, Entrypoint: s.Entrypoint,
		User: s.User, NetworkMode: s.NetworkMode, NetworkFiles: runner.NetworkFiles(s.NetworkFiles), Runtime: s.Runtime,
		TmpfsBytes: s.TmpfsBytes, ProgramDir: s.ProgramDir, Env: s.Env, Applied: s.Applied.Runner(),
		Container: runner.Container(s.Container),
	}
}

// AppliedOf is a as a report records it.
func AppliedOf(a runner.Applied) Applied {
	out := Applied{Image: a.Image, Command: a.Command, User: a.User, Env: a.Env, Tmpfs: a.Tmpfs, Runtime: a.Runtime,
		NetworkFiles: string(a.NetworkFiles), Limits: LimitsOf(a.Limits), OutputSize: a.OutputSize, Backend: a.Backend}
	if a.Build != nil {
		b := AppliedOf(*a.Build)
		out.Build = &b
	}
	return out
}

// Runner is a as the runner's type.
func (a Applied) Runner() runner.Applied {
	out := runner.Applied{Image: a.Image, Command: a.Command, User: a.User, Env: a.Env, Tmpfs: a.Tmpfs, Runtime: a.Runtime,
		NetworkFiles: runner.NetworkFiles(a.NetworkFiles), Limits: a.Limits.Runner(), OutputSize: a.OutputSize, Backend: a.Backend}
	if a.Build != nil {
		b := a.Build.Runner()
		out.Build = &b
	}
	return out
}

// ProgramDir is the folder where the program's files were inside the
// sandbox (runner.ProgramDirOf): never "", and never ending in "/" but
// for the root.
func (s Settings) ProgramDirOf() string { return runner.ProgramDirOf(s.Runner()) }

// LimitsOf is l as a report records it.
func LimitsOf(l runner.Limits) Limits { return Limits(l) }

// Runner is l as the runner's type.
func (l Limits) Runner() runner.Limits { return runner.Limits(l) }
