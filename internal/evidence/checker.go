package evidence

import (
	"fmt"

	"github.com/behaves-dev/behaves/internal/report"
)

// Checker is the key of one checker run on one checked stream of one run:
// the checker (its name, and as a program's part of a key its digest,
// image, applied settings and build) and the digests of the three files it
// was given, the case's input, the program's output and the answer.
type Checker struct {
	Name    string
	Program Program
	// InputSHA256, OutputSHA256 and AnswerSHA256 are the digests of the
	// checker's input, output and answer files.
	InputSHA256, OutputSHA256, AnswerSHA256 string
}

// The parts of a checker's key, as DiffChecker reports them. Its program's
// parts (DiffProgram's) are prefixed PartChecker and ".".
const (
	PartChecker       Part = "checker"
	PartCheckerInput  Part = "checker.input"
	PartCheckerOutput Part = "checker.output"
	PartCheckerAnswer Part = "checker.answer"
)

// WantChecker is the key of a run of checker name, whose part of the key is
// prog (WantProgram of its files under its profile, with ProgramName set
// as spec.CheckerJob sets it), given input and answer, as the spec says it
// runs now. Its OutputSHA256 is left to the caller: the output is a run's.
func WantChecker(name string, prog Program, input, answer []byte) Checker {
	return Checker{Name: name, Program: prog, InputSHA256: digest(input), AnswerSHA256: digest(answer)}
}

// StoredChecker is the key of stored checker run cr of a program attempt
// recorded under format: its applied settings (every one unrecorded when
// the checker's attempt ran nothing), the image its event ran and its
// build's image.
func StoredChecker(format int, cr report.CheckerRun) Checker {
	e := cr.Event
	p := Program{
		Format: format,
		SHA256: cr.ProgramSHA256,
		Image:  Image{ID: e.ImageDigest, RepoDigest: e.RepoDigest},
	}
	if a := cr.Applied; a != nil && a.Image != "" {
		p.Applied = a.Runner().Clone()
		p.Image.Pin = a.Image
		if b := a.Build; b != nil {
			p.BuildImage = Image{Pin: b.Image, ID: cr.BuildImageID, RepoDigest: cr.BuildRepoDigest}
		}
	} else {
		p.unrecorded = append(p.unrecorded, PartSettings)
	}
	if e.ImageDigest == "" {
		p.unrecorded = append(p.unrecorded, PartImage)
	}
	return Checker{Name: cr.Checker, Program: p, InputSHA256: cr.InputSHA256, OutputSHA256: cr.OutputSHA256, AnswerSHA256: cr.AnswerSHA256}
}

// DiffChecker lists how a stored checker run (got) differs from the one
// the spec asks for now (want): another checker, then its program's parts
// (DiffProgram's: its files, image, every applied setting, its build),
// each prefixed "checker.", then its input, output and answer. An
// unrecorded part is a difference marked Unrecorded.
func DiffChecker(want, got Checker) []Difference {
	if want.Name != got.Name {
		return []Difference{{Part: PartChecker, Msg: fmt.Sprintf("the stored run was checked by the checker %q", got.Name)}}
	}
	var d []Difference
	for _, x := range DiffProgram(want.Program, got.Program) {
		x.Part = PartChecker + "." + x.Part
		d = append(d, x)
	}
	c := &collector{by: "the stored checker run"}
	c.add(PartCheckerInput, want.InputSHA256 != got.InputSHA256, "its input (the case's stdin) changed (sha256 %s, stored %s)", short(want.InputSHA256), short(got.InputSHA256))
	c.add(PartCheckerOutput, want.OutputSHA256 != got.OutputSHA256, "the stored checker run was given other output than the stored run's (sha256 %s, stored %s)", short(want.OutputSHA256), short(got.OutputSHA256))
	c.add(PartCheckerAnswer, want.AnswerSHA256 != got.AnswerSHA256, "its answer changed since the stored check (sha256 %s, stored %s)", short(want.AnswerSHA256), short(got.AnswerSHA256))
	return append(d, c.d...)
}

// ResolveCheckerImages is ResolveImages for a checker's key: its image's
// and its build's.
func ResolveCheckerImages(c *Checker, resolve func(pin string) (string, error)) {
	resolveProgram(&c.Program, resolve)
}
