package report

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/behaves-dev/behaves/internal/verdict"
)

// NoEvidence reports whether a case that is not true has no evidence to
// show: the sandbox never ran it (no exit, no output, no flag), so a
// rendering can fold such cases into one line per shared reason.
func (c *Case) NoEvidence() bool { return isBare(c) }

// isBare reports whether a case that is not true has no evidence to show.
func isBare(c *Case) bool {
	e := &c.Event
	return c.Verdict == verdict.Undetermined && e.ExitCode == nil && !e.TimedOut &&
		e.ResourceLimit == "" && e.StdoutBytes == 0 && e.StderrBytes == 0 &&
		e.Stdout == "" && e.Stderr == ""
}

// HeldOutput returns what of the case's kept stdout and stderr is in
// memory to show: all of it for a case as built or read, and for a
// reportwrite.Writer's summary the excerpt it holds (nil when it holds none; see
// reportwrite.Options.Excerpts).
func (c *Case) HeldOutput() (stdout, stderr []byte) {
	if c.summary {
		if c.excerpt == nil {
			return nil, nil
		}
		return c.excerpt[0], c.excerpt[1]
	}
	return c.Event.StdoutData(), c.Event.StderrData()
}

// SharedNoEvidenceReason is the reason every case of p shares when none
// of them has evidence (an image missing: the sandbox ran none), and how
// many cases that is; n is 0 otherwise. Renderers say it once.
func (p *Program) SharedNoEvidenceReason() (reason string, n int) {
	for i := range p.Cases {
		c := &p.Cases[i]
		if !isBare(c) || (n > 0 && c.Reason != reason) {
			return "", 0
		}
		reason, n = c.Reason, n+1
	}
	return reason, n
}

// RunTally counts the verdicts of a case's runs (zero for a case that ran
// once).
func (c *Case) RunTally() Tally {
	var t Tally
	for _, r := range c.Runs {
		t.Add(r.Verdict)
	}
	return t
}

// NondeterministicText is " (N nondeterministic)" for a tally with
// nondeterministic entries, else "": what the renderings add after the
// undetermined count.
func (t Tally) NondeterministicText() string {
	if t.Nondeterministic == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d nondeterministic)", t.Nondeterministic)
}

// ExpectedExitCode is the exit code the case expected, as text: for a
// same_as case whose reference could not answer (no matcher was derived
// from it), "the reference's (unknown)".
func (c *Case) ExpectedExitCode() string {
	if c.Expect.SameAs != nil && c.Expect.Stdout == nil && c.Expect.Stderr == nil {
		return "the reference's (unknown)"
	}
	return fmt.Sprint(c.Expect.ExitCode)
}

// DefaultExcerpts is how many cases that are not true keep the start of their
// output in a reportwrite.Writer's summaries when
// reportwrite.Options.Excerpts is 0: as many as the terminal rendering
// describes by default.
const DefaultExcerpts = 100

// ExcerptMax is how much of each stream a summary's excerpt holds for a
// renderer (Case.HeldOutput): the terminal shows at most that much of a
// stream.
const ExcerptMax = 4096

// excerptBytes is what a summary keeps of a stream: ExcerptMax plus a
// rune's worth, so that a renderer can cut on a rune boundary.
const excerptBytes = ExcerptMax + utf8.UTFMax

// Events lists the case's events in the order the JSON holds them: the
// case's event, then each run's, then each of its reference's, then each
// checker run's.
func (c *Case) Events() []*Event {
	evs := make([]*Event, 0, 1+len(c.Runs)+len(c.ReferenceEvents)+len(c.CheckerRuns))
	evs = append(evs, &c.Event)
	for k := range c.Runs {
		evs = append(evs, &c.Runs[k].Event)
	}
	for k := range c.ReferenceEvents {
		evs = append(evs, &c.ReferenceEvents[k])
	}
	for k := range c.CheckerRuns {
		evs = append(evs, &c.CheckerRuns[k].Event)
	}
	return evs
}

// Summarize returns c without its output (its runs copied, not shared),
// marked as a summary: what a reportwrite.Writer holds in memory of a spooled
// case. Encode refuses it.
func Summarize(c Case) Case {
	c.Runs = slices.Clone(c.Runs)
	c.ReferenceEvents = slices.Clone(c.ReferenceEvents)
	c.CheckerRuns = slices.Clone(c.CheckerRuns)
	for _, e := range c.Events() {
		e.Stdout, e.StdoutBase64 = "", ""
		e.Stderr, e.StderrBase64 = "", ""
	}
	c.summary = true
	return c
}

// HoldExcerpt gives the summary c the start of its kept stdout and stderr
// (at most ExcerptMax and a rune of each, copied), for HeldOutput.
func (c *Case) HoldExcerpt(stdout, stderr []byte) {
	c.excerpt = &[2][]byte{excerpt(stdout), excerpt(stderr)}
}

// DropExcerpt lets go of the excerpt HoldExcerpt gave c.
func (c *Case) DropExcerpt() { c.excerpt = nil }

// excerpt copies the start of b, so that the summary does not keep the
// whole output alive.
func excerpt(b []byte) []byte {
	return slices.Clone(b[:min(len(b), excerptBytes)])
}

// Expected is what a renderer shows as the expected side of the matcher
// m of the case's stream ("stdout" or "stderr"): m's expected text, or,
// for a checker whose answer is the reference's output, that output as
// the reference's first run kept it (nothing when the case kept no
// reference run).
func (c *Case) Expected(stream string, m *MatcherOutcome) []byte {
	if m == nil {
		return nil
	}
	if m.Kind == verdict.Checker && m.AnswerReference != "" {
		if len(c.ReferenceEvents) == 0 {
			return nil
		}
		if stream == "stderr" {
			return c.ReferenceEvents[0].StderrData()
		}
		return c.ReferenceEvents[0].StdoutData()
	}
	return []byte(m.ExpectedText())
}
