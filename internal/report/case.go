package report

import (
	"fmt"

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
// Writer's summary the excerpt it holds (nil when it holds none; see
// WriterOptions.Excerpts).
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
