package spec

import (
	"path"
	"time"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// Pos is a place in a spec file. Line and Col are 1-based; Col is 0 when
// only the line is known.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

// Ceilings bound what a spec may ask for. A spec above a ceiling is an error,
// never clamped: the spec may come from an untrusted pull request.
type Ceilings struct {
	MaxTimeout time.Duration
	MaxMemory  int64
	MaxOutput  int64 // caps output_ceiling
	// MaxOutputLimit caps output_limit, the bytes kept per stream: behaves'
	// own memory and the report grow with it (see docs/security.md).
	MaxOutputLimit int64
	MaxCases       int // invocations in a run (programs × cases)
	// MaxPids caps pids: a process limit in the millions is no limit at all
	// (the pids cgroup, or nproc under runsc, takes any value).
	MaxPids int64
	// MaxRepeat caps repeat: a case's runs are held in memory until the
	// last is in, so behaves' memory grows with it (see docs/security.md).
	// At most spec.MaxRepeat.
	MaxRepeat int
	// MaxReferenceOutput caps the output of the reference programs' runs
	// that behaves holds in memory until their candidates are judged:
	// every reference run × 2 streams × its output_limit (see
	// docs/security.md).
	MaxReferenceOutput int64
	// MaxProgramFiles and MaxProgramSize bound a folder program (dir:):
	// the files and links it holds, and the sum of its files' sizes.
	// Each file is read once when the spec loads, and hashed; its bytes
	// are not kept (runner.File).
	MaxProgramFiles int
	MaxProgramSize  int64
}

// DefaultCeilings are the CLI's defaults.
var DefaultCeilings = Ceilings{
	MaxTimeout:     10 * time.Minute,
	MaxMemory:      4 << 30,
	MaxOutput:      4 << 30,
	MaxOutputLimit: 1 << 20,
	MaxCases:       10000,
	MaxPids:        1024,
	MaxRepeat:      10,
	// 256MiB: 128 reference runs at the largest output_limit, 2,048 at
	// the default 64KiB.
	MaxReferenceOutput: 256 << 20,
	MaxProgramFiles:    10000,
	MaxProgramSize:     64 << 20,
}

// Spec is a loaded, valid spec.
type Spec struct {
	// Path is the spec file as given; Root the repository root every path
	// must stay inside.
	Path string
	Root string
	// SHA256 is the lowercase hex SHA-256 of the spec file's bytes as read.
	SHA256 string
	// Profiles by name.
	Profiles map[string]Profile
	// Programs in spec order, with `files:` globs expanded (one program per
	// match, in lexical order).
	Programs []Program
	// Checkers are the spec's checker programs (its checkers:), sorted by
	// name: they judge the streams whose matcher names them, and are
	// never judged themselves.
	Checkers []Checker
}

// Profile is a named runtime profile.
type Profile struct {
	Pos Pos
	// CPUsPos locates the profile's cpus value (the profile's own position
	// when cpus takes its default), for CheckCPUs.
	CPUsPos Pos
	// BuildCPUsPos locates the build stage's cpus value (the build's or
	// the profile's cpus when it takes the profile's).
	BuildCPUsPos Pos
	// ImagePos locates the profile's image value (the profile's own
	// position when --image gives the image and the spec has none), and
	// BuildImagePos the build stage's (the profile's image when the stage
	// has none of its own), for CheckImages.
	ImagePos, BuildImagePos Pos
	Runtime                 runner.Profile
	// Repeat is the profile's repeat: how many times each of its cases
	// runs, each run in a fresh container, unless the case sets its own
	// (1 when the profile does not say).
	Repeat int
}

// Program is one program to judge.
type Program struct {
	// ID is stable across machines and runs: derived from the spec entry's
	// name and the program file's path relative to the root.
	ID string
	// Name is the entry's name, or "<name>/<file base name>" for a glob match.
	Name string
	// Group is the entry's name for a program a `files:` glob matched (one
	// of that entry's samples), "" for a `file:` entry.
	Group string
	// File is the program file's path relative to the repository root
	// (for a dir: entry, the folder's).
	File string
	// Profile is the profile's name.
	Profile string
	Pos     Pos
	// Program holds the file's content handle (its size, its digest and
	// where it is read again to be delivered), under the profile's
	// program_name (or the file's base name); for a dir: entry, every file
	// of the folder at its path relative to it, and its entry.
	Program runner.Program
	// With maps each file a with: list delivers beside the program (its
	// path in Program.Files) to its path relative to the root.
	With map[string]string
	// Untracked are, for a dir: entry, the files in its folder that are
	// not part of the program because git does not track them (paths
	// relative to the root): what the run says it left out.
	Untracked []string
	Cases     []Case
	// Reference is the name of the program the entry names as its
	// reference ("" for none): a file: entry, one program. Its same_as
	// cases compare with that program's runs of the same invocation.
	Reference string
	// NotGating: the entry says gate: false and the workflow admits it
	// (Options.AllowNonGating): its verdict is reported but does not
	// decide the run's.
	NotGating bool
}

// Source is the path, relative to the root, of the file the program
// delivers at /program/<delivered>: a with: file's own, a folder
// program's file under its folder, a one-file program's file.
func (p Program) Source(delivered string) string {
	if rel, ok := p.With[delivered]; ok {
		return rel
	}
	if p.Program.Folder {
		return path.Join(p.File, delivered)
	}
	return p.File
}

// Case is one invocation and what it expects. The runner gets only
// Invocation; the verdict gets only Expect.
type Case struct {
	Name string
	// Pos is where the case is written: in the spec, or in the cases file
	// that holds it (Pos.File is then that file's path, given the way the
	// spec's was).
	Pos Pos
	// File is the cases file's path relative to the repository root,
	// slash-separated; "" for a case written in the spec.
	File       string
	Invocation runner.Invocation
	Expect     verdict.Expectation
	// StdinFile is the stdin file's path relative to the root ("" for none).
	StdinFile string
	// Repeat is how many times the case runs, each run in a fresh
	// container (1..MaxRepeat): the case's repeat, else its profile's,
	// else 1. Its runs are judged apart and folded (verdict.Fold).
	Repeat int
	// SameAsPos locates the expectation's same_as key (zero without one).
	SameAsPos Pos
}
