package report

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// bigReport is 50 programs of 20 cases each: a third false with multi-line
// output, a third undetermined, the rest true.
func bigReport() Report {
	in := Input{Spec: &spec.Spec{Path: "behaves.yml", Root: "."}, StartedAt: startedAt, Duration: time.Minute}
	out := strings.Repeat("some output line\n", 200)
	for p := range 50 {
		var cases []spec.Case
		var events []runner.Event
		var results []verdict.CaseResult
		for c := range 20 {
			cases = append(cases, kase(fmt.Sprintf("case %d", c), 10+c, verdict.Expectation{Stdout: equals(out)}, fmt.Sprint(c)))
			events = append(events, event(intp(0), out, fmt.Sprint(c)))
			v := verdict.Verdict((p + c) % 3)
			results = append(results, verdict.CaseResult{Verdict: v, Reason: "stdout differs", Checks: []verdict.Check{
				check("exit_code", verdict.True, "0", "0", ""),
				check("stdout", v, `"…"`, `"…"`, "differs"),
			}})
		}
		in.Spec.Programs = append(in.Spec.Programs, prog(fmt.Sprintf("sample-%02d", p), "s.py", p, cases...))
		in.Observations = append(in.Observations, runner.Observation{Acquisition: runner.AcquisitionComplete, Settings: settings, Events: events})
		in.Results = append(in.Results, results)
	}
	return Build(in)
}

func BenchmarkRender(b *testing.B) {
	r := bigReport()
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := Encode(io.Discard, r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("terminal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := WriteTerminal(io.Discard, r, TerminalOptions{MaxCaseDetails: -1}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
