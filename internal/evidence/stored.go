package evidence

import (
	"maps"
	"slices"

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
		Format:       op.EvidenceFormat,
		SHA256:       op.ProgramSHA256,
		Image:        Image{Pin: st.Image, ID: st.ImageID, RepoDigest: st.RepoDigest},
		User:         st.User,
		Runtime:      st.Runtime,
		NetworkFiles: st.NetworkFiles,
		Env:          slices.Clone(st.Env),
		Tmpfs:        maps.Clone(st.TmpfsBytes),
	}
	if op.EvidenceFormat == 0 {
		// A report of an earlier behaves, written before each program
		// recorded its format.
		p.unrecorded = append(p.unrecorded, PartFormat)
	}
	if st.ImageID == "" && st.Image == "" {
		p.unrecorded = append(p.unrecorded, PartImage, PartUser, PartRuntime, PartNetworkFiles, PartEnv, PartTmpfs)
	} else if st.NetworkFiles == "" {
		// A report of an earlier behaves records what the network files
		// did (NetworkDisabled), not what the profile asked for.
		p.unrecorded = append(p.unrecorded, PartNetworkFiles)
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
		b.unrecorded = unrecorded(map[Part]bool{
			PartBuildCommand: len(ob.Command) == 0,
			PartBuildImage:   ob.ImageDigest == "",
			PartBuildLimits:  ob.Limits == (runner.Limits{}),
		})
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
	r.unrecorded = unrecorded(map[Part]bool{
		PartCommand: len(e.Command) == 0,
		PartStdin:   e.StdinSHA256 == "",
		PartLimits:  e.Limits == (runner.Limits{}),
	})
	return r
}

// Stored is the key of one stored run e of case oc of program attempt op
// (the case's event or one of its runs), from what the report recorded.
// ref is, for a same_as case, the attempt of its reference program in the
// same report (nil when the report does not hold it; see
// StoredReference).
func Stored(op *report.Program, oc *report.Case, e report.Event, ref *report.Program) Key {
	k := Key{Program: StoredProgram(op), Run: StoredRun(oc.Args, e)}
	for _, re := range oc.ReferenceEvents {
		k.References = append(k.References, StoredReference(oc.Args, re, ref))
	}
	return k
}

// StoredReference is the key of one stored run e of a same_as case's
// reference, of a case whose args were args. A reference event records
// its program's digest and its image, not the settings it ran under. Those
// are the reference program's own in the same run (one profile, one run):
// ref, that program's attempt in the same report, when it holds one of
// the same program file. Without it the settings are unrecorded.
func StoredReference(args []string, e report.Event, ref *report.Program) Key {
	var p Program
	if ref != nil && e.ProgramSHA256 != "" && ref.ProgramSHA256 == e.ProgramSHA256 {
		p = StoredProgram(ref)
		p.Image = Image{Pin: ref.Settings.Image, ID: e.ImageDigest, RepoDigest: e.RepoDigest}
	} else {
		p = Program{
			SHA256:     e.ProgramSHA256,
			Image:      Image{ID: e.ImageDigest, RepoDigest: e.RepoDigest},
			unrecorded: []Part{PartFormat, PartUser, PartRuntime, PartNetworkFiles, PartEnv, PartTmpfs, PartBuild},
		}
	}
	p.unrecorded = append(p.unrecorded, unrecorded(map[Part]bool{
		PartProgram: e.ProgramSHA256 == "",
		PartImage:   e.ImageDigest == "",
	})...)
	return Key{Program: p, Run: StoredRun(args, e)}
}

// profileLimits is l without the sandbox's own derived limits (nofile, and
// fsize from the tmpfs sizes), which are not the profile's.
func profileLimits(l runner.Limits) runner.Limits {
	l.NoFile, l.FileSize = 0, 0
	return l
}

// unrecorded lists the parts whose condition holds (each: the stored run
// left it empty), sorted.
func unrecorded(empty map[Part]bool) []Part {
	var out []Part
	for part, yes := range empty {
		if yes {
			out = append(out, part)
		}
	}
	slices.Sort(out)
	return out
}
