package runner

import (
	"context"
	"errors"
	"path"
	"strings"
	"time"
)

// Profile is how a program runs: the image, the command and the limits. It
// holds no expectation. Sizes are bytes.
type Profile struct {
	// Name is the profile's name in the spec, for messages only.
	Name string
	// Image is "name@sha256:<hex>" (a registry digest) or "sha256:<hex>" (a
	// local image ID). Scoring never pulls it (an opt-in pull phase may,
	// before scoring).
	Image string
	// Command is the effective argv prefix; "/program/<ProgramName>" and the
	// invocation's args follow it. The image ENTRYPOINT never applies.
	Command []string
	// ProgramName is the path the entry file gets under /program: a file
	// name for a one-file program, the entry's own path for a folder
	// program ("" for one without an entry: nothing is appended).
	ProgramName string
	// Timeout bounds the program's own run, from start to exit.
	Timeout time.Duration
	// Memory is the memory limit; memory+swap is set to the same value.
	Memory int64
	// CPUs is the CPU quota in cores (0.5 = half a core).
	CPUs float64
	// Pids is the process limit (always > 0).
	Pids int64
	// OutputLimit is the number of bytes retained per stream.
	OutputLimit int64
	// OutputCeiling is the number of bytes on one stream past which the
	// container is killed.
	OutputCeiling int64
	// User is the numeric "uid:gid" the program runs as, both > 0.
	User string
	// Tmpfs maps a container path to the size of a writable scratch mount.
	Tmpfs map[string]int64
	// Env is the environment the profile adds; nothing else from behaves'
	// own environment reaches the program.
	Env map[string]string
	// Runtime is the OCI runtime ("" for the engine's default, "runsc" for
	// gVisor).
	Runtime string
	// NetworkFiles says whether the engine manages the container's
	// /etc/hosts and /etc/resolv.conf. "" is NetworkFilesNone.
	NetworkFiles NetworkFiles
	// Build, when set, is a stage that runs once per program attempt before
	// its invocations. Command is then the full argv prefix of every
	// invocation: nothing is appended but the invocation's args.
	Build *Build
	// Backend is the sandbox backend the run uses, "" for Docker (the
	// run's --backend, never the spec's): evidence of one backend never
	// answers for another.
	Backend string
}

// Build is a profile's build stage: one container per program attempt, with
// the program's files read-only at /program and a writable volume at
// /build that every invocation then mounts read-only. User, Env and
// Runtime are the profile's. Sizes are bytes.
type Build struct {
	// Image is pinned like the profile's (it defaults to it in the spec).
	Image string
	// Command is the build's argv: the program's path ("/program/<ProgramName>")
	// goes where ProgramPlaceholder stands, a whole element, else it is
	// appended (BuildArgv).
	Command []string
	// Timeout, Memory, CPUs, Pids, OutputLimit and OutputCeiling bound the
	// build container as they bound a program's.
	Timeout       time.Duration
	Memory        int64
	CPUs          float64
	Pids          int64
	OutputLimit   int64
	OutputCeiling int64
	// OutputSize is what /build may hold after the build.
	OutputSize int64
	// Tmpfs are the build's scratch mounts (the spec defaults them to
	// {/tmp: 64MiB}).
	Tmpfs map[string]int64
}

// NetworkFiles is a profile's network_files: whether the engine sets up its
// network sandbox for each container, which is what manages /etc/hosts and
// /etc/resolv.conf. Either way the container has its own network namespace
// with only loopback.
type NetworkFiles string

// The values of NetworkFiles.
const (
	// NetworkFilesNone skips the engine's network sandbox where the
	// runtime allows it (the default): /etc/hosts and /etc/resolv.conf are
	// empty, so localhost resolves by address only.
	NetworkFilesNone NetworkFiles = "none"
	// NetworkFilesManaged keeps it: the engine writes /etc/hosts (localhost)
	// and /etc/resolv.conf (nameserver 127.0.0.1), at the cost of its
	// network setup on every start.
	NetworkFilesManaged NetworkFiles = "managed"
)

// OrDefault is nf, with "" read as NetworkFilesNone.
func (nf NetworkFiles) OrDefault() NetworkFiles {
	if nf == "" {
		return NetworkFilesNone
	}
	return nf
}

// Program is what runs: a file tree, path (relative to /program) to the
// file's content handle (File: its size, its digest and where its bytes
// are read when it is delivered). Entry names the file that
// Profile.Command runs ("" for a folder program without one: the profile's
// command says what runs).
type Program struct {
	Files map[string]File
	Entry string
	// Folder marks a program that is a folder of files (a spec's dir:):
	// its files keep their own paths (the entry is not renamed to the
	// profile's program name) and its digest is its file list's (Digest).
	Folder bool
	// Executable are the files delivered executable (mode 0555; every
	// other file 0444).
	Executable map[string]bool
	// Links are the symbolic links delivered with the files: path →
	// target, a relative path that resolves inside the program.
	Links map[string]string
}

// Invocation is one input to a program: its arguments and its stdin.
type Invocation struct {
	Args  []string
	Stdin []byte
}

// ResourceLimit names a limit the sandbox enforced.
type ResourceLimit string

// The enforced limits a case can report.
const (
	LimitNone   ResourceLimit = ""
	LimitMemory ResourceLimit = "memory"
	LimitOutput ResourceLimit = "output"
	// LimitBuildOutput: the build left more in /build than its output_size.
	LimitBuildOutput ResourceLimit = "build_output"
)

// Stream is one output stream as observed: the retained bytes (at most the
// profile's OutputLimit), whether more was written than retained, and the
// total number of bytes the program wrote (counted while draining).
type Stream struct {
	Data      []byte
	Truncated bool
	Bytes     int64
}

// Limits are the limits applied to an invocation, as recorded in its event.
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

// Event is the evidence of one invocation. SandboxError is empty when the
// sandbox observed the run to its end; otherwise it says why the evidence is
// incomplete, and the case can only be undetermined.
type Event struct {
	// ExitCode is set only for a container that exited.
	ExitCode *int
	Stdout   Stream
	Stderr   Stream
	// StdinBytes is how many bytes of stdin the program accepted before it
	// exited or closed its input.
	StdinBytes  int64
	StdinSHA256 string
	// TimedOut is set only when behaves' timeout kill ended a running
	// program, as the engine recorded it (the docker package says how).
	TimedOut      bool
	ResourceLimit ResourceLimit
	// Command is the full argv that ran.
	Command []string
	// ImageDigest is the image ID ("sha256:…"); RepoDigest the registry
	// digest when the image has one.
	ImageDigest string
	RepoDigest  string
	// Duration is the program's own run time, from start to exit.
	Duration time.Duration
	// ProgramSHA256 is the lowercase hex digest of the entry file.
	ProgramSHA256 string
	Limits        Limits
	// SandboxError, when set, says why this invocation's evidence is
	// incomplete (the sandbox failed, or the run was not started).
	SandboxError string
	// BuildFailure, when set, says that the invocation did not run because
	// the program's build failed (observed evidence: the case is false),
	// and how: "build failed: exit 1: main.c:3:5: error: …".
	BuildFailure string
	// BuildOutputBytes is, for a build's event, what /build held after the
	// build: the bytes of its regular files, counted after a build that
	// exited 0 within its limits (nil otherwise, and for any other event).
	// Past the build's output_size the count stops at the first file that
	// passes it, so it is then more than output_size, not the whole.
	BuildOutputBytes *int64
	// Applied is what the invocation's container was built from (its
	// attempt's Settings.Applied, shared by every event of the attempt:
	// never changed through it). A same_as case records its reference
	// runs' (report.Case.ReferenceApplied): they ran in an attempt of
	// their own.
	Applied *Applied
}

// Settings records the sandbox settings an attempt applied, for the
// report: first what any sandbox has (the image, the command, the user,
// the runtime and network, the scratch mounts and their sizes, the
// environment), then, in Container, what a container engine's own
// settings came to. The limits an invocation ran under are each event's
// Limits, in units of their own, not here. In a report (behaves.report/v1)
// the two are one flat object: Container is embedded, so its fields keep
// their names, in the same object, as before the split, and a reader of
// an earlier report reads this one. The evidence key reads only the
// neutral fields.
type Settings struct {
	Image      string   `json:"image"`
	ImageID    string   `json:"image_id"`
	RepoDigest string   `json:"repo_digest"`
	ImageEnv   []string `json:"image_env"`
	// Entrypoint is the argv before an invocation's args (Applied's
	// Command): the profile's command and, without a build, the
	// program's path. An earlier behaves recorded the profile's command
	// alone.
	Entrypoint  []string `json:"entrypoint"`
	User        string   `json:"user"`
	NetworkMode string   `json:"network_mode"`
	// NetworkFiles is the profile's network_files (what the container's
	// network sandbox then came to also depends on the runtime); "" in a
	// report of an earlier behaves.
	NetworkFiles NetworkFiles `json:"network_files"`
	Runtime      string       `json:"runtime"`
	// TmpfsBytes is every writable scratch mount the program got, by
	// path, with its size in bytes: the profile's tmpfs and what the
	// sandbox added (a tmpfs over each image VOLUME). nil in a report of
	// an earlier behaves, which recorded the sizes only inside the
	// engine's mount options (Container.Tmpfs).
	TmpfsBytes map[string]int64 `json:"tmpfs_bytes"`
	// ProgramDir is the folder inside the sandbox where the program's
	// files are ("/program"), what a reader needs to tell the program's
	// own file in a traceback. A report of an earlier behaves has none:
	// readers take it from Container.ProgramMount (ProgramDirOf).
	ProgramDir string   `json:"program_dir"`
	Env        []string `json:"env"`
	// Applied is what the attempt's containers were built from
	// (runner.Apply, the build's included): what the evidence key
	// compares. Zero in a report of an earlier behaves.
	Applied Applied `json:"applied"`
	Container
}

// Container is a container engine's own settings, as it applied them
// (Docker's names and units): what a reader checks the hardening against,
// and nothing a key or a verdict depends on.
type Container struct {
	Hostname string `json:"hostname"`
	// NetworkDisabled is set when the engine's network sandbox is skipped:
	// the container then has no engine-managed /etc/hosts or
	// /etc/resolv.conf, and DNS is empty (it would not apply).
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
	// ProgramMount describes the mounts that bring the program in
	// ("volume:<name>:/program:ro").
	ProgramMount string `json:"program_mount"`
}

// ProgramPlaceholder, as a whole element of a build's command, is where
// the program's path goes (at most once; the spec refuses it in a longer
// argument, twice, or in a run command).
const ProgramPlaceholder = "{program}"

// BuildArgv is a build's argv for the program at programPath: command
// with its ProgramPlaceholder element replaced by the path, or, without
// one, the path appended. A build with a flag that must follow the
// source (gcc's -lcrypto) writes the placeholder before the flag.
func BuildArgv(command []string, programPath string) []string {
	out := make([]string, 0, len(command)+1)
	placed := false
	for _, a := range command {
		if a == ProgramPlaceholder && !placed {
			a, placed = programPath, true
		}
		out = append(out, a)
	}
	if !placed {
		out = append(out, programPath)
	}
	return out
}

// DefaultProgramDir is where the sandboxes behaves has had put a program,
// for a report that says neither ProgramDir nor a readable ProgramMount.
const DefaultProgramDir = "/program"

// ProgramDirOf is the folder where the program's files were inside the
// sandbox: s.ProgramDir, else the target of the first mount that
// s.ProgramMount describes ("type:source:target:mode"; an earlier
// behaves), else DefaultProgramDir. It is never "" and never ends in "/",
// but for the root itself.
func ProgramDirOf(s Settings) string {
	dir := s.ProgramDir
	if dir == "" {
		first, _, _ := strings.Cut(s.ProgramMount, ",")
		if parts := strings.Split(first, ":"); len(parts) == 4 && strings.HasPrefix(parts[2], "/") {
			dir = parts[2]
		} else if strings.HasPrefix(first, "/") && !strings.Contains(first, ":") {
			dir = first // a bare path
		}
	}
	if dir = path.Clean(dir); dir == "." || !strings.HasPrefix(dir, "/") {
		return DefaultProgramDir
	}
	return dir
}

// Sandbox prepares programs to run. Preparing checks the image (never pulling
// it) and delivers the program's files; the returned Attempt runs invocations
// against that delivery.
type Sandbox interface {
	// Prepare prepares a batch of programs, so that a sandbox may deliver
	// several at once, and returns one result per request, in order. A
	// result's error says why that program cannot run at all (image
	// missing or not matching its pin, delivery failed); its text is the
	// reason a person reads. An error that holds a *LostError stops the
	// whole run.
	Prepare(ctx context.Context, batch []Request) []Prepared
}

// ImageResolver is a sandbox that can say which image it runs for a pin
// without running anything. Stored evidence answers for a registry
// digest only through it: a digest of an index names one image per
// platform, and the image actually run is the key's.
type ImageResolver interface {
	// ResolveImage is the image ID this sandbox runs for pin.
	ResolveImage(ctx context.Context, pin string) (string, error)
}

// Request is one program to prepare, with the profile it runs under.
type Request struct {
	Program Program
	Profile Profile
	// Checker is the job's (Job.Checker): the program is a checker.
	Checker bool
}

// Prepared is the result of preparing one program: an Attempt, or the error
// that stops the program from running.
type Prepared struct {
	Attempt Attempt
	Err     error
}

// Attempt is one prepared program.
type Attempt interface {
	// Settings reports the container settings this attempt applies.
	Settings() Settings
	// Run runs one invocation in a fresh container. The event is always the
	// evidence observed (with SandboxError set when it is incomplete). A
	// non-nil error is a cleanup failure (the container could not be
	// removed): the event keeps its meaning, the error goes into the
	// program's sandbox warnings, and the program's remaining cases stop.
	// An error that holds a *LostError (see there) stops the whole run.
	Run(ctx context.Context, inv Invocation) (Event, error)
	// Close removes what Prepare made. It must work on a context that is
	// not the (possibly cancelled) run context.
	Close(ctx context.Context) error
}

// Builder is an Attempt of a program whose profile has a build stage. The
// scheduler calls Build once, before the attempt's first Run, and runs no
// invocation unless the build succeeded (see BuildFailure). Its event and
// error mean what Run's do.
type Builder interface {
	Build(ctx context.Context) (Event, error)
}

// Warner is an Attempt whose sandbox applies something otherwise than the
// profile asks (a backend that cannot enforce a setting the way Docker
// does): its warnings go into the program's sandbox warnings, so that
// nothing a reader relies on is dropped silently.
type Warner interface {
	Warnings() []string
}

// LeftoverError marks a failure to remove something the sandbox made. When
// Prepare's error holds one (alone or within errors.Join), the scheduler
// lists it in the program's sandbox warnings rather than as a case's reason.
type LeftoverError struct{ Err error }

func (e *LeftoverError) Error() string { return e.Err.Error() }
func (e *LeftoverError) Unwrap() error { return e.Err }

// Leftover wraps a removal failure (nil stays nil).
func Leftover(err error) error {
	if err == nil {
		return nil
	}
	return &LeftoverError{Err: err}
}

// LostError marks the loss of the sandbox itself, as opposed to a failure
// of one program or container: for Docker, the engine stopped being
// reachable (connection refused or reset, its socket gone, a restart).
// Nothing more can run, so the run stops starting cases and fails (exit 4,
// whatever --fail-on says). A sandbox returns it from Prepare (in a
// result's error) or from Attempt.Run (in its error), alone or within
// errors.Join; its text says what was lost and why.
type LostError struct{ Err error }

func (e *LostError) Error() string { return e.Err.Error() }
func (e *LostError) Unwrap() error { return e.Err }

// Lost wraps the cause of a lost sandbox (nil stays nil).
func Lost(err error) error {
	if err == nil {
		return nil
	}
	return &LostError{Err: err}
}

// splitFailure separates, through nested errors.Join, the removal failures
// (leftovers) and the loss of the sandbox (the first LostError, if any)
// from the cause in err.
func splitFailure(err error) (cause error, leftovers []string, lost *LostError) {
	switch e := err.(type) {
	case *LeftoverError:
		return nil, strings.Split(e.Err.Error(), "\n"), nil
	case *LostError:
		return nil, nil, e
	}
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return err, nil, nil
	}
	var causes []error
	for _, e := range j.Unwrap() {
		c, l, lo := splitFailure(e)
		if c != nil {
			causes = append(causes, c)
		}
		leftovers = append(leftovers, l...)
		if lost == nil {
			lost = lo
		}
	}
	return errors.Join(causes...), leftovers, lost
}
