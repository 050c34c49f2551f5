// Package evidence names what an invocation's outcome depends on: its key.
//
// A key is computed twice, the same way: from the spec as it is now (Want),
// and from what a report recorded of a run (Stored). Where the two agree,
// the stored evidence answers for the spec; where they differ, Diff names
// each differing part in words a person can act on. rescore refuses on any
// recorded difference, and on an unrecorded evidence format (a report of a
// behaves that recorded none); reuse of stored evidence refuses on any
// difference and on any part the report did not record.
//
// A key holds no per-run identifier (run, execution, container or volume
// IDs): two runs of the same program on the same input under the same
// settings have the same key.
package evidence

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/runner"
)

// Key is everything one invocation's outcome depends on.
type Key struct {
	Program Program
	Run     Run
	// References, for a same_as case, are the keys of the reference's runs
	// the case is compared with, one a run (the reference runs the same
	// input under the same key each time); nil otherwise.
	References []Key
}

// Program is what every invocation of one program attempt shares: the
// program, the image and the settings of its profile, and its build.
type Program struct {
	// Format is the evidence format the attempt was recorded under
	// (report.EvidenceFormat).
	Format int
	// SHA256 is the lowercase hex digest of the program file.
	SHA256 string
	Image  Image
	User   string
	// Runtime is the OCI runtime ("" for the engine's default).
	Runtime      string
	NetworkFiles runner.NetworkFiles
	// Env is the profile's environment as sorted "K=V" (the image's own
	// ENV is the image's, which Image covers).
	Env []string
	// Tmpfs is the profile's scratch mounts, path → bytes. A stored key
	// may hold more: the image's VOLUME paths, which the sandbox covers
	// with scratch mounts of its own and Image covers.
	Tmpfs map[string]int64
	Build *Build
	// unrecorded lists the parts a stored run did not record (it stopped
	// before them, or came from an earlier behaves).
	unrecorded []Part
}

// Image is a pinned image: the reference the spec gives, and, once
// resolved, the image ID and the registry digest.
type Image struct {
	// Pin is "sha256:<id>" or "name@sha256:<digest>" ("" when unknown:
	// a stored event records only what it ran).
	Pin        string
	ID         string
	RepoDigest string
}

// Build is a profile's build stage. It compiles the program Program.SHA256
// names, with the profile's user, env and runtime.
type Build struct {
	// Command is the build's argv, the program's path in place.
	Command    []string
	Image      Image
	Limits     runner.Limits
	OutputSize int64
	Tmpfs      map[string]int64
	unrecorded []Part
}

// Run is one invocation: its input and how it ran.
type Run struct {
	// Command is the full argv: the profile's command, the program's path
	// (without a build), then Args.
	Command     []string
	Args        []string
	StdinSHA256 string
	// Limits are the profile's, without the sandbox's own derived ones
	// (nofile, fsize), which the sandbox sets the same for every run.
	Limits     runner.Limits
	unrecorded []Part
}

// Part names one thing a key holds, as Diff reports it.
type Part string

// The parts of a key.
const (
	PartFormat        Part = "format"
	PartProgram       Part = "program"
	PartImage         Part = "image"
	PartUser          Part = "user"
	PartRuntime       Part = "runtime"
	PartNetworkFiles  Part = "network_files"
	PartEnv           Part = "env"
	PartTmpfs         Part = "tmpfs"
	PartBuild         Part = "build"
	PartBuildCommand  Part = "build.command"
	PartBuildImage    Part = "build.image"
	PartBuildLimits   Part = "build.limits"
	PartBuildOutput   Part = "build.output_size"
	PartBuildTmpfs    Part = "build.tmpfs"
	PartArgs          Part = "args"
	PartStdin         Part = "stdin"
	PartCommand       Part = "command"
	PartLimits        Part = "limits"
	PartReference     Part = "reference"
	PartReferenceRuns Part = "reference.runs"
)

// Want is the key of inv of prog as the spec says it runs now under prof
// (whose ProgramName is set, as spec.Job sets it); ref is the reference's
// key for a same_as case, with refRuns its runs of this input.
func Want(prof runner.Profile, prog runner.Program, inv runner.Invocation, ref *Key, refRuns int) Key {
	k := Key{Program: WantProgram(prof, prog), Run: WantRun(prof, inv)}
	if ref != nil {
		k.References = slices.Repeat([]Key{*ref}, max(refRuns, 1))
	}
	return k
}

// WantProgram is the program part of the key of prog under prof.
func WantProgram(prof runner.Profile, prog runner.Program) Program {
	p := Program{
		Format:       report.EvidenceFormat,
		SHA256:       report.ProgramDigest(prog),
		Image:        Image{Pin: prof.Image},
		User:         prof.User,
		Runtime:      prof.Runtime,
		NetworkFiles: prof.NetworkFiles.OrDefault(),
		Env:          envList(prof.Env),
		Tmpfs:        maps.Clone(prof.Tmpfs),
	}
	if b := prof.Build; b != nil {
		p.Build = &Build{
			Command:    runner.BuildArgv(b.Command, programPath(prof)),
			Image:      Image{Pin: b.Image},
			Limits:     runner.Limits{TimeoutMS: b.Timeout.Milliseconds(), MemoryBytes: b.Memory, CPUs: b.CPUs, Pids: b.Pids, OutputLimit: b.OutputLimit, OutputCeiling: b.OutputCeiling},
			OutputSize: b.OutputSize,
			Tmpfs:      maps.Clone(b.Tmpfs),
		}
	}
	return p
}

// WantRun is the run part of the key of inv under prof.
func WantRun(prof runner.Profile, inv runner.Invocation) Run {
	cmd := slices.Clone(prof.Command)
	if prof.Build == nil { // with a build, the command is the full prefix
		cmd = append(cmd, programPath(prof))
	}
	return Run{
		Command:     append(cmd, inv.Args...),
		Args:        slices.Clone(inv.Args),
		StdinSHA256: digest(inv.Stdin),
		Limits: runner.Limits{TimeoutMS: prof.Timeout.Milliseconds(), MemoryBytes: prof.Memory, CPUs: prof.CPUs, Pids: prof.Pids,
			OutputLimit: prof.OutputLimit, OutputCeiling: prof.OutputCeiling},
	}
}

// programPath is where the sandbox puts the program's entry file.
func programPath(prof runner.Profile) string {
	return runner.DefaultProgramDir + "/" + prof.ProgramName
}

// envList is env as sorted "K=V", as the sandbox applies it.
func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
