package report_test

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestExpectedExitCode: a same_as case whose reference could not answer
// expects no known exit code, and the renderings say so instead of 0.
func TestExpectedExitCode(t *testing.T) {
	t.Parallel()
	c := report.Case{Expect: report.Expect{ExitCode: 0, SameAs: &report.SameAs{Reference: "ref", Streams: []string{"stdout"}}}}
	if got := c.ExpectedExitCode(); got != "the reference's (unknown)" {
		t.Errorf("unanswered same_as: %q", got)
	}
	c.Expect.ExitCode, c.Expect.Stdout = 3, &report.MatcherOutcome{Kind: verdict.Equals}
	if got := c.ExpectedExitCode(); got != "3" {
		t.Errorf("answered same_as: %q", got)
	}
	if got := (&report.Case{Expect: report.Expect{ExitCode: 2}}).ExpectedExitCode(); got != "2" {
		t.Errorf("written: %q", got)
	}
}
