package report

import (
	"cmp"
	"slices"
	"time"
	"unicode/utf8"
)

// Reuse says what a run took from stored reports (behaves run --reuse):
// which reports it was given, how many invocations their evidence answered
// and why the others ran now. It is null for a run given none. Everything
// but Sources folds from the cases (their reused_from and not_reused), and
// reportread.Read recomputes it.
type Reuse struct {
	// Sources are the runs the run's evidence came from: first those its
	// reused cases name (the original run of evidence reused again), then
	// the other reports it was given whose runs completed, each run once;
	// a merge holds every shard's. Every run listed completed, so a case
	// that names one (reused_from) is reusable also from a report of an
	// interrupted or failed run (package reuse).
	Sources []ReuseSource `json:"sources"`
	// Reused counts the invocations answered by stored evidence (a case
	// that runs k times counts k), Ran those that ran now.
	Reused int `json:"reused"`
	Ran    int `json:"ran"`
	// NotReused counts the cases that ran now by the reason stored
	// evidence could not answer them, the most frequent first.
	NotReused []ReasonCount `json:"not_reused"`
}

// ReuseSource is one stored report a run was given: the run that wrote it.
type ReuseSource struct {
	RunID     string    `json:"run_id"`
	StartedAt time.Time `json:"started_at"`
	// GitHub names the Actions run and the commit the evidence came from
	// (every field "" outside Actions).
	GitHub GitHub `json:"github"`
}

// ReasonCount is how many cases ran now for one reason.
type ReasonCount struct {
	Reason string `json:"reason"`
	Cases  int    `json:"cases"`
}

// Origin names the attempt that actually ran a reused case: the run and
// the program's execution. Reuse of reused evidence names the original.
type Origin struct {
	RunID       string `json:"run_id"`
	ExecutionID string `json:"execution_id"`
}

// NotReused says why stored evidence could not answer a case that a run
// given stored reports ran now.
type NotReused struct {
	// Reason is the kind ("no stored run", "changed: program", …): what
	// the run's reuse block counts.
	Reason string `json:"reason"`
	// Detail says what exactly, in words a person can act on. It may quote
	// what a stored report holds: renderers escape it as any other text.
	Detail string `json:"detail"`
}

// MaxReuseSources bounds the reports one run is given (--reuse).
const MaxReuseSources = 32

// MaxReuseRuns bounds the runs a report's reuse.sources list (Read
// refuses more), a merge's too. Evidence reused again names its original
// run, so a report given one stored report may name many: one for each
// run that last ran one of its programs.
const MaxReuseRuns = 1024

// MaxReuseDetail bounds a not_reused detail, in bytes.
const MaxReuseDetail = 1024

// NewNotReused is a NotReused with detail cut to MaxReuseDetail bytes (at
// a character boundary).
func NewNotReused(reason, detail string) *NotReused {
	if len(detail) > MaxReuseDetail {
		cut := MaxReuseDetail - len("…")
		for cut > 0 && !utf8.RuneStart(detail[cut]) {
			cut--
		}
		detail = detail[:cut] + "…"
	}
	return &NotReused{Reason: reason, Detail: detail}
}

// Reused is true when stored evidence answered the case.
func (c *Case) Reused() bool { return c.ReusedFrom != nil }

// ReuseOf is r's reuse block folded from its cases, with r's sources; nil
// when r has none.
func ReuseOf(r *Report) *Reuse {
	if r.Reuse == nil {
		return nil
	}
	out := &Reuse{Sources: slices.Clone(r.Reuse.Sources), NotReused: []ReasonCount{}}
	if out.Sources == nil {
		out.Sources = []ReuseSource{}
	}
	counts := map[string]int{}
	for _, p := range r.Programs {
		for i := range p.Cases {
			c := &p.Cases[i]
			if c.Reused() {
				out.Reused += c.RunCount()
				continue
			}
			out.Ran += c.RunCount()
			if c.NotReused != nil {
				counts[c.NotReused.Reason]++
			}
		}
	}
	for reason, n := range counts {
		out.NotReused = append(out.NotReused, ReasonCount{Reason: reason, Cases: n})
	}
	slices.SortFunc(out.NotReused, func(a, b ReasonCount) int {
		return cmp.Or(cmp.Compare(b.Cases, a.Cases), cmp.Compare(a.Reason, b.Reason))
	})
	return out
}

// ReusedCases counts p's cases that stored evidence answered.
func (p *Program) ReusedCases() int {
	n := 0
	for i := range p.Cases {
		if p.Cases[i].Reused() {
			n++
		}
	}
	return n
}

// ShortCommit is the commit the source's evidence came from, as git
// abbreviates it (its first 7 digits): the event's head commit, else
// GITHUB_SHA; "" outside Actions.
func (s ReuseSource) ShortCommit() string {
	sha := s.GitHub.HeadSHA
	if sha == "" {
		sha = s.GitHub.SHA
	}
	return sha[:min(len(sha), 7)]
}
