package report_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
)

// TestRunnerEventRoundTrip guards RunnerEvent as the inverse of EventOf
// and SetOutput: every event of the fixture comes back from its report
// entry as it went in (durations to the millisecond), and an omitted
// stream is not whole.
func TestRunnerEventRoundTrip(t *testing.T) {
	t.Parallel()
	in := reporttest.Input()
	n := 0
	for i, p := range in.Programs {
		for k, c := range p.Cases {
			ev := c.Runs[0].Event
			e := report.EventOf(ev)
			e.SetOutput(ev.Stdout.Data, ev.Stderr.Data)
			got, whole := e.RunnerEvent()
			want := ev
			want.Duration = want.Duration.Truncate(1e6)
			norm := func(s runner.Stream) runner.Stream {
				if len(s.Data) == 0 {
					s.Data = []byte{}
				}
				return s
			}
			want.Stdout, want.Stderr = norm(want.Stdout), norm(want.Stderr)
			got.Stdout, got.Stderr = norm(got.Stdout), norm(got.Stderr)
			if want.Command == nil {
				want.Command = []string{}
			}
			if diff := cmp.Diff(want, got); diff != "" || !whole {
				t.Errorf("program %d, case %d: whole %v, (-want +got):\n%s", i, k, whole, diff)
			}
			n++
		}
	}
	if n < 4 {
		t.Fatalf("only %d events checked", n)
	}
	e := report.EventOf(in.Programs[0].Cases[0].Runs[0].Event)
	e.StdoutOmitted = true
	if _, whole := e.RunnerEvent(); whole {
		t.Error("an event whose stdout was omitted counts as whole")
	}
}
