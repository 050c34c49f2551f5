package evidence

import (
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/runner"
)

// StoredProgram is the program part of the key of a stored program
// attempt, from what its report recorded: the applied settings the
// sandbox built its containers from (Settings.Applied), and the image it
// ran. An attempt that stopped before running anything recorded no
// settings: they are then unrecorded (its cases are undetermined).
func StoredProgram(op *report.Program) Program {
	st := op.Settings
	p := Program{
		Format:  op.EvidenceFormat,
		SHA256:  op.ProgramSHA256,
		Files:   storedFiles(op),
		Image:   Image{Pin: st.Image, ID: st.ImageID, RepoDigest: st.RepoDigest},
		Applied: st.Applied.Runner().Clone(),
	}
	if op.EvidenceFormat == 0 {
		// A report of an earlier behaves, written before each program
		// recorded its format.
		p.unrecorded = append(p.unrecorded, PartFormat)
	}
	if st.ImageID == "" && st.Image == "" {
		p.unrecorded = append(p.unrecorded, PartImage)
	}
	if st.Applied.Image == "" {
		p.unrecorded = append(p.unrecorded, PartSettings)
	}
	if ob := op.Build; ob != nil {
		p.BuildImage = Image{ID: ob.ImageDigest, RepoDigest: ob.RepoDigest}
		if b := st.Applied.Build; b != nil {
			p.BuildImage.Pin = b.Image
		}
	}
	return p
}

// storedFiles is the file list op recorded (nil when it has none).
func storedFiles(op *report.Program) []runner.ListEntry {
	if len(op.Files) == 0 {
		return nil
	}
	l := make([]runner.ListEntry, len(op.Files))
	for i, f := range op.Files {
		l[i] = f.ListEntry()
	}
	return l
}

// StoredRun is the run part of the key of a stored event of a case whose
// args were args. An event that never ran (a sandbox error before start)
// recorded no stdin digest.
func StoredRun(args []string, e report.Event) Run {
	r := Run{Args: append([]string(nil), args...), StdinSHA256: e.StdinSHA256}
	if e.StdinSHA256 == "" {
		r.unrecorded = []Part{PartStdin}
	}
	return r
}

// Stored is the key of one stored run e of case oc of program attempt op
// (the case's event or one of its runs), from what the report recorded.
func Stored(op *report.Program, oc *report.Case, e report.Event) Key {
	k := Key{Program: StoredProgram(op), Run: StoredRun(oc.Args, e)}
	for _, re := range oc.ReferenceEvents {
		k.References = append(k.References, StoredReference(op.EvidenceFormat, oc.Args, re, oc.ReferenceApplied))
	}
	return k
}

// StoredReference is the key of one stored run e of a same_as case's
// reference, of a case whose args were args, recorded under format. The
// reference ran in an attempt of its own (not its program's): applied is
// what that attempt's containers were built from, as the case recorded
// it (nil when it did not: every setting is then unrecorded).
func StoredReference(format int, args []string, e report.Event, applied *report.Applied) Key {
	p := Program{
		Format: format,
		SHA256: e.ProgramSHA256,
		Image:  Image{ID: e.ImageDigest, RepoDigest: e.RepoDigest},
	}
	if applied != nil && applied.Image != "" {
		p.Applied = applied.Runner().Clone()
		p.Image.Pin = applied.Image
		if b := applied.Build; b != nil {
			p.BuildImage = Image{Pin: b.Image}
		}
	} else {
		p.unrecorded = append(p.unrecorded, PartSettings)
	}
	if e.ProgramSHA256 == "" {
		p.unrecorded = append(p.unrecorded, PartProgram)
	}
	if e.ImageDigest == "" {
		p.unrecorded = append(p.unrecorded, PartImage)
	}
	return Key{Program: p, Run: StoredRun(args, e)}
}
