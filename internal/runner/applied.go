package runner

import (
	"maps"
	"path"
	"slices"
)

// Applied is what a sandbox applies to the containers of one profile, as
// the profile asks for it: everything an invocation's outcome depends on
// but the program's files, the invocation's input, the image's own
// contribution (its ID, ENV and VOLUMEs, which the image ID stands for)
// and the sandbox's fixed hardening (which the evidence format stands
// for). Apply computes it, and the Docker sandbox builds every container
// from it, so that a setting the sandbox uses is a field here; the
// evidence key (package evidence) compares it field by field, both ways.
// It holds no per-run name.
type Applied struct {
	// Image is the pin the container is created from ("sha256:<id>" or
	// "name@sha256:<digest>").
	Image string `json:"image"`
	// Command is the argv before the invocation's args: the profile's
	// command and, without a build, the program's path; a build's
	// command with the program's path in place (BuildArgv).
	Command []string `json:"command"`
	User    string   `json:"user"`
	// Env is the profile's environment as sorted "K=V".
	Env []string `json:"env"`
	// Tmpfs is the profile's scratch mounts, cleaned path → bytes. A
	// sandbox may add its own (a tmpfs over each image VOLUME), which
	// are the image's and not here (Settings.TmpfsBytes holds them all).
	Tmpfs        map[string]int64 `json:"tmpfs"`
	Runtime      string           `json:"runtime"`
	NetworkFiles NetworkFiles     `json:"network_files"`
	// Limits are the profile's; the sandbox's own derived ones (nofile,
	// fsize) are 0.
	Limits Limits `json:"limits"`
	// OutputSize is, for a build, what /build may hold after it (0 for a
	// program's own containers).
	OutputSize int64 `json:"output_size"`
	// Build is the build container's (nil without a build stage). Every
	// invocation runs on the build's output, so it is part of each.
	Build *Applied `json:"build"`
	// Backend is the sandbox backend ("kubernetes"), "" for Docker, so
	// that the keys Docker runs recorded before there was a second
	// backend (which read as "") stay what they were.
	Backend string `json:"backend"`
}

// Apply is what a sandbox applies to the containers of prof (whose
// ProgramName is set, as spec.Job sets it): its program's, and its
// build's.
func Apply(prof Profile) Applied {
	a := applyOne(prof)
	a.Command = slices.Clone(prof.Command)
	if prof.Build == nil { // with a build, the command is the full prefix
		if prof.ProgramName != "" { // a folder program without an entry: the command says what runs
			a.Command = append(a.Command, ProgramPath(prof))
		}
		return a
	}
	bp := BuildProfile(prof)
	b := applyOne(bp)
	b.Command = BuildArgv(bp.Command, ProgramPath(prof))
	b.OutputSize = prof.Build.OutputSize
	a.Build = &b
	return a
}

// applyOne is what every container of prof gets, but its command.
func applyOne(prof Profile) Applied {
	tmpfs := make(map[string]int64, len(prof.Tmpfs))
	for p, size := range prof.Tmpfs {
		tmpfs[path.Clean(p)] = size
	}
	env := make([]string, 0, len(prof.Env))
	for _, k := range slices.Sorted(maps.Keys(prof.Env)) {
		env = append(env, k+"="+prof.Env[k])
	}
	return Applied{
		Image:        prof.Image,
		User:         prof.User,
		Env:          env,
		Tmpfs:        tmpfs,
		Runtime:      prof.Runtime,
		Backend:      prof.Backend,
		NetworkFiles: prof.NetworkFiles.OrDefault(),
		Limits: Limits{TimeoutMS: prof.Timeout.Milliseconds(), MemoryBytes: prof.Memory, CPUs: prof.CPUs, Pids: prof.Pids,
			OutputLimit: prof.OutputLimit, OutputCeiling: prof.OutputCeiling},
	}
}

// BuildProfile is the profile the build container of prof runs under:
// the build's image, command, limits and scratch mounts, with the
// program's user, env, runtime and network files. prof.Build must be set.
func BuildProfile(prof Profile) Profile {
	b := prof.Build
	bp := prof
	bp.Name = prof.Name + " (build)"
	bp.Build = nil
	bp.Image = b.Image
	bp.Command = slices.Clone(b.Command)
	bp.Timeout, bp.Memory, bp.CPUs, bp.Pids = b.Timeout, b.Memory, b.CPUs, b.Pids
	bp.OutputLimit, bp.OutputCeiling = b.OutputLimit, b.OutputCeiling
	bp.Tmpfs = b.Tmpfs
	return bp
}

// ProgramPath is where a sandbox puts the program's entry file: under
// /program, at ProgramName; /program itself for a folder program without
// an entry (a build's {program}).
func ProgramPath(prof Profile) string {
	if prof.ProgramName == "" {
		return DefaultProgramDir
	}
	return DefaultProgramDir + "/" + prof.ProgramName
}

// Clone is a deep copy of a.
func (a Applied) Clone() Applied {
	a.Command = slices.Clone(a.Command)
	a.Env = slices.Clone(a.Env)
	a.Tmpfs = maps.Clone(a.Tmpfs)
	if a.Build != nil {
		b := a.Build.Clone()
		a.Build = &b
	}
	return a
}
