package engine

import (
	"context"
	"sync"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
)

// runReferences runs the reference inputs of same_as cases
// (spec.References) and fills in each input's runs, in order, with their
// output: the event the runner delivered, else its own record of why the
// run did not happen. It returns the reference jobs' observations (one
// per reference program that has inputs) and the error of a lost sandbox.
func runReferences(ctx context.Context, sb runner.Sandbox, sp *spec.Spec, refs []*referenceRuns, opt runner.Options) ([]runner.Observation, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	inputs := make([]spec.ReferenceInput, len(refs))
	for k, ref := range refs {
		inputs[k] = ref.input
	}
	jobs, at := sp.ReferenceJobs(inputs)
	type refRun struct {
		ref *referenceRuns
		run int
	}
	back := make([][]refRun, len(jobs)) // (job, inv) → its input's run
	for j := range jobs {
		back[j] = make([]refRun, len(jobs[j].Invocations))
	}
	have := map[refRun]bool{}
	for k, ref := range refs {
		ref.events = make([]runner.Event, max(ref.input.Repeat, 1))
		for r := range ref.events {
			back[at[k][0]][at[k][1]+r] = refRun{ref, r}
		}
	}
	var mu sync.Mutex
	opt.OnEvent = func(job, inv int, ev runner.Event) {
		mu.Lock()
		defer mu.Unlock()
		rr := back[job][inv]
		rr.ref.events[rr.run], have[rr] = ev, true
	}
	obs, lost := runner.Run(ctx, sb, jobs, opt)
	for k, ref := range refs {
		for r := range ref.events {
			if have[refRun{ref, r}] {
				continue
			}
			ref.events[r] = runner.Event{SandboxError: "not run"}
			if j, inv := at[k][0], at[k][1]+r; j < len(obs) && inv < len(obs[j].Events) {
				ref.events[r] = obs[j].Events[inv]
			}
		}
	}
	return obs, lost
}

// mergeReferenceObservations adds what the reference jobs' observations
// say about the sandbox (containers or volumes that could not be removed,
// an acquisition that was not complete) to their reference programs'
// attempts, when the plan has them.
func (w *work) mergeReferenceObservations(refObs []runner.Observation) {
	byName := map[string]*programRun{}
	for _, pr := range w.programs {
		byName[pr.rec.Spec.Name] = pr
	}
	var programs []string // reference job j's program, in the order of ReferenceJobs
	seen := map[string]bool{}
	for _, ref := range w.refs {
		if name := ref.input.Reference.Name; !seen[name] {
			seen[name] = true
			programs = append(programs, name)
		}
	}
	for j, ro := range refObs {
		if j >= len(programs) {
			continue
		}
		pr := byName[programs[j]]
		if pr == nil {
			continue // the reference is another shard's program: its cases' reference_events hold the evidence
		}
		o := &pr.rec.Attempt
		o.SandboxWarnings = append(o.SandboxWarnings, ro.SandboxWarnings...)
		for _, r := range ro.Reasons {
			o.Reasons = append(o.Reasons, "reference runs: "+r)
		}
		if ro.Acquisition != runner.AcquisitionComplete && o.Acquisition == runner.AcquisitionComplete {
			o.Acquisition = runner.AcquisitionPartial
		}
	}
}
