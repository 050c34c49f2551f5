package engine

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sync"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// checkedStream is one stream of one run of a held case that a checker
// judges, and what the checker is given for it.
type checkedStream struct {
	cr     *caseRun
	run    int
	stream string
	in     spec.CheckedStream
}

// runCheckers runs the checkers of the held cases (those with a checker
// matcher, whose runs are all in) and fills in each case's checks: one
// job per checker (spec.CheckerJob: built once, if its profile has a
// build stage, and delivered once), one invocation per stream it judges
// (verdict.CheckersWanted: a stream cut at output_limit, or of a run that
// did not finish, gets none, and is undetermined without it; so does one
// whose answer is its reference's output when that run did not finish or
// its stream was cut). The answer (the matcher's, or the reference's
// output: verdict.ReferenceAnswer) goes to the checker's container only. why, when not "", is why nothing
// can run (no sandbox, or it was lost): each checker run records it as
// its sandbox error, and the checker matcher is undetermined. It returns
// the loss of the sandbox during the checkers' runs.
func (w *work) runCheckers(ctx context.Context, sb runner.Sandbox, held []*caseRun, why string, opt runner.Options) error {
	byName := make(map[string]spec.Checker, len(w.spec.Checkers))
	for _, c := range w.spec.Checkers {
		byName[c.Name] = c
	}
	streams := map[string][]checkedStream{}
	var names []string
	for _, cr := range held {
		refs := cr.ref.runs()
		for r, ev := range cr.events {
			out, errm := verdict.CheckersWanted(cr.rec.Spec.Expect, refs, ev)
			for _, x := range []struct {
				name string
				m    *verdict.Matcher
				s    runner.Stream
			}{{"stdout", out, ev.Stdout}, {"stderr", errm, ev.Stderr}} {
				if x.m == nil {
					continue
				}
				if _, ok := byName[x.m.Checker]; !ok {
					continue // the loader refuses a checker the spec lacks
				}
				if streams[x.m.Checker] == nil {
					names = append(names, x.m.Checker)
				}
				// The answer: the matcher's, or its reference's output
				// of the same stream (CheckersWanted asked for none
				// where that is not to be had).
				answer, _ := verdict.ReferenceAnswer(x.m, x.name, refs)
				streams[x.m.Checker] = append(streams[x.m.Checker], checkedStream{cr: cr, run: r, stream: x.name,
					in: spec.CheckedStream{Input: cr.rec.Spec.Invocation.Stdin, Output: x.s.Data, Answer: answer}})
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	jobs := make([]runner.Job, len(names))
	events := make([][]runner.Event, len(names))
	have := make([][]bool, len(names))
	for j, name := range names {
		ins := make([]spec.CheckedStream, len(streams[name]))
		for k, st := range streams[name] {
			ins[k] = st.in
		}
		jobs[j] = w.spec.CheckerJob(byName[name], ins)
		events[j] = make([]runner.Event, len(ins))
		have[j] = make([]bool, len(ins))
	}
	var obs []runner.Observation
	var lost error
	if why == "" {
		var mu sync.Mutex
		opt.OnEvent = func(job, inv int, ev runner.Event) {
			mu.Lock()
			defer mu.Unlock()
			events[job][inv], have[job][inv] = ev, true
		}
		obs, lost = runner.Run(ctx, sb, jobs, opt)
	}
	for j := range jobs {
		jobs[j].Program.Files = nil // what the checker was given: no longer needed
		for k := range events[j] {
			switch {
			case have[j][k]:
			case why != "":
				events[j][k] = runner.Event{SandboxError: why}
			case j < len(obs) && k < len(obs[j].Events):
				events[j][k] = obs[j].Events[k]
			default:
				events[j][k] = runner.Event{SandboxError: "not run"}
			}
		}
	}
	for j, name := range names {
		// The checker's own digest identifies it, not that of the job,
		// whose files are the checker's and what it checked.
		digest := byName[name].Program.Digest()
		// What the checker's containers were built from and the image its
		// build ran: with the digests, the key of each of its runs.
		var applied *runner.Applied
		var buildID, buildRepo string
		if j < len(obs) {
			if a := obs[j].Settings.Applied; a.Image != "" {
				applied = &a
			}
			if b := obs[j].Build; b != nil {
				buildID, buildRepo = b.ImageDigest, b.RepoDigest
			}
		}
		for k, st := range streams[name] {
			ev := events[j][k]
			ev.ProgramSHA256 = digest
			st.cr.checks = append(st.cr.checks, assemble.CheckerRun{
				Checker: name, Run: st.run, Stream: st.stream,
				ProgramSHA256: digest, InputSHA256: sha256Hex(st.in.Input), OutputSHA256: sha256Hex(st.in.Output), AnswerSHA256: sha256Hex(st.in.Answer),
				Applied: applied, BuildImageID: buildID, BuildRepoDigest: buildRepo,
				Event: ev,
			})
		}
		if j < len(obs) && len(obs[j].SandboxWarnings) > 0 {
			w.checkerWarnings(name, streams[name], obs[j].SandboxWarnings)
		}
	}
	for _, cr := range held {
		slices.SortFunc(cr.checks, func(a, b assemble.CheckerRun) int {
			return cmp.Or(cmp.Compare(a.Run, b.Run), cmp.Compare(streamOrder(a.Stream), streamOrder(b.Stream)))
		})
	}
	return lost
}

// checkerWarnings adds what a checker's job could not remove to the
// attempts of the programs whose cases it checked.
func (w *work) checkerWarnings(name string, streams []checkedStream, warnings []string) {
	seen := map[*programRun]bool{}
	for _, st := range streams {
		pr := st.cr.prog
		if seen[pr] {
			continue
		}
		seen[pr] = true
		for _, msg := range warnings {
			pr.rec.Attempt.SandboxWarnings = append(pr.rec.Attempt.SandboxWarnings, "checker "+name+": "+msg)
		}
	}
}

// streamOrder puts stdout before stderr.
func streamOrder(s string) int {
	if s == "stderr" {
		return 1
	}
	return 0
}

// sha256Hex is the lowercase hex SHA-256 of b.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
