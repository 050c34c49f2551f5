package evidence

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/runner"
)

// StoredProgram is the program part of the key of a stored program
// attempt, from what its report recorded. An attempt that stopped before
// running anything recorded no settings: every settings part is then
// unrecorded (its cases are undetermined).
func StoredProgram(op *report.Program) Program {
	st := op.Settings
	p := Program{
		SHA256:       op.ProgramSHA256,
		Image:        Image{Pin: st.Image, ID: st.ImageID, RepoDigest: st.RepoDigest},
		User:         st.User,
		Runtime:      st.Runtime,
		NetworkFiles: st.NetworkFiles,
		Env:          slices.Clone(st.Env),
		Tmpfs:        tmpfsSizes(st.Tmpfs),
	}
	if st.ImageID == "" && st.Image == "" {
		p.unrecorded = []Part{PartImage, PartUser, PartRuntime, PartNetworkFiles, PartEnv, PartTmpfs}
	} else if st.NetworkFiles == "" {
		// A report of an earlier behaves records what the network files
		// did (NetworkDisabled), not what the profile asked for.
		p.unrecorded = []Part{PartNetworkFiles}
	}
	if ob := op.Build; ob != nil {
		b := &Build{
			Command:    slices.Clone(ob.Command),
			Image:      Image{ID: ob.ImageDigest, RepoDigest: ob.RepoDigest},
			Limits:     profileLimits(ob.Limits),
			OutputSize: ob.OutputSize,
			Tmpfs:      maps.Clone(ob.Tmpfs),
		}
		// A build that never ran (a sandbox error before start) recorded
		// no command, image or limits.
		if len(ob.Command) == 0 {
			b.unrecorded = append(b.unrecorded, PartBuildCommand)
		}
		if ob.ImageDigest == "" {
			b.unrecorded = append(b.unrecorded, PartBuildImage)
		}
		if ob.Limits == (runner.Limits{}) {
			b.unrecorded = append(b.unrecorded, PartBuildLimits)
		}
		p.Build = b
	}
	return p
}

// StoredRun is the run part of the key of a stored event of a case whose
// args were args. An event that never ran (a sandbox error before start)
// recorded no command, stdin digest or limits.
func StoredRun(args []string, e report.Event) Run {
	r := Run{
		Command:     slices.Clone(e.Command),
		Args:        slices.Clone(args),
		StdinSHA256: e.StdinSHA256,
		Limits:      profileLimits(e.Limits),
	}
	if len(e.Command) == 0 {
		r.unrecorded = append(r.unrecorded, PartCommand)
	}
	if e.StdinSHA256 == "" {
		r.unrecorded = append(r.unrecorded, PartStdin)
	}
	if e.Limits == (runner.Limits{}) {
		r.unrecorded = append(r.unrecorded, PartLimits)
	}
	return r
}

// Stored is the key of one stored run e of case oc of program attempt op
// (the case's event or one of its runs), from what the report recorded.
func Stored(op *report.Program, oc *report.Case, e report.Event) Key {
	k := Key{Format: Format, Program: StoredProgram(op), Run: StoredRun(oc.Args, e)}
	for _, re := range oc.ReferenceEvents {
		k.References = append(k.References, StoredReference(oc.Args, re))
	}
	return k
}

// StoredReference is the key of one stored run of a same_as case's
// reference, of a case whose args were args. A reference event records
// its program's digest and its image, not its attempt's settings: those
// are unrecorded.
func StoredReference(args []string, e report.Event) Key {
	p := Program{
		SHA256:     e.ProgramSHA256,
		Image:      Image{ID: e.ImageDigest, RepoDigest: e.RepoDigest},
		unrecorded: []Part{PartUser, PartRuntime, PartNetworkFiles, PartEnv, PartTmpfs, PartBuild},
	}
	if e.ProgramSHA256 == "" {
		p.unrecorded = append(p.unrecorded, PartProgram)
	}
	if e.ImageDigest == "" {
		p.unrecorded = append(p.unrecorded, PartImage)
	}
	return Key{Format: Format, Program: p, Run: StoredRun(args, e)}
}

// profileLimits is l without the sandbox's own derived limits (nofile, and
// fsize from the tmpfs sizes), which are not the profile's.
func profileLimits(l runner.Limits) runner.Limits {
	l.NoFile, l.FileSize = 0, 0
	return l
}

// tmpfsSizes reads each mount's size=N from the sandbox's recorded mount
// options (a mount without one is left out: its size is not known).
func tmpfsSizes(opts map[string]string) map[string]int64 {
	out := make(map[string]int64, len(opts))
	for path, o := range opts {
		for _, f := range strings.Split(o, ",") {
			if v, ok := strings.CutPrefix(f, "size="); ok {
				if n, err := strconv.ParseInt(v, 10, 64); err == nil {
					out[path] = n
				}
			}
		}
	}
	return out
}
