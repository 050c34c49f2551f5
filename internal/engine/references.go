package engine

import (
	"context"
	"sync"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
)

// runReferences runs the reference inputs of same_as cases (spec.References)
// and returns each input's runs, in order, with their output: the event the
// runner delivered, else its own record of why the run did not happen. It
// returns the reference jobs' observations (one per reference program that
// has inputs) and the error of a lost sandbox.
func runReferences(ctx context.Context, sb runner.Sandbox, sp *spec.Spec, inputs []spec.ReferenceInput, opt runner.Options) ([][]runner.Event, []runner.Observation, error) {
	if len(inputs) == 0 {
		return nil, nil, nil
	}
	jobs, at := sp.ReferenceJobs(inputs)
	events := make([][]runner.Event, len(inputs))
	have := make([][]bool, len(inputs))
	back := make([][][2]int, len(jobs)) // (job, inv) → (input, run)
	for j := range jobs {
		back[j] = make([][2]int, len(jobs[j].Invocations))
	}
	for k, in := range inputs {
		events[k] = make([]runner.Event, max(in.Repeat, 1))
		have[k] = make([]bool, len(events[k]))
		for r := range events[k] {
			back[at[k][0]][at[k][1]+r] = [2]int{k, r}
		}
	}
	var mu sync.Mutex
	opt.OnEvent = func(job, inv int, ev runner.Event) {
		mu.Lock()
		defer mu.Unlock()
		kr := back[job][inv]
		events[kr[0]][kr[1]], have[kr[0]][kr[1]] = ev, true
	}
	obs, lost := runner.Run(ctx, sb, jobs, opt)
	for k := range inputs {
		for r := range events[k] {
			if have[k][r] {
				continue
			}
			events[k][r] = runner.Event{SandboxError: "not run"}
			if j, inv := at[k][0], at[k][1]+r; j < len(obs) && inv < len(obs[j].Events) {
				events[k][r] = obs[j].Events[inv]
			}
		}
	}
	return events, obs, lost
}

// mergeReferenceObservations adds what the reference jobs' observations say
// about the sandbox (containers or volumes that could not be removed, an
// acquisition that was not complete) to their reference programs' own.
func mergeReferenceObservations(obs, refObs []runner.Observation, sp *spec.Spec, inputs []spec.ReferenceInput) {
	index := map[string]int{}
	for i, p := range sp.Programs {
		index[p.Name] = i
	}
	var programs []string // reference job j's program, in the order of ReferenceJobs
	seen := map[string]bool{}
	for _, in := range inputs {
		if !seen[in.Reference.Name] {
			seen[in.Reference.Name] = true
			programs = append(programs, in.Reference.Name)
		}
	}
	for j, ro := range refObs {
		if j >= len(programs) {
			continue
		}
		i, ok := index[programs[j]]
		if !ok || i >= len(obs) {
			continue // the reference is another shard's program: its cases' reference_events hold the evidence
		}
		o := &obs[i]
		o.SandboxWarnings = append(o.SandboxWarnings, ro.SandboxWarnings...)
		for _, r := range ro.Reasons {
			o.Reasons = append(o.Reasons, "reference runs: "+r)
		}
		if ro.Acquisition != runner.AcquisitionComplete && o.Acquisition == runner.AcquisitionComplete {
			o.Acquisition = runner.AcquisitionPartial
		}
	}
}
