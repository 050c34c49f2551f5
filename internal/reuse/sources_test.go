package reuse

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/report"
)

// ids are the run IDs of sources, in order.
func ids(sources []report.ReuseSource) []string {
	out := []string{}
	for _, s := range sources {
		out = append(out, s.RunID)
	}
	return out
}

// TestOriginListsTheOriginalRun: an answer's origin is the stored run
// that ran the case, or, for a case that run reused, the run it names,
// with the start, commit and Actions run its report lists; Sources lists
// those runs first, then the other completed reports given, never an
// interrupted or failed one, and never more than the store may name: a
// case whose run does not fit is refused.
func TestOriginListsTheOriginalRun(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	orig := report.ReuseSource{RunID: "run-a", StartedAt: at, GitHub: report.GitHub{RunID: "111", SHA: strings.Repeat("a", 40)}}
	other := report.ReuseSource{RunID: "run-x", StartedAt: at.Add(time.Hour)}
	s := &Store{maxListed: 3}
	b := newSource(s, "b.json", report.Report{RunID: "run-b", StartedAt: at.Add(24 * time.Hour),
		Reuse: &report.Reuse{Sources: []report.ReuseSource{orig, other}}})
	stopped := newSource(s, "stopped.json", report.Report{RunID: "run-s", Interrupted: true,
		Reuse: &report.Reuse{Sources: []report.ReuseSource{orig}}})
	unused := newSource(s, "unused.json", report.Report{RunID: "run-u"})
	s.sources = []*source{b, stopped, unused}

	op := &report.Program{ExecutionID: "exec-b"}
	ranInB := &report.Case{}
	reusedByB := &report.Case{ReusedFrom: &report.Origin{RunID: "run-a", ExecutionID: "exec-a"}}

	if got := ids(s.Sources()); !slices.Equal(got, []string{"run-b", "run-u"}) {
		t.Errorf("before any answer: sources %v, want the completed reports given, run-b and run-u", got)
	}
	if o, why := b.origin(op, reusedByB); o == nil || *o != *reusedByB.ReusedFrom {
		t.Errorf("a case B reused: origin %+v (%s), want run-a's", o, why)
	}
	if o, why := b.origin(op, ranInB); o == nil || o.RunID != "run-b" || o.ExecutionID != "exec-b" {
		t.Errorf("a case B ran: origin %+v (%s), want run-b's execution", o, why)
	}
	src := s.Sources()
	if got := ids(src); !slices.Equal(got, []string{"run-a", "run-b", "run-u"}) {
		t.Errorf("sources %v, want run-a and run-b (answered, in that order), then run-u", got)
	}
	if src[0] != orig {
		t.Errorf("run-a listed as %+v, want its own start and Actions run %+v", src[0], orig)
	}

	// The interrupted report: what it ran is refused, what it reused is
	// not, and its own run is never listed.
	if why := stopped.refused(ranInB); why == nil || why.Reason != ReasonInterrupted {
		t.Errorf("a case the interrupted run ran: refused %+v, want %q", why, ReasonInterrupted)
	}
	if why := stopped.refused(reusedByB); why != nil {
		t.Errorf("a case the interrupted run reused from a completed one: refused %+v, want it reusable", why)
	}
	if o, why := stopped.origin(op, &report.Case{ReusedFrom: &report.Origin{RunID: "run-s", ExecutionID: "e"}}); o != nil {
		t.Errorf("a case naming the interrupted run itself: origin %+v, want none (%s)", o, why)
	}

	// Full: a third run fits, a fourth does not.
	if o, _ := b.origin(op, &report.Case{ReusedFrom: &report.Origin{RunID: "run-x", ExecutionID: "exec-x"}}); o == nil {
		t.Error("run-x, the third run named: refused, want it listed")
	}
	s.maxListed = 3
	d := newSource(s, "d.json", report.Report{RunID: "run-d"})
	if o, why := d.origin(op, ranInB); o != nil || !strings.Contains(why, "already comes from 3 other runs") {
		t.Errorf("a fourth run: origin %+v (%q), want it refused, the list full", o, why)
	}
	if got := ids(s.Sources()); !slices.Equal(got, []string{"run-a", "run-b", "run-x"}) {
		t.Errorf("full: sources %v, want the three answered", got)
	}
}
