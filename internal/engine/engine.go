package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reuse"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/shard"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// Sink takes each case once it is judged, with its runs and its reference
// runs (*assemble.Writer, which spools the evidence to disk), and, under
// reuse, where they came from or why it ran now. Each (p, c)
// arrives once; calls may come from several goroutines, one at a time per
// case.
type Sink interface {
	AddCase(p, c int, k assemble.Case)
}

// Plan is a run before it starts: the programs it runs (a shard's, or the
// spec's), and how many invocations run at once.
type Plan struct {
	// Spec holds the programs this run runs; its profiles are the spec's.
	Spec *spec.Spec
	// Parallel is the invocations at once.
	Parallel int
	// all are the spec's programs: a shard's same_as cases find their
	// reference among them.
	all   []spec.Program
	shard *report.Shard
}

// NewPlan plans a run of sp, or of shard part of it (nil: the whole
// spec), at parallel invocations at once (0: DefaultParallel for the
// spec's largest memory limit). sp itself is left as it is.
func NewPlan(sp *spec.Spec, part *shard.Ref, parallel int) *Plan {
	s := *sp
	p := &Plan{Spec: &s, all: sp.Programs, Parallel: parallel}
	if part != nil {
		// Every shard loads the whole spec and computes the same table;
		// this one then runs only its own programs.
		digest, table := shard.Plan(sp, part.Count)
		s.Programs = shard.Select(sp, table, part.Index)
		p.shard = &report.Shard{Index: part.Index, Count: part.Count, SpecDigest: digest, Programs: table}
	}
	if p.Parallel <= 0 {
		p.Parallel = DefaultParallel(largestMemory(&s))
	}
	return p
}

// Cases is how many cases the run judges (what progress counts).
func (p *Plan) Cases() int {
	n := 0
	for _, prog := range p.Spec.Programs {
		n += len(prog.Cases)
	}
	return n
}

// Options are a run's own facts and callbacks.
type Options struct {
	RunID     string
	StartedAt time.Time
	// Cleanup is the parent of the contexts that remove what the run made,
	// so that removal outlives a cancelled ctx (runner.Options.Cleanup).
	Cleanup context.Context
	// SandboxErr, with a nil sandbox, is why there is none: every
	// invocation is then undetermined with it as the reason, and the run
	// failed.
	SandboxErr error
	// OnCase is called once each case is judged (the progress line); nil:
	// nothing is.
	OnCase func(verdict.Verdict)
	// What the report says about the run.
	Version string
	GitHub  report.GitHub
	PassAt  []int
	// Reuse, when set, answers the cases its stored evidence settles
	// (behaves run --reuse): they do not run.
	Reuse *reuse.Store
}

// Outcome is what a run came to.
type Outcome struct {
	// Report is built from every case (assemble.Report), before the sink
	// commits it.
	Report report.Report
	// Err is why the run itself failed (no sandbox, the sandbox lost,
	// interrupted); nil otherwise.
	Err error
}

// Run runs the plan on sb and judges every case: the reference runs of
// same_as cases first, then every program's invocations, each case going
// to sink as soon as its runs are in. A case whose runs did not all come
// in (the sandbox was lost, ctx was cancelled) is judged on what did and
// on the runner's record of the rest, and goes to sink at the end. With
// opt.Reuse, a case that stored evidence answers (reuse.Store.Match) goes
// to sink first and does not run; a program none of whose cases runs gets
// no container at all.
func (p *Plan) Run(ctx context.Context, sb runner.Sandbox, opt Options, sink Sink) Outcome {
	sp := p.Spec
	onCase := opt.OnCase
	if onCase == nil {
		onCase = func(verdict.Verdict) {}
	}
	var answers [][]reuse.Answer
	var sources *report.Reuse
	if opt.Reuse != nil {
		answers = opt.Reuse.Match(sp, p.all, imageResolver(ctx, sb))
		sources = &report.Reuse{Sources: opt.Reuse.Sources()}
	}
	sub := subsetOf(sp, answers)
	results := make([][]verdict.CaseResult, len(sp.Programs))
	for i, prog := range sp.Programs {
		results[i] = make([]verdict.CaseResult, len(prog.Cases))
		for c, sc := range prog.Cases {
			if a := answerOf(answers, i, c); a.Reused() {
				sink.AddCase(i, c, assemble.Case{Spec: sc, Runs: a.Runs, Result: a.Result, References: a.References, ReusedFrom: a.From})
				results[i][c] = a.Result
				onCase(a.Result.Verdict)
			}
		}
	}
	refInputs, refOf := sub.references(sp, p.all)
	ran := p.execute(ctx, sb, opt, sub.spec, refInputs, refOf, &subSink{sink: sink, sub: sub, answers: answers}, onCase)

	// Every program's observation at its own cases: the run's, with the
	// reused cases' stored events in place, or, for a program none of
	// whose cases ran, its stored attempt's settings and build under a
	// new execution ID.
	obs := make([]runner.Observation, len(sp.Programs))
	programs := make([]assemble.ProgramResult, len(sp.Programs))
	ranAt := make([]int, len(sp.Programs))
	for i := range ranAt {
		ranAt[i] = -1
	}
	for r, i := range sub.program {
		ranAt[i] = r
	}
	for i, prog := range sp.Programs {
		events := make([]runner.Event, len(prog.Cases))
		r := ranAt[i]
		if r >= 0 {
			obs[i] = ran.obs[r]
			if obs[i].Settings.Applied.Image == "" && i < len(answers) {
				// Its attempt never started (the run stopped first): the
				// entry's settings are those of the stored attempt its
				// reused cases came from, so that they stay reusable.
				obs[i].Settings = storedObservation(answers[i]).Settings
			}
			programs[i] = ran.programs[r]
			for rc, c := range sub.cases[r] {
				events[c] = ran.obs[r].Events[rc]
				results[i][c] = ran.results[r][rc]
			}
		} else {
			obs[i] = storedObservation(answers[i])
		}
		for c := range prog.Cases {
			if a := answerOf(answers, i, c); a.Reused() {
				events[c] = a.Runs[0].Event
			}
		}
		obs[i].Events = events
	}

	rep := assemble.Report(assemble.Input{
		Spec:         sp,
		Observations: obs,
		Results:      results,
		Programs:     programs,
		RunID:        opt.RunID,
		StartedAt:    opt.StartedAt,
		Duration:     time.Since(opt.StartedAt),
		Interrupted:  ran.interrupted,
		Err:          ran.err,
		Version:      opt.Version,
		GitHub:       opt.GitHub,
		PassAt:       opt.PassAt,
		Shard:        p.shard,
		Reuse:        sources,
	})
	return Outcome{Report: rep, Err: ran.err}
}

// executed is what running a spec's invocations came to, index-aligned
// with its programs: each observation's events one per case (its first
// run's).
type executed struct {
	obs         []runner.Observation
	results     [][]verdict.CaseResult
	programs    []assemble.ProgramResult
	err         error
	interrupted bool
}

// execute runs every invocation of sp on sb (refInputs, with refOf[p][c]
// the input of program p's case c, are the reference runs its same_as
// cases need) and judges each case, which goes to sink.
func (p *Plan) execute(ctx context.Context, sb runner.Sandbox, opt Options, sp *spec.Spec, refInputs []spec.ReferenceInput, refOf [][]int, sink Sink, onCase func(verdict.Verdict)) executed {
	jobs := jobsOf(sp)
	// Each job's invocations are its cases' runs, one case's runs in a row
	// (spec.Runs maps them back).
	layouts := make([]spec.Runs, len(jobs))
	for i, prog := range sp.Programs {
		layouts[i] = prog.Runs()
	}
	// results[p][c] is judged once every run of the case is in, and, for
	// cases whose runs did not all come in, after the run. A case that runs
	// more than once holds its runs' events, with their output, until its
	// last run is in: its runs are consecutive invocations, so only the
	// cases in flight (about Parallel) are held.
	results := make([][]verdict.CaseResult, len(jobs))
	judged := make([][]bool, len(jobs))
	for i, prog := range sp.Programs {
		results[i] = make([]verdict.CaseResult, len(prog.Cases))
		judged[i] = make([]bool, len(prog.Cases))
	}
	held := newHeldRuns()
	// The reference runs of same_as cases: refEvents[k] holds input k's
	// runs (with their output, until the run ends: --max-reference-output
	// bounds it).
	var refEvents [][]runner.Event
	var refObs []runner.Observation
	refsOf := func(i, c int) []runner.Event {
		if k := refOf[i][c]; k >= 0 && k < len(refEvents) {
			return refEvents[k]
		}
		return nil
	}
	judge := func(i, c int, ev runner.Event) verdict.CaseResult {
		return verdict.JudgeRun(sp.Programs[i].Cases[c].Expect, refsOf(i, c), ev)
	}

	var runErr error
	var obs []runner.Observation
	switch {
	case len(jobs) == 0 && len(refInputs) == 0:
		// Nothing runs (stored evidence answered every case): no sandbox
		// is needed.
	case sb == nil:
		runErr = fmt.Errorf("sandbox unavailable: %w", opt.SandboxErr)
		obs = unobserved(jobs, runErr.Error())
	default:
		var lost error
		refEvents, refObs, lost = runReferences(ctx, sb, sp, refInputs, runner.Options{Parallel: p.Parallel, Cleanup: opt.Cleanup, DropOutput: true})
		if lost != nil {
			runErr = fmt.Errorf("sandbox lost: %w", lost)
			obs = unobserved(jobs, runErr.Error())
		} else {
			// A lost sandbox (the engine became unreachable mid-run) fails
			// the run, like one that was never reachable.
			obs, lost = runner.Run(ctx, sb, jobs, runner.Options{
				Parallel:   p.Parallel,
				Cleanup:    opt.Cleanup,
				DropOutput: true, // the sink holds it, on disk
				OnEvent: func(job, inv int, ev runner.Event) {
					// Each (job, inv) arrives once, from one worker; Run
					// returns only after every worker is done.
					c, run := layouts[job].Case(inv)
					runs := held.put(job, c, run, layouts[job].Count(c), assemble.RunResult{Event: ev, Result: judge(job, c, ev)})
					if runs == nil {
						return // more runs of the case to come
					}
					res := foldRuns(runs)
					sink.AddCase(job, c, assemble.Case{Spec: sp.Programs[job].Cases[c], Runs: runs, Result: res, References: refsOf(job, c)})
					results[job][c] = res
					judged[job][c] = true
					onCase(res.Verdict)
				},
			})
			if lost != nil {
				runErr = fmt.Errorf("sandbox lost: %w", lost)
			}
		}
	}
	interrupted := ctx.Err() != nil
	if interrupted && runErr == nil {
		runErr = errors.New("interrupted")
	}
	mergeReferenceObservations(obs, refObs, sp, refInputs)

	// The cases whose runs did not all come in are judged on what did,
	// and on the runner's record of the rest (why they did not run).
	programs := make([]assemble.ProgramResult, len(jobs))
	for i, prog := range sp.Programs {
		var spent time.Duration
		for _, ev := range obs[i].Events {
			spent += ev.Duration
		}
		for c, sc := range prog.Cases {
			if judged[i][c] {
				continue
			}
			first, k := layouts[i].First(c), layouts[i].Count(c)
			runs, have := held.take(i, c, k)
			for r := range runs {
				if have[r] {
					continue
				}
				ev := runner.Event{SandboxError: "not run"}
				if first+r < len(obs[i].Events) {
					ev = obs[i].Events[first+r]
				}
				runs[r] = assemble.RunResult{Event: ev, Result: judge(i, c, ev)}
			}
			results[i][c] = foldRuns(runs)
			sink.AddCase(i, c, assemble.Case{Spec: sc, Runs: runs, Result: results[i][c], References: refsOf(i, c)})
		}
		programs[i] = assemble.ProgramResult{Duration: spent}
		// The report's event of a case is its first run's.
		events := make([]runner.Event, len(prog.Cases))
		for c := range prog.Cases {
			if f := layouts[i].First(c); f < len(obs[i].Events) {
				events[c] = obs[i].Events[f]
			}
		}
		obs[i].Events = events
	}
	return executed{obs: obs, results: results, programs: programs, err: runErr, interrupted: interrupted}
}

// foldRuns is a case's verdict from its runs' (verdict.Fold).
func foldRuns(runs []assemble.RunResult) verdict.CaseResult {
	rs := make([]verdict.CaseResult, len(runs))
	for i, r := range runs {
		rs[i] = r.Result
	}
	return verdict.Fold(rs).CaseResult
}

// jobsOf splits the spec's stimuli from its expectations: a job carries only
// the program, its profile and the invocations.
func jobsOf(sp *spec.Spec) []runner.Job {
	jobs := make([]runner.Job, len(sp.Programs))
	for i, p := range sp.Programs {
		jobs[i] = sp.Job(p)
	}
	return jobs
}

// unobserved is the observation of jobs that could not run at all.
func unobserved(jobs []runner.Job, reason string) []runner.Observation {
	obs := make([]runner.Observation, len(jobs))
	for i, j := range jobs {
		events := make([]runner.Event, len(j.Invocations))
		for k := range events {
			events[k].SandboxError = reason
		}
		obs[i] = runner.Observation{
			ExecutionID:     uuid.NewString(),
			Acquisition:     runner.AcquisitionError,
			Reasons:         []string{reason},
			SandboxWarnings: []string{},
			Events:          events,
		}
	}
	return obs
}

// engineCPUs is a sandbox that can say how many CPUs its engine has.
type engineCPUs interface {
	CPUs(ctx context.Context) (int, error)
}

// CheckCPUs checks the spec's cpus against the engine's CPU count, once,
// before any container: above it, the engine refuses every create, and each
// case would come back undetermined one by one. It returns spec.Errors for
// a spec above the count, another error when the engine cannot say.
func CheckCPUs(ctx context.Context, sb runner.Sandbox, sp *spec.Spec) error {
	c, ok := sb.(engineCPUs)
	if !ok {
		return nil
	}
	n, err := c.CPUs(ctx)
	if err != nil {
		return err
	}
	return sp.CheckCPUs(n)
}

// imageResolver asks sb which image it runs for a pin, for reuse (nil
// when sb cannot say: stored evidence then answers no registry digest).
func imageResolver(ctx context.Context, sb runner.Sandbox) func(pin string) (string, error) {
	r, ok := sb.(runner.ImageResolver)
	if !ok {
		return nil
	}
	return func(pin string) (string, error) { return r.ResolveImage(ctx, pin) }
}
