package evidence

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// Difference is one part in which stored evidence is not the spec's now.
type Difference struct {
	Part Part
	// Msg says what the spec has now and what the stored run had, in words
	// a person can act on ("limits are timeout 1s, …, the stored run had
	// timeout 5s, …").
	Msg string
	// Unrecorded is set when the stored run did not record the part (it
	// stopped before it, or came from an earlier behaves): nothing says it
	// differs, nothing says it agrees.
	Unrecorded bool
}

// Diff lists every part in which got (stored) is not want (the spec's),
// the program's parts first, then the run's, then the reference's
// (their Part prefixed "reference.").
func Diff(want, got Key) []Difference {
	d := DiffProgram(want.Program, got.Program)
	d = append(d, DiffRun(want.Run, got.Run)...)
	return append(d, DiffReference(want.References, got.References)...)
}

// DiffReference lists how a same_as case's stored reference runs (got: the
// key of each; nil for a case that had none) differ from the reference's
// runs now (want; nil for a case that is not same_as). Each difference is
// listed once, with its Part prefixed "reference.".
func DiffReference(want, got []Key) []Difference {
	switch {
	case len(want) == 0 && len(got) == 0:
		return nil
	case len(want) == 0:
		return []Difference{{Part: PartReference, Msg: "the stored case was compared with a reference (same_as), the spec's is not"}}
	case len(got) == 0:
		return []Difference{{Part: PartReference, Msg: "the stored case was not same_as: it has no reference runs"}}
	}
	var d []Difference
	if len(want) != len(got) {
		d = append(d, Difference{Part: PartReferenceRuns, Msg: fmt.Sprintf("it runs %d %s for this input, the stored case has %d %s",
			len(want), times(len(want)), len(got), times(len(got)))})
	}
	for i, k := range got {
		for _, r := range Diff(want[min(i, len(want)-1)], k) {
			r.Part = PartReference + "." + r.Part
			if !slices.ContainsFunc(d, func(o Difference) bool { return o.Msg == r.Msg }) {
				d = append(d, r)
			}
		}
	}
	return d
}

// DiffProgram lists how a stored program attempt's part of the key differs
// from the spec's.
func DiffProgram(want, got Program) []Difference {
	c := &collector{unrecorded: got.unrecorded, by: "the stored run"}
	c.add(PartFormat, want.Format != got.Format, "this behaves records evidence format %d, the stored run was recorded under format %d by another behaves", want.Format, got.Format)
	c.add(PartProgram, want.SHA256 != got.SHA256, "changed since the stored run (sha256 %s, stored %s)", short(want.SHA256), short(got.SHA256))
	if got.Image.Pin != "" {
		c.add(PartImage, !sameImage(want.Image, got.Image), "image is %q, the stored run used %q", want.Image.Pin, got.Image.Pin)
	} else {
		c.add(PartImage, !sameImage(want.Image, got.Image), "image is %q, the stored run ran %s", want.Image.Pin, got.Image.ID)
	}
	c.add(PartUser, want.User != got.User, "user is %q, the stored run used %q", want.User, got.User)
	c.add(PartRuntime, want.Runtime != got.Runtime, "runtime is %q, the stored run used %q", want.Runtime, got.Runtime)
	c.add(PartNetworkFiles, want.NetworkFiles != got.NetworkFiles, "network_files is %q, the stored run used %q", want.NetworkFiles, got.NetworkFiles)
	c.add(PartEnv, !slices.Equal(want.Env, got.Env), "env is %q, the stored run used %q", want.Env, got.Env)
	// The stored mounts may hold the image's VOLUME paths besides the
	// profile's: only the profile's are compared (Image covers the rest).
	if slices.Contains(got.unrecorded, PartTmpfs) {
		c.add(PartTmpfs, false, "")
	} else {
		for _, path := range slices.Sorted(maps.Keys(want.Tmpfs)) {
			if size, ok := got.Tmpfs[path]; !ok || size != want.Tmpfs[path] {
				c.add(PartTmpfs, true, "tmpfs %s is %d bytes, the stored run had %s", path, want.Tmpfs[path], storedSize(size, ok))
			}
		}
	}
	if slices.Contains(got.unrecorded, PartBuild) {
		c.add(PartBuild, false, "")
		return c.d
	}
	return append(c.d, diffBuild(want.Build, got.Build)...)
}

// diffBuild lists how a stored build stage differs from the profile's.
func diffBuild(want, got *Build) []Difference {
	switch {
	case want == nil && got == nil:
		return nil
	case want == nil:
		return []Difference{{Part: PartBuild, Msg: fmt.Sprintf("stage is gone, the stored run built with %q", got.Command)}}
	case got == nil:
		return []Difference{{Part: PartBuild, Msg: "stage is new: the stored run had none"}}
	}
	c := &collector{unrecorded: got.unrecorded, by: "the stored build"}
	c.add(PartBuildCommand, !slices.Equal(want.Command, got.Command), "command is %q, the stored build ran %q", want.Command, got.Command)
	c.add(PartBuildImage, !sameImage(want.Image, got.Image), "image is %q, the stored build ran %s", want.Image.Pin, got.Image.ID)
	c.add(PartBuildLimits, want.Limits != got.Limits, "limits are %s, the stored build had %s", limits(want.Limits), limits(got.Limits))
	c.add(PartBuildOutput, want.OutputSize != got.OutputSize, "output_size is %s, the stored build had %s",
		verdict.FormatSize(want.OutputSize), verdict.FormatSize(got.OutputSize))
	c.add(PartBuildTmpfs, !maps.Equal(want.Tmpfs, got.Tmpfs) && (len(want.Tmpfs) > 0 || len(got.Tmpfs) > 0),
		"tmpfs is %v, the stored build had %v", want.Tmpfs, got.Tmpfs)
	return c.d
}

// DiffRun lists how a stored invocation's part of the key differs from the
// spec's. The stored command is compared with the spec's command for the
// stored args, so that changed args are one difference, not two.
func DiffRun(want, got Run) []Difference {
	c := &collector{unrecorded: got.unrecorded, by: "the stored run"}
	c.add(PartArgs, !slices.Equal(want.Args, got.Args), "args are %q, the stored case had %q", want.Args, got.Args)
	c.add(PartStdin, want.StdinSHA256 != got.StdinSHA256, "stdin changed (sha256 %s, stored %s)", short(want.StdinSHA256), short(got.StdinSHA256))
	prefix := want.Command
	if n := len(want.Command) - len(want.Args); n >= 0 {
		prefix = want.Command[:n]
	}
	cmd := append(slices.Clone(prefix), got.Args...)
	c.add(PartCommand, !slices.Equal(cmd, got.Command), "command is %q, the stored run ran %q", cmd, got.Command)
	c.add(PartLimits, want.Limits != got.Limits, "limits are %s, the stored run had %s", limits(want.Limits), limits(got.Limits))
	return c.d
}

// sameImage says whether a stored image is the one want pins: the same
// pin, or the pin names the image ID or registry digest the run recorded.
// Where both image IDs are known, they decide.
func sameImage(want, got Image) bool {
	if want.ID != "" && got.ID != "" {
		return want.ID == got.ID
	}
	if got.Pin != "" && want.Pin == got.Pin {
		return true
	}
	if want.Pin == got.ID || want.Pin == got.RepoDigest {
		return want.Pin != ""
	}
	_, digest, ok := strings.Cut(want.Pin, "@")
	_, stored, ok2 := strings.Cut(got.RepoDigest, "@")
	return ok && ok2 && digest == stored
}

func storedSize(n int64, ok bool) string {
	if !ok {
		return "none"
	}
	return fmt.Sprintf("%d bytes", n)
}

func limits(l runner.Limits) string {
	return fmt.Sprintf("timeout %s, memory %s, cpus %g, pids %d, output_limit %s, output_ceiling %s",
		time.Duration(l.TimeoutMS)*time.Millisecond, verdict.FormatSize(l.MemoryBytes), l.CPUs, l.Pids,
		verdict.FormatSize(l.OutputLimit), verdict.FormatSize(l.OutputCeiling))
}

// times is "time" or "times" for n.
func times(n int) string {
	if n == 1 {
		return "time"
	}
	return "times"
}

func short(digest string) string {
	if len(digest) > 12 {
		return digest[:12]
	}
	if digest == "" {
		return "none"
	}
	return digest
}

// collector gathers the differences of one part of a key, the parts the
// stored side did not record marked so whatever they hold.
type collector struct {
	unrecorded []Part
	by         string // who did not record it: "the stored run", "the stored build"
	d          []Difference
}

// add records part as unrecorded, or, when it differs, as a difference
// whose message is format with args.
func (c *collector) add(part Part, differs bool, format string, args ...any) {
	switch {
	case slices.Contains(c.unrecorded, part):
		c.d = append(c.d, Difference{Part: part, Unrecorded: true, Msg: fmt.Sprintf("%s: not recorded by %s", part, c.by)})
	case differs:
		c.d = append(c.d, Difference{Part: part, Msg: fmt.Sprintf(format, args...)})
	}
}
