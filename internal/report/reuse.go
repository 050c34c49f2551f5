package report

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"time"
	"unicode/utf8"
)

// Reuse says what a run took from stored reports (behaves run --reuse):
// which reports it was given, how many invocations their evidence answered
// and why the others ran now. It is null for a run given none. Everything
// but Sources folds from the cases (their reused_from and not_reused), and
// Read recomputes it.
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

var (
	// reasonPattern keeps a reason to characters every rendering shows as
	// they are (no markup, no control characters).
	reasonPattern = regexp.MustCompile(`^[a-z][a-z0-9_.:, -]{0,79}$`)
	// executionIDPattern is an execution ID (behaves draws UUIDs).
	executionIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
)

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

// checkReuse checks a report's reuse block: its sources in their forms (the
// shape pass bounds them to MaxReuseRuns), every case's reused_from one of
// them, and its counts what the cases fold to; without one, no case may
// say it was reused or why not.
func checkReuse(r *Report) error {
	if r.Reuse == nil {
		for _, p := range r.Programs {
			for _, c := range p.Cases {
				if c.ReusedFrom != nil || c.NotReused != nil {
					return fmt.Errorf("program %q case %q: reused_from or not_reused in a report without a reuse block", shorten(p.Name, 40), shorten(c.Name, 40))
				}
			}
		}
		return nil
	}
	listed := make(map[string]bool, len(r.Reuse.Sources))
	for i, s := range r.Reuse.Sources {
		if err := checkSource(s); err != nil {
			return fmt.Errorf("reuse: source %d: %w", i+1, err)
		}
		listed[s.RunID] = true
	}
	// A reused case names the run its evidence came from, and the block
	// lists that run (its start, commit and Actions run): provenance that
	// names nothing the report can show is refused.
	for i := range r.Programs {
		for k := range r.Programs[i].Cases {
			if o := r.Programs[i].Cases[k].ReusedFrom; o != nil && !listed[o.RunID] {
				return fmt.Errorf("programs[%d].cases[%d].reused_from.run_id %s is no run of reuse.sources: a reused case names a run the report lists", i, k, quote(o.RunID))
			}
		}
	}
	want := ReuseOf(r)
	got := *r.Reuse
	if got.Reused != want.Reused || got.Ran != want.Ran || !slices.Equal(got.NotReused, want.NotReused) {
		return fmt.Errorf("reuse counts (reused %d, ran %d, not_reused %v) are not what the cases say (reused %d, ran %d, not_reused %v)",
			got.Reused, got.Ran, got.NotReused, want.Reused, want.Ran, want.NotReused)
	}
	return nil
}

func checkSource(s ReuseSource) error {
	if !runIDPattern.MatchString(s.RunID) {
		return fmt.Errorf("run_id %q is not a run ID", shorten(s.RunID, 70))
	}
	g := s.GitHub
	if !digitsPattern.MatchString(g.RunID) || !digitsPattern.MatchString(g.RunAttempt) {
		return errors.New("github.run_id and github.run_attempt must be decimal numbers")
	}
	if !shaPattern.MatchString(g.SHA) || !shaPattern.MatchString(g.HeadSHA) {
		return errors.New("github.sha and github.head_sha must be commit IDs")
	}
	if !safeText.MatchString(g.Repository) || !safeText.MatchString(g.EventName) {
		return errors.New("github.repository and github.event_name must be plain names")
	}
	return nil
}

// safeText is a repository ("owner/name") or an event name: characters
// that need no escaping anywhere.
var safeText = regexp.MustCompile(`^[A-Za-z0-9_./-]{0,140}$`)

// checkCaseReuse checks one case's reused_from or not_reused (at most one
// of them) in their forms.
func checkCaseReuse(c *Case) error {
	switch {
	case c.ReusedFrom != nil && c.NotReused != nil:
		return errors.New("both reused_from and not_reused: a case was reused or ran now")
	case c.ReusedFrom != nil:
		if !runIDPattern.MatchString(c.ReusedFrom.RunID) || !executionIDPattern.MatchString(c.ReusedFrom.ExecutionID) {
			return errors.New("reused_from: run_id and execution_id must be IDs")
		}
	case c.NotReused != nil:
		if !reasonPattern.MatchString(c.NotReused.Reason) {
			return fmt.Errorf("not_reused: reason %s is not a reason (lowercase words)", quote(shorten(c.NotReused.Reason, 60)))
		}
		if len(c.NotReused.Detail) > MaxReuseDetail || !utf8.ValidString(c.NotReused.Detail) {
			return fmt.Errorf("not_reused: detail is longer than %d bytes or not UTF-8", MaxReuseDetail)
		}
	}
	return nil
}

// mergeSources is the sources of every report, each run once, in order.
func mergeSources(reports []Report) (*Reuse, error) {
	var out *Reuse
	seen := map[string]bool{}
	for _, r := range reports {
		if r.Reuse == nil {
			continue
		}
		if out == nil {
			out = &Reuse{Sources: []ReuseSource{}}
		}
		for _, s := range r.Reuse.Sources {
			if !seen[s.RunID] {
				seen[s.RunID] = true
				out.Sources = append(out.Sources, s)
			}
		}
	}
	if out != nil && len(out.Sources) > MaxReuseRuns {
		return nil, refuse("the shards took evidence from %d runs, more than a report names (%d)", len(out.Sources), MaxReuseRuns)
	}
	return out, nil
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
