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
// The settings part of a key is runner.Applied: what the sandbox builds
// every container from, computed by runner.Apply on both sides (the
// sandbox records the value it built from; the spec's is computed now).
// Diff walks its fields by reflection and compares each both ways (a map
// or list entry added, changed or removed is a difference), so a setting
// added to the sandbox is in the key without anyone remembering it here.
// What the image contributes (its ENV, its VOLUMEs, its platform) is
// recorded apart and stands behind the image ID.
//
// A key holds no per-run identifier (run, execution, container or volume
// IDs): two runs of the same program on the same input under the same
// settings have the same key.
package evidence

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

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
	// SHA256 is the program's digest (runner.Program.Digest).
	SHA256 string
	// Files is the program's file list when it is known (nil when a
	// report left it out): it does not decide whether two keys agree (the
	// digest does), it lets Diff name the files that differ.
	Files []runner.ListEntry
	Image Image
	// Applied is what every container of the attempt is built from, its
	// build's included (Applied.Build).
	Applied runner.Applied
	// BuildImage is the build's image (zero without a build).
	BuildImage Image
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
	// Unresolved, on the spec's side, says why a registry digest could
	// not be resolved to the image this engine runs (ResolveImages): no
	// stored run then answers for it.
	Unresolved string
}

// ResolveImages sets, on the spec's side of k (its program's image, its
// build's and its references'), the image ID each pin names here: an ID
// pin is its own; a registry digest is what resolve says this engine
// runs for it (nil resolve: there is no engine to ask). A digest of an
// index names one image per platform, so only the image actually run
// can stand for it: a stored run on another platform never answers.
func ResolveImages(k *Key, resolve func(pin string) (string, error)) {
	for _, p := range append([]*Program{&k.Program}, references(k)...) {
		resolveProgram(p, resolve)
	}
}

// resolveProgram is ResolveImages of one program part: its image's and
// its build's.
func resolveProgram(p *Program, resolve func(pin string) (string, error)) {
	for _, im := range []*Image{&p.Image, &p.BuildImage} {
		switch {
		case im.Pin == "" || im.ID != "":
			// nothing to resolve
		case !strings.Contains(im.Pin, "@"):
			im.ID = im.Pin
		case resolve == nil:
			im.Unresolved = "no engine to resolve it on"
		default:
			if id, err := resolve(im.Pin); err != nil {
				im.Unresolved = err.Error()
			} else {
				im.ID = id
			}
		}
	}
}

// references are the program parts of k's reference keys.
func references(k *Key) []*Program {
	out := make([]*Program, len(k.References))
	for i := range k.References {
		out[i] = &k.References[i].Program
	}
	return out
}

// Run is one invocation's input. How it ran (its command and limits) is
// the program's Applied: an invocation's argv is Applied.Command and its
// args.
type Run struct {
	Args        []string
	StdinSHA256 string
	unrecorded  []Part
}

// Part names one thing a key holds, as Diff reports it. Besides the
// parts below, each field of runner.Applied is a part named by its JSON
// name ("env", "tmpfs", "limits.timeout_ms"; a build's prefixed
// "build."): AppliedParts lists them.
type Part string

// The parts of a key that are not fields of runner.Applied.
const (
	PartFormat  Part = "format"
	PartProgram Part = "program"
	PartImage   Part = "image"
	// PartSettings is every field of runner.Applied at once, when the
	// stored run recorded none (it stopped before anything ran).
	PartSettings      Part = "settings"
	PartBuild         Part = "build"
	PartBuildImage    Part = "build.image"
	PartArgs          Part = "args"
	PartStdin         Part = "stdin"
	PartReference     Part = "reference"
	PartReferenceRuns Part = "reference.runs"
)

// Want is the key of inv of prog as the spec says it runs now under prof
// (whose ProgramName is set, as spec.Job sets it); ref is the reference's
// key for a same_as case, with refRuns its runs of this input.
func Want(prof runner.Profile, prog runner.Program, inv runner.Invocation, ref *Key, refRuns int) Key {
	return WantFor(WantProgram(prof, prog), inv, ref, refRuns)
}

// WantFor is Want of a program whose part of the key (WantProgram) is
// already known: the cases of one program share it, so that a program's
// file list is built once, not once per case. The keys share its file
// list, which nothing changes.
func WantFor(prog Program, inv runner.Invocation, ref *Key, refRuns int) Key {
	k := Key{Program: prog, Run: WantRun(inv)}
	if ref != nil {
		k.References = slices.Repeat([]Key{*ref}, max(refRuns, 1))
	}
	return k
}

// WantProgram is the program part of the key of prog under prof.
func WantProgram(prof runner.Profile, prog runner.Program) Program {
	p := Program{
		Format:  report.EvidenceFormat,
		SHA256:  prog.Digest(),
		Files:   prog.List(),
		Image:   Image{Pin: prof.Image},
		Applied: runner.Apply(prof),
	}
	if b := prof.Build; b != nil {
		p.BuildImage = Image{Pin: b.Image}
	}
	return p
}

// WantRun is the run part of the key of inv.
func WantRun(inv runner.Invocation) Run {
	return Run{Args: slices.Clone(inv.Args), StdinSHA256: digest(inv.Stdin)}
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
