package engine

import (
	"slices"

	"github.com/google/uuid"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/reuse"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
)

// subset is the part of a spec that runs now: its programs with only the
// cases stored evidence did not answer (a program with none left out).
type subset struct {
	spec *spec.Spec
	// program[r] is the plan's program that the subset's program r is, and
	// cases[r][k] the plan's case that its case k is.
	program []int
	cases   [][]int
}

// subsetOf is the part of sp that answers (nil: none) leave to run.
func subsetOf(sp *spec.Spec, answers [][]reuse.Answer) *subset {
	s := *sp
	sub := &subset{spec: &s}
	s.Programs = nil
	for i, prog := range sp.Programs {
		var cases []spec.Case
		var at []int
		for c, sc := range prog.Cases {
			if !answerOf(answers, i, c).Reused() {
				cases = append(cases, sc)
				at = append(at, c)
			}
		}
		if len(cases) == 0 {
			continue
		}
		if len(cases) < len(prog.Cases) {
			prog.Cases = cases
		}
		s.Programs = append(s.Programs, prog)
		sub.program = append(sub.program, i)
		sub.cases = append(sub.cases, at)
	}
	return sub
}

// answerOf is answers[p][c], or a case to run when there are none.
func answerOf(answers [][]reuse.Answer, p, c int) reuse.Answer {
	if p < len(answers) && c < len(answers[p]) {
		return answers[p][c]
	}
	return reuse.Answer{}
}

// references are the reference inputs the subset's same_as cases need,
// with of[r][k] the input of its program r's case k (-1: none). Each input
// runs as often as the whole plan would run it (the largest repeat of
// every case that shares it, reused or not), so that a case is judged on
// the reference runs a run without reuse would make, and its key is the
// same.
func (sub *subset) references(sp *spec.Spec, all []spec.Program) ([]spec.ReferenceInput, [][]int) {
	inputs, inputOf := sp.References(all)
	var needed []spec.ReferenceInput
	index := map[int]int{} // the plan's input → needed's
	of := make([][]int, len(sub.program))
	for r, i := range sub.program {
		of[r] = make([]int, len(sub.cases[r]))
		for k, c := range sub.cases[r] {
			of[r][k] = -1
			in := inputOf[i][c]
			if in < 0 {
				continue
			}
			n, ok := index[in]
			if !ok {
				n = len(needed)
				index[in] = n
				needed = append(needed, inputs[in])
			}
			of[r][k] = n
		}
	}
	return needed, of
}

// subSink passes the subset's cases on to the plan's sink at the plan's
// positions, each with why stored evidence did not answer it.
type subSink struct {
	sink    Sink
	sub     *subset
	answers [][]reuse.Answer
}

func (s *subSink) AddCase(r, k int, kc assemble.Case) {
	p, c := s.sub.program[r], s.sub.cases[r][k]
	kc.NotReused = answerOf(s.answers, p, c).NotReused
	s.sink.AddCase(p, c, kc)
}

// storedObservation is the observation of a program none of whose cases
// ran now: a new execution ID (this run's attempt, which ran nothing), and
// the settings and build of the stored attempt its first reused case came
// from (the key held them equal to the spec's). Its events are filled in by
// the caller.
func storedObservation(answers []reuse.Answer) runner.Observation {
	obs := runner.Observation{
		ExecutionID:     uuid.NewString(),
		Acquisition:     runner.AcquisitionComplete,
		Reasons:         []string{},
		SandboxWarnings: []string{},
	}
	i := slices.IndexFunc(answers, func(a reuse.Answer) bool { return a.Reused() && a.Attempt != nil })
	if i < 0 {
		return obs
	}
	at := answers[i].Attempt
	obs.Settings = at.Settings.Runner()
	if at.Build != nil {
		b, _ := at.Build.RunnerEvent()
		obs.Build = &b
	}
	return obs
}
