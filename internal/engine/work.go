package engine

import (
	"sync"

	"github.com/google/uuid"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/match"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reuse"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// work is a plan as one run carries it out: one record per program and
// per case (assemble.Program, assemble.Case), filled in as the runs come
// in. newWork is the one place where the spec's positions (program, case)
// and the runner's (job, invocation) meet: every later step reaches a
// case through its record.
type work struct {
	spec     *spec.Spec
	programs []*programRun
	// refs are the reference inputs the cases that run now compare with,
	// each once, in the order those cases first need them.
	refs []*referenceRuns
	// rechecks are the checked cases whose program's runs stored
	// evidence answered: they wait for their checkers like the checked
	// cases that run now.
	rechecks []*caseRun
}

// programRun is one program of the plan: its record, and the job that
// runs the cases stored evidence did not answer.
type programRun struct {
	// at is the program's position in the plan, where the sink puts it.
	at    int
	rec   assemble.Program
	cases []*caseRun
	// job's invocations are the runs of the cases that run now, one
	// case's runs in a row; runs[k] says whose invocation k is.
	job  runner.Job
	runs []runAt
	// stored is the stored attempt its first reused case came from (nil:
	// none): its settings and build stand for an attempt that ran nothing.
	stored *report.Program
}

// runAt is run number run of case c.
type runAt struct {
	c   *caseRun
	run int
}

// caseRun is one case of the plan: its record, and, while it runs, its
// runs' events as they come in. A case that runs more than once holds its
// runs' events, with their output, until the last is in, and is judged
// then: its runs are consecutive invocations, so only the cases in flight
// (about Parallel) hold any.
type caseRun struct {
	prog *programRun
	at   int // the case's position in its program, where the sink puts it
	rec  *assemble.Case
	// ref is the reference input a same_as case compares with (nil for
	// any other case, and for one stored evidence answered).
	ref *referenceRuns
	// first is the job's invocation of the case's first run.
	first int

	// checked is set for a case with a checker matcher: once its runs are
	// in it waits, with their output, for its checkers (checks), which
	// run after every program's runs.
	checked bool
	checks  []assemble.CheckerRun
	// recheck is set for a checked case whose program's runs stored
	// evidence answered (its events are those): only its checker runs.
	recheck bool

	mu     sync.Mutex
	events []runner.Event
	have   []bool // which runs are in
	left   int
	done   bool // its runs are in (judged and given to the sink, unless checked)
}

// referenceRuns are a reference input's runs, with their output until the
// run ends (--max-reference-output bounds it).
type referenceRuns struct {
	input  spec.ReferenceInput
	events []runner.Event
}

// runs are the reference's runs (nil for no reference).
func (r *referenceRuns) runs() []runner.Event {
	if r == nil {
		return nil
	}
	return r.events
}

// newWork makes the records of sp's programs (all are the spec's
// programs, where same_as cases find their reference). With a store, a
// case its stored evidence answers (reuse.Store.Match; resolve says which
// image this engine runs for a registry digest, nil when there is no
// engine) holds its stored runs and is done; every other case runs now.
func newWork(sp *spec.Spec, all []spec.Program, store *reuse.Store, resolve func(pin string) (string, error)) *work {
	w := &work{spec: sp}
	inputs, inputOf := sp.References(all)
	var wants [][]match.Want
	if store != nil {
		wants = match.Wants(sp, all, resolve)
	}
	refs := map[int]*referenceRuns{} // by input
	for i, prog := range sp.Programs {
		pr := &programRun{at: i, rec: assemble.Program{Spec: prog, Cases: make([]assemble.Case, len(prog.Cases))}}
		pr.job = sp.Job(prog)
		invocations := pr.job.Invocations
		pr.job.Invocations = nil
		layout := prog.Runs()
		var answers []reuse.Answer
		if store != nil {
			answers = store.Match(prog, wants[i], sp.Profiles[prog.Profile].Runtime.Build != nil)
		}
		for c, sc := range prog.Cases {
			cr := &caseRun{prog: pr, at: c, rec: &pr.rec.Cases[c], checked: sc.Expect.CheckerName() != ""}
			cr.rec.Spec = sc
			pr.cases = append(pr.cases, cr)
			var a reuse.Answer
			if answers != nil {
				a = answers[c]
			}
			if a.Reused() {
				cr.rec.Runs, cr.rec.Result, cr.rec.References, cr.rec.ReusedFrom = a.Runs, a.Result, a.References, a.From
				cr.done = true
				if pr.stored == nil {
					pr.stored = a.Attempt
				}
				if a.Recheck {
					// Its program's stored runs stand; its checker runs
					// again on them, with the checked cases that run now.
					cr.events = make([]runner.Event, len(a.Runs))
					for r, run := range a.Runs {
						cr.events[r] = run.Event
					}
					cr.recheck = true
					if len(a.References) > 0 {
						// The stored reference runs (their key the
						// spec's): a checker's answer may be their output.
						cr.ref = &referenceRuns{events: a.References}
					}
					w.rechecks = append(w.rechecks, cr)
				}
				continue
			}
			cr.rec.NotReused = a.NotReused
			n := layout.Count(c)
			cr.first, cr.left = len(pr.job.Invocations), n
			cr.events, cr.have = make([]runner.Event, n), make([]bool, n)
			for r := range n {
				pr.job.Invocations = append(pr.job.Invocations, invocations[layout.First(c)+r])
				pr.runs = append(pr.runs, runAt{c: cr, run: r})
			}
			if in := inputOf[i][c]; in >= 0 {
				if refs[in] == nil {
					refs[in] = &referenceRuns{input: inputs[in]}
					w.refs = append(w.refs, refs[in])
				}
				cr.ref = refs[in]
			}
		}
		w.programs = append(w.programs, pr)
	}
	return w
}

// judge judges the case on its runs' events, its reference's runs and its
// checkers' runs (verdict.JudgeCheckedRuns), into its record.
func (cr *caseRun) judge() {
	refs := cr.ref.runs()
	results, fold := verdict.JudgeCheckedRuns(cr.rec.Spec.Expect, refs, cr.events, checkedRuns(cr.checks, len(cr.events)))
	cr.rec.Runs = make([]assemble.RunResult, len(results))
	for r, res := range results {
		cr.rec.Runs[r] = assemble.RunResult{Event: cr.events[r], Result: res}
	}
	cr.rec.Result, cr.rec.References, cr.rec.Checkers = fold, refs, cr.checks
	cr.events, cr.have, cr.checks = nil, nil, nil
}

// checkedRuns are the checkers' events of each of a case's runs runs.
func checkedRuns(checks []assemble.CheckerRun, runs int) []verdict.Checked {
	if len(checks) == 0 {
		return nil
	}
	out := make([]verdict.Checked, runs)
	for k := range checks {
		c := &checks[k]
		if c.Run < 0 || c.Run >= runs {
			continue
		}
		if c.Stream == "stderr" {
			out[c.Run].Stderr = &c.Event
		} else {
			out[c.Run].Stdout = &c.Event
		}
	}
	return out
}

// put records run number run of the case; it is true when that was the
// last of the case's runs to come in (the case is then done). It is safe
// for concurrent use.
func (cr *caseRun) put(run int, ev runner.Event) bool {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	cr.events[run], cr.have[run] = ev, true
	cr.left--
	if cr.left > 0 || cr.done {
		return false
	}
	cr.done = true
	return true
}

// records are the programs' records, in the plan's order.
func (w *work) records() []assemble.Program {
	out := make([]assemble.Program, len(w.programs))
	for i, pr := range w.programs {
		out[i] = pr.rec
	}
	return out
}

// storedAttempt is the attempt of a program none of whose cases ran now:
// a new execution ID (this run's attempt, which ran nothing), and the
// settings and build of stored, the stored attempt its first reused case
// came from (the key held them equal to the spec's).
func storedAttempt(stored *report.Program) runner.Observation {
	obs := runner.Observation{
		ExecutionID:     uuid.NewString(),
		Acquisition:     runner.AcquisitionComplete,
		Reasons:         []string{},
		SandboxWarnings: []string{},
	}
	if stored == nil {
		return obs
	}
	obs.Settings = stored.Settings.Runner()
	if stored.Build != nil {
		b, _ := stored.Build.RunnerEvent()
		obs.Build = &b
	}
	return obs
}
