package reportread

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"unicode/utf8"

	"github.com/behaves-dev/behaves/internal/escape"
	"github.com/behaves-dev/behaves/internal/report"
)

var (
	// reasonPattern keeps a reason to characters every rendering shows as
	// they are (no markup, no control characters).
	reasonPattern = regexp.MustCompile(`^[a-z][a-z0-9_.:, -]{0,79}$`)
	// executionIDPattern is an execution ID (behaves draws UUIDs).
	executionIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
)

// checkReuse checks a report's reuse block: its sources in their forms (the
// shape pass bounds them to MaxReuseRuns), every case's reused_from one of
// them, and its counts what the cases fold to; without one, no case may
// say it was reused or why not.
func checkReuse(r *report.Report) error {
	if r.Reuse == nil {
		for _, p := range r.Programs {
			for _, c := range p.Cases {
				if c.ReusedFrom != nil || c.NotReused != nil {
					return fmt.Errorf("program %q case %q: reused_from or not_reused in a report without a reuse block", escape.Shorten(p.Name, 40), escape.Shorten(c.Name, 40))
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
				return fmt.Errorf("programs[%d].cases[%d].reused_from.run_id %s is no run of reuse.sources: a reused case names a run the report lists", i, k, escape.Quote(o.RunID))
			}
		}
	}
	want := report.ReuseOf(r)
	got := *r.Reuse
	if got.Reused != want.Reused || got.Ran != want.Ran || !slices.Equal(got.NotReused, want.NotReused) {
		return fmt.Errorf("reuse counts (reused %d, ran %d, not_reused %v) are not what the cases say (reused %d, ran %d, not_reused %v)",
			got.Reused, got.Ran, got.NotReused, want.Reused, want.Ran, want.NotReused)
	}
	return nil
}

func checkSource(s report.ReuseSource) error {
	if !runIDPattern.MatchString(s.RunID) {
		return fmt.Errorf("run_id %q is not a run ID", escape.Shorten(s.RunID, 70))
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
func checkCaseReuse(c *report.Case) error {
	switch {
	case c.ReusedFrom != nil && c.NotReused != nil:
		return errors.New("both reused_from and not_reused: a case was reused or ran now")
	case c.ReusedFrom != nil:
		if !runIDPattern.MatchString(c.ReusedFrom.RunID) || !executionIDPattern.MatchString(c.ReusedFrom.ExecutionID) {
			return errors.New("reused_from: run_id and execution_id must be IDs")
		}
	case c.NotReused != nil:
		if !reasonPattern.MatchString(c.NotReused.Reason) {
			return fmt.Errorf("not_reused: reason %s is not a reason (lowercase words)", escape.Quote(escape.Shorten(c.NotReused.Reason, 60)))
		}
		if len(c.NotReused.Detail) > report.MaxReuseDetail || !utf8.ValidString(c.NotReused.Detail) {
			return fmt.Errorf("not_reused: detail is longer than %d bytes or not UTF-8", report.MaxReuseDetail)
		}
	}
	return nil
}
