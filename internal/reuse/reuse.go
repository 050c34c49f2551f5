// Package reuse answers cases from stored evidence (behaves run --reuse):
// a case that a stored case answers (package match: every run's key, and
// its repeat) is not run again; the stored runs are judged afresh against
// the spec's expectation now, so that a changed expectation on an
// unchanged program needs no container.
//
// Its policy: it reuses only what settles a case as a new run would:
// never a stored case that match finds differs, or that left a part
// unrecorded, an undetermined or sandbox-error run, a run or build that
// timed out (whether it ends in time depends on the machine's load),
// output the stored report left out, fewer runs than the case's repeat,
// or anything an interrupted or failed run ran (what such a run reused
// from a completed one stays reusable: see Sources). A case a checker
// judges reuses its program's runs only (Answer.Recheck): its checker
// runs again on them, whatever changed, so that a changed checker or
// answer needs no program container. A case that never
// ran because its program's build failed is answered on the program's
// part of the key alone (match.Found.FailedBuild). Each refusal is a NotReused
// with a reason (counted in the report) and a detail naming what to
// change.
//
// Reused evidence names the run that recorded it (report.Origin), also
// when it is reused again: the original run, whose ID, start, commit and
// Actions run the new report's reuse.sources list (reportread.Read refuses a
// reused_from that names no listed run).
//
// A stored report is hostile input (reportread.File bounds and checks it),
// and its evidence is exactly as trustworthy as whoever could write it:
// anyone can compute a key, so a report with matching keys and made-up
// output turns a program true without a container. docs/security.md says
// which reports are safe to reuse.
package reuse

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/evidence"
	"github.com/behaves-dev/behaves/internal/match"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// The reasons a case ran now, as a report counts them. A differing or
// unrecorded part of the key adds its name ("changed: program",
// "unrecorded: reference.user").
const (
	ReasonNoStoredRun = "no stored run"
	ReasonChanged     = "changed: "
	ReasonUnrecorded  = "unrecorded: "
	ReasonRepeat      = "changed: repeat"
	ReasonOmitted     = "output omitted"
	ReasonSandbox     = "sandbox error"
	ReasonTimedOut    = "timed out"
	ReasonUndecided   = "undetermined"
	ReasonInterrupted = "stored run interrupted"
	ReasonFailed      = "stored run failed"
	ReasonBuild       = "build runs again"
	ReasonSources     = "too many source runs"
)

// Store is the evidence of the stored reports a run was given, in order:
// where several hold a match, the first wins.
type Store struct {
	sources []*source
	// listed are the runs the store's answers took evidence from, each
	// once, in the order first answered (origin adds them), at most
	// maxListed: what Sources lists first.
	listed    []report.ReuseSource
	isListed  map[string]bool
	maxListed int
}

type source struct {
	path string
	rep  report.Report
	// store is the Store the source belongs to (its listed runs).
	store *Store
	// why is set when the report's run was interrupted or failed: none of
	// the evidence that run recorded may be reused; the cases it reused
	// from a completed run still may (refused).
	why *report.NotReused
	// runs are the completed runs whose evidence the report holds, by run
	// ID: its own (unless why is set) and every run its reuse.sources
	// list, with their start, commit and Actions run.
	runs map[string]report.ReuseSource
	// byInput finds the stored cases of a program file on one input
	// (inputKey); byName a program's case by program ID and case name.
	byInput map[string][]at
	byName  map[[2]string]at
}

// at is case c of program p of a source's report.
type at struct{ p, c int }

// Load reads the reports at paths, each bounded to limit bytes and checked
// as publish checks the report it reads (reportread.File). An error names
// the file.
func Load(paths []string, limit int64) (*Store, error) {
	if len(paths) > report.MaxReuseSources {
		return nil, fmt.Errorf("--reuse: %d reports given, at most %d", len(paths), report.MaxReuseSources)
	}
	s := &Store{maxListed: report.MaxReuseRuns}
	for _, path := range paths {
		// A regular file only (a symlink to one is followed): a FIFO or a
		// device would block the run before it replaces its report.
		r, err := reportread.RegularFile(path, limit)
		if err != nil {
			return nil, fmt.Errorf("--reuse: %w", err)
		}
		s.sources = append(s.sources, newSource(s, path, r))
	}
	return s, nil
}

// newSource indexes report r, read from path, for store s.
func newSource(s *Store, path string, r report.Report) *source {
	src := &source{path: path, rep: r, store: s, runs: map[string]report.ReuseSource{},
		byInput: map[string][]at{}, byName: map[[2]string]at{}}
	const kept = "only the cases it reused from a completed run are reused"
	switch {
	case r.Interrupted:
		src.why = report.NewNotReused(ReasonInterrupted, fmt.Sprintf("%s is of a run that was interrupted: none of what it ran is reused, %s", path, kept))
	case r.Error != "":
		src.why = report.NewNotReused(ReasonFailed, fmt.Sprintf("%s is of a run that failed (%s): none of what it ran is reused, %s", path, r.Error, kept))
	default:
		src.runs[r.RunID] = report.ReuseSource{RunID: r.RunID, StartedAt: r.StartedAt, GitHub: r.GitHub}
	}
	// Every run a report's reuse.sources lists completed: a store lists
	// only the runs its answers came from (origin), each of them a
	// completed run's own evidence or one that such a run, in turn, was
	// listed for; and reportread.Read refuses a reused_from that names no
	// listed run. So a case that a failed or interrupted run reused names
	// a completed run, and stays reusable.
	if r.Reuse != nil {
		for _, rs := range r.Reuse.Sources {
			if _, ok := src.runs[rs.RunID]; !ok {
				src.runs[rs.RunID] = rs
			}
		}
	}
	for p := range r.Programs {
		op := &r.Programs[p]
		for c := range op.Cases {
			oc := &op.Cases[c]
			k := inputKey(op.ProgramSHA256, oc.Args, oc.Event.StdinSHA256)
			src.byInput[k] = append(src.byInput[k], at{p, c})
			src.byName[[2]string{op.ID, oc.Name}] = at{p, c}
		}
	}
	return src
}

// inputKey finds the stored cases of one program file on one input.
func inputKey(programSHA256 string, args []string, stdinSHA256 string) string {
	return programSHA256 + "\x00" + stdinSHA256 + "\x00" + strings.Join(args, "\x00")
}

// Sources are the runs a report of the store's answers names, at most
// report.MaxReuseRuns: first the runs whose evidence Match's answers
// reuse (the original run of evidence reused again, with its own start,
// commit and Actions run), in the order first answered; then the runs of
// the other stored reports that completed, in the order given. It lists
// only completed runs: an interrupted or failed report's own run never
// answers a case. Call it after Match.
func (s *Store) Sources() []report.ReuseSource {
	out := slices.Clone(s.listed)
	seen := maps.Clone(s.isListed)
	if seen == nil {
		seen = map[string]bool{}
	}
	for _, src := range s.sources {
		if src.why == nil && !seen[src.rep.RunID] && len(out) < s.maxListed {
			seen[src.rep.RunID] = true
			out = append(out, src.runs[src.rep.RunID])
		}
	}
	if out == nil {
		out = []report.ReuseSource{}
	}
	return out
}

// list adds run to the runs the store's answers came from, unless it is
// there already; false when it is not there and the list is full.
func (s *Store) list(run report.ReuseSource) bool {
	if s.isListed[run.RunID] {
		return true
	}
	if len(s.listed) >= s.maxListed {
		return false
	}
	if s.isListed == nil {
		s.isListed = map[string]bool{}
	}
	s.isListed[run.RunID] = true
	s.listed = append(s.listed, run)
	return true
}

// Answer is what the store says of one case of the spec: its stored runs,
// judged afresh, when they answer it; else why not.
type Answer struct {
	// Runs are the stored runs judged against the case's expectation now,
	// in order; nil when the case must run now.
	Runs []assemble.RunResult
	// Result is the fold of Runs.
	Result verdict.CaseResult
	// References are a same_as case's stored reference runs.
	References []runner.Event
	// From names the run and execution that ran them.
	From *report.Origin
	// Attempt is the stored program attempt they come from: its settings
	// and build stand for a program none of whose cases runs now.
	Attempt *report.Program
	// NotReused says why the case must run now (nil when Runs answer it).
	NotReused *report.NotReused
	// Recheck is set for a case a checker judges: Runs are its program's
	// stored runs, and its checker must run on them again before the case
	// is judged (Result is then only what they settle without it).
	Recheck bool
}

// Reused is true when stored runs answer the case.
func (a Answer) Reused() bool { return a.Runs != nil }

// Match answers every case of program p, whose cases' wanted keys are
// wants (match.Wants: stored evidence answers a case only for the image
// that would run it now). A built program (built) reuses all of its cases
// or none: its cases are judged on one build.
func (s *Store) Match(p spec.Program, wants []match.Want, built bool) []Answer {
	answers := make([]Answer, len(p.Cases))
	for k, c := range p.Cases {
		answers[k] = s.answer(wanted{prog: p, c: c, Want: wants[k]})
	}
	if built {
		oneBuild(p, answers)
	}
	return answers
}

// wanted is one case of the spec as the store looks it up.
type wanted struct {
	prog spec.Program
	c    spec.Case
	match.Want
}

// answer looks w up in every source, in order: the first stored case that
// answers it wins; else the first refusal found says why it runs now.
func (s *Store) answer(w wanted) Answer {
	var first *report.NotReused
	for _, src := range s.sources {
		for _, a := range src.candidates(w) {
			ans := src.try(w, a)
			if ans.Reused() {
				return ans
			}
			if first == nil {
				first = ans.NotReused
			}
		}
	}
	if first == nil {
		first = report.NewNotReused(ReasonNoStoredRun, "no stored report holds a run of this program file on this input (args and stdin)")
	}
	return Answer{NotReused: first}
}

// candidates are the stored cases that might answer w: the same program's
// case of the same name first (the likeliest, and the one whose refusal
// says most), then every case of the same program file on the same input.
func (src *source) candidates(w wanted) []at {
	var out []at
	named, ok := src.byName[[2]string{w.prog.ID, w.c.Name}]
	if ok {
		out = append(out, named)
	}
	for _, a := range src.byInput[inputKey(w.Key.Program.SHA256, w.c.Invocation.Args, w.Key.Run.StdinSHA256)] {
		if !ok || a != named {
			out = append(out, a)
		}
	}
	return out
}

// refusal says why a stored case cannot answer: its reason, and the
// detail, which names the stored case.
type refusal func(reason, format string, args ...any) Answer

// try answers w with stored case a of src, or says why it cannot.
func (src *source) try(w wanted, a at) Answer {
	op := &src.rep.Programs[a.p]
	oc := &op.Cases[a.c]
	refuse := func(reason, format string, args ...any) Answer {
		where := fmt.Sprintf("%s, program %q case %q: ", src.path, op.Name, oc.Name)
		return Answer{NotReused: report.NewNotReused(reason, where+fmt.Sprintf(format, args...))}
	}
	if why := src.refused(oc); why != nil {
		return Answer{NotReused: why}
	}
	f := match.Check(w.Want, op, oc)
	if f.FailedBuild && op.Build != nil && op.Build.TimedOut {
		return refuse(ReasonTimedOut, "the stored build timed out; %s", timeoutRerun)
	}
	if len(f.Differences) > 0 {
		d := f.Differences[0]
		return refuse(keyReason(d), "%s", d.Msg)
	}
	if f.FailedBuild {
		// The case never ran: its program's build failed, which settles
		// it false whatever its input (a build failure's output is the
		// build's, not the run's, and there is no reference to compare).
		return src.judged(w, op, oc, f.Runs, nil, refuse)
	}
	if !f.ReferencesWhole {
		return refuse(ReasonOmitted, "the stored report kept only a digest of its reference's output (its size budget left the bytes out)")
	}
	for _, e := range f.Runs {
		switch {
		case !f.Whole:
			return refuse(ReasonOmitted, "the stored report kept only a digest of its output (its size budget left the bytes out)")
		case e.SandboxError != "":
			return refuse(ReasonSandbox, "the stored run could not be observed: %s", e.SandboxError)
		case e.TimedOut:
			return refuse(ReasonTimedOut, "the stored run timed out; %s", timeoutRerun)
		}
	}
	return src.judged(w, op, oc, f.Runs, f.References, refuse)
}

// judged answers w with events, the stored runs of case oc of op (and
// refs, a same_as case's stored reference runs), judged afresh against
// w's expectation, unless they do not settle it.
func (src *source) judged(w wanted, op *report.Program, oc *report.Case, events, refs []runner.Event, refuse refusal) Answer {
	// A checker's stored runs are never reused: it runs again on the
	// stored runs. What they settle is judged as if it accepted each
	// stream it will judge; what they cannot settle even then (a cut
	// stream, no exit code) runs again, as any undetermined case does.
	recheck := w.c.Expect.CheckerName() != ""
	var accepted []verdict.Checked
	if recheck {
		accepted = acceptAll(w.c.Expect, refs, events)
	}
	results, fold := verdict.JudgeCheckedRuns(w.c.Expect, refs, events, accepted)
	runs := make([]assemble.RunResult, len(events))
	for r, e := range events {
		runs[r] = assemble.RunResult{Event: e, Result: results[r]}
	}
	if fold.Verdict == verdict.Undetermined {
		return refuse(ReasonUndecided, "its stored evidence does not settle the case: %s", fold.Reason)
	}
	if len(refs) == 0 {
		refs = nil
	}
	from, msg := src.origin(op, oc)
	if from == nil {
		return refuse(ReasonSources, "%s", msg)
	}
	return Answer{Runs: runs, Result: fold, References: refs, From: from, Attempt: op, Recheck: recheck}
}

// acceptAll is, for each run of events, an accepting checker event on
// every stream a checker would judge (verdict.CheckersWanted; refs are the
// stored reference runs, whose output may be a checker's answer).
func acceptAll(exp verdict.Expectation, refs, events []runner.Event) []verdict.Checked {
	ok := 0
	accept := &runner.Event{ExitCode: &ok}
	out := make([]verdict.Checked, len(events))
	for r, ev := range events {
		if m, _ := verdict.CheckersWanted(exp, refs, ev); m != nil {
			out[r].Stdout = accept
		}
		if _, m := verdict.CheckersWanted(exp, refs, ev); m != nil {
			out[r].Stderr = accept
		}
	}
	return out
}

// refused says why no evidence of stored case oc may be reused (nil when
// it may): a case that an interrupted or failed run ran. One that such a
// run reused names a completed run (see newSource), and may.
func (src *source) refused(oc *report.Case) *report.NotReused {
	if src.why != nil && oc.ReusedFrom == nil {
		return src.why
	}
	return nil
}

// origin is the run and execution that ran stored case oc of op (where
// reused evidence was reused from, the original), listed among the runs
// the store's answers came from. It is nil, with why, when that run
// cannot be listed: the list is full, or the report does not name it.
func (src *source) origin(op *report.Program, oc *report.Case) (*report.Origin, string) {
	o := report.Origin{RunID: src.rep.RunID, ExecutionID: op.ExecutionID}
	if oc.ReusedFrom != nil {
		o = *oc.ReusedFrom
	}
	run, ok := src.runs[o.RunID]
	switch {
	case !ok:
		return nil, fmt.Sprintf("its evidence names run %s, which the stored report does not list as a completed run", o.RunID)
	case !src.store.list(run):
		return nil, fmt.Sprintf("its evidence came from run %s, and this run's evidence already comes from %d other runs, the most a report names: it runs now, and its evidence is this run's", o.RunID, src.store.maxListed)
	}
	return &o, ""
}

// keyReason is the reason counted for a part of the key that differs.
func keyReason(d evidence.Difference) string {
	if d.Unrecorded {
		return ReasonUnrecorded + string(d.Part)
	}
	return ReasonChanged + string(d.Part)
}

// timeoutRerun is why a stored timeout is not reused: whether a run ends
// within its timeout depends on how busy the machine was, which no key
// holds, and reused, one slow moment's false would be carried from report
// to report.
const timeoutRerun = "whether it ends in time depends on the machine's load, which the stored evidence cannot settle, so it runs again"

// oneBuild makes a built program's cases all run when any of them must:
// a new attempt builds the program again, and its cases are judged on
// that build.
func oneBuild(p spec.Program, answers []Answer) {
	runs := -1
	for k := range answers {
		if !answers[k].Reused() {
			runs = k
			break
		}
	}
	if runs < 0 {
		return
	}
	for k := range answers {
		if answers[k].Reused() {
			answers[k] = Answer{NotReused: report.NewNotReused(ReasonBuild,
				fmt.Sprintf("case %q of this program runs now, so the program is built again, and every case of it is judged on the one build", p.Cases[runs].Name))}
		}
	}
}
