package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
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

// Selection is the part of a spec a run runs: the programs Programs names
// (spec.Select: every program when empty), then shard Shard of them (nil:
// all of those).
type Selection struct {
	Programs []string
	Shard    *shard.Ref
}

// Plan is a run before it starts: the programs it runs (a selection of
// the spec's), and how many invocations run at once.
type Plan struct {
	// Spec holds the programs this run runs; its profiles are the spec's.
	Spec *spec.Spec
	// Parallel is the invocations at once.
	Parallel int
	// all are the spec's programs: a shard's same_as cases find their
	// reference among them.
	all   []spec.Program
	shard *report.Shard
	// filter are the --program patterns the plan was selected by.
	filter []string
}

// NewPlan plans a run of sel of sp at parallel invocations at once (0:
// DefaultParallel for the spec's largest memory limit). sp itself is left
// as it is; same_as cases find their reference among all its programs,
// selected or not. Patterns that select nothing select nothing here:
// spec.Select says so first.
func NewPlan(sp *spec.Spec, sel Selection, parallel int) *Plan {
	s := *sp
	p := &Plan{Spec: &s, all: sp.Programs, Parallel: parallel, filter: sel.Programs}
	if len(sel.Programs) > 0 {
		s.Programs, _ = sp.Select(sel.Programs)
	}
	if part := sel.Shard; part != nil {
		// Every shard loads the whole spec and computes the same table
		// (of the programs selected: shards given other --program
		// patterns have other tables, which merge refuses); this one then
		// runs only its own programs.
		selected := s
		digest, table := shard.Plan(&selected, part.Count)
		s.Programs = shard.Select(&selected, table, part.Index)
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
	onCase := opt.OnCase
	if onCase == nil {
		onCase = func(verdict.Verdict) {}
	}
	w := newWork(p.Spec, p.all, opt.Reuse, imageResolver(ctx, sb))
	var sources *report.Reuse
	if opt.Reuse != nil {
		sources = &report.Reuse{Sources: opt.Reuse.Sources()} // after its answers
	}
	for _, pr := range w.programs {
		for _, cr := range pr.cases {
			if cr.done && !cr.recheck { // stored evidence answered it
				sink.AddCase(pr.at, cr.at, *cr.rec)
				*cr.rec = cr.rec.WithoutOutput()
				onCase(cr.rec.Result.Verdict)
			}
		}
	}
	err, interrupted := w.execute(ctx, sb, opt, p.Parallel, sink, onCase)
	rep := assemble.Report(assemble.Input{
		Spec:        p.Spec,
		Programs:    w.records(),
		RunID:       opt.RunID,
		StartedAt:   opt.StartedAt,
		Duration:    time.Since(opt.StartedAt),
		Interrupted: interrupted,
		Err:         err,
		Version:     opt.Version,
		GitHub:      opt.GitHub,
		PassAt:      opt.PassAt,
		Shard:       p.shard,
		Filter:      p.filter,
		Reuse:       sources,
	})
	return Outcome{Report: rep, Err: err}
}

// execute runs the invocations of every case that stored evidence did not
// answer (the reference runs of its same_as cases first) and judges each
// case, which goes to sink. It returns why the run failed (nil when it did
// not) and whether ctx was cancelled.
func (w *work) execute(ctx context.Context, sb runner.Sandbox, opt Options, parallel int, sink Sink, onCase func(verdict.Verdict)) (error, bool) {
	jobs := make([]runner.Job, len(w.programs))
	invocations := len(w.refs)
	for i, pr := range w.programs {
		jobs[i] = pr.job
		invocations += len(pr.job.Invocations)
	}
	// judged judges a case whose runs (and checkers) are all in and gives
	// it to sink, keeping only its record without the output (the sink
	// holds that, on disk).
	judged := func(cr *caseRun) {
		cr.judge()
		sink.AddCase(cr.prog.at, cr.at, *cr.rec)
		*cr.rec = cr.rec.WithoutOutput()
		onCase(cr.rec.Result.Verdict)
	}
	// finish takes a case whose runs are all in: judged now, or, with a
	// checker matcher, held (with its runs' output) until the checkers
	// ran, after every program's runs.
	var heldMu sync.Mutex
	held := w.rechecks
	finish := func(cr *caseRun) {
		if !cr.checked {
			judged(cr)
			return
		}
		heldMu.Lock()
		held = append(held, cr)
		heldMu.Unlock()
	}

	var runErr error
	var obs, refObs []runner.Observation
	switch {
	case invocations == 0:
		// Nothing runs (stored evidence answered every case): no sandbox
		// is needed.
	case sb == nil:
		runErr = fmt.Errorf("sandbox unavailable: %w", opt.SandboxErr)
		obs = unobserved(jobs, runErr.Error())
	default:
		var lost error
		refObs, lost = runReferences(ctx, sb, w.spec, w.refs, runner.Options{Parallel: parallel, Cleanup: opt.Cleanup, DropOutput: true})
		if lost != nil {
			runErr = fmt.Errorf("sandbox lost: %w", lost)
			obs = unobserved(jobs, runErr.Error())
			break
		}
		// A lost sandbox (the engine became unreachable mid-run) fails
		// the run, like one that was never reachable. A program with no
		// invocation (stored evidence answered all its cases) is not
		// prepared.
		obs, lost = runner.Run(ctx, sb, jobs, runner.Options{
			Parallel:   parallel,
			Cleanup:    opt.Cleanup,
			DropOutput: true, // the sink holds it, on disk
			OnEvent: func(job, inv int, ev runner.Event) {
				// Each (job, inv) arrives once, from one worker; Run
				// returns only after every worker is done.
				at := w.programs[job].runs[inv]
				if at.c.put(at.run, ev) {
					finish(at.c)
				}
			},
		})
		if lost != nil {
			runErr = fmt.Errorf("sandbox lost: %w", lost)
		}
	}
	interrupted := ctx.Err() != nil
	if interrupted && runErr == nil {
		runErr = errors.New("interrupted")
	}

	// Every program's attempt; and the cases whose runs did not all come
	// in are judged on what did, and on the runner's record of the rest
	// (why they did not run).
	for i, pr := range w.programs {
		if len(pr.job.Invocations) == 0 {
			pr.rec.Attempt = storedAttempt(pr.stored)
			continue
		}
		o := obs[i]
		for _, ev := range o.Events {
			pr.rec.Duration += ev.Duration
		}
		for _, cr := range pr.cases {
			if cr.done {
				continue
			}
			for r := range cr.events {
				if cr.have[r] {
					continue
				}
				cr.events[r] = runner.Event{SandboxError: "not run"}
				if k := cr.first + r; k < len(o.Events) {
					cr.events[r] = o.Events[k]
				}
			}
			cr.done = true
			finish(cr)
		}
		o.Events = nil
		if o.Settings.Applied.Image == "" && pr.stored != nil {
			// Its attempt never started (the run stopped first): its
			// settings are those of the stored attempt its reused cases
			// came from, so that they stay reusable.
			o.Settings = pr.stored.Settings.Runner()
		}
		pr.rec.Attempt = o
	}
	w.mergeReferenceObservations(refObs)

	// The checkers run on the held cases' runs, then the cases are
	// judged, in the plan's order.
	slices.SortFunc(held, func(a, b *caseRun) int {
		return cmp.Or(cmp.Compare(a.prog.at, b.prog.at), cmp.Compare(a.at, b.at))
	})
	why := ""
	switch {
	case sb == nil && len(held) > 0:
		why = fmt.Sprintf("sandbox unavailable: %v", opt.SandboxErr)
	case interrupted:
		why = runner.NotRunInterrupted
	case runErr != nil:
		why = "not run: " + runErr.Error()
	}
	if lost := w.runCheckers(ctx, sb, held, why, runner.Options{Parallel: parallel, Cleanup: opt.Cleanup, DropOutput: true}); lost != nil && runErr == nil {
		runErr = fmt.Errorf("sandbox lost: %w", lost)
	}
	for _, cr := range held {
		judged(cr)
	}
	if ctx.Err() != nil && !interrupted {
		interrupted = true
		if runErr == nil {
			runErr = errors.New("interrupted")
		}
	}
	return runErr, interrupted
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
