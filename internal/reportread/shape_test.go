package reportread_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/reportwrite"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestShapeRefuses guards the shape pass against forged reports: each edit of a report
// behaves wrote is refused before anything is decoded, with a message
// naming the field. The edits are small; their large forms (a pass@k bomb,
// a reference_events bomb) are what TestForgedReportsCostLittle reads.
func TestShapeRefuses(t *testing.T) {
	t.Parallel()
	written := reporttest.Encoded(t, reporttest.Report())
	sameAs := reporttest.SameAs(t, reportwrite.DefaultMaxReportSize)
	group := func(m map[string]any) map[string]any { return m["groups"].([]any)[0].(map[string]any) }
	kase := func(m map[string]any, p, c int) map[string]any {
		return m["programs"].([]any)[p].(map[string]any)["cases"].([]any)[c].(map[string]any)
	}
	events := func(m map[string]any, n int) []any {
		ev := kase(m, 0, 0)["event"]
		out := make([]any, n)
		for i := range out {
			out[i] = ev
		}
		return out
	}
	tests := []struct {
		name   string
		report []byte
		edit   func(m map[string]any)
		want   string
	}{
		{"17 values of k", written, func(m map[string]any) {
			pa := map[string]any{}
			for k := 1; k <= 17; k++ {
				pa[strconv.Itoa(k)] = nil
			}
			group(m)["pass_at"] = pa
		}, "groups[0].pass_at: more than 16 keys"},
		{"k 0", written, func(m map[string]any) { group(m)["pass_at"] = map[string]any{"0": 0.0} }, `groups[0].pass_at: key "0" is not a k from 1 to 10000`},
		{"k beyond the ceiling", written, func(m map[string]any) { group(m)["pass_at"] = map[string]any{"10001": 0.0} }, `key "10001" is not a k`},
		{"groups with different k", written, func(m map[string]any) {
			other := map[string]any{}
			for k, v := range group(m) {
				other[k] = v
			}
			other["pass_at"] = map[string]any{"1": 0.0, "3": nil}
			m["groups"] = append(m["groups"].([]any), other)
		}, "groups[1].pass_at: k = "},
		{"17 reasons", written, func(m map[string]any) {
			rs := map[string]any{}
			for k := 1; k <= 17; k++ {
				rs[strconv.Itoa(k)] = "x"
			}
			group(m)["pass_at_reasons"] = rs
		}, "groups[0].pass_at_reasons: more than 16 keys"},
		{"101 runs", written, func(m map[string]any) {
			runs := make([]any, 101)
			for i := range runs {
				runs[i] = map[string]any{"verdict": "true", "reason": "", "event": kase(m, 0, 0)["event"]}
			}
			kase(m, 0, 0)["runs"] = runs
		}, "programs[0].cases[0].runs: more than 100 entries (at most the repeat ceiling)"},
		{"101 reference events", sameAs, func(m map[string]any) {
			kase(m, 0, 0)["reference_events"] = events(m, 101)
		}, "programs[0].cases[0].reference_events: more than 100 entries"},
		{"reference events on a plain case", sameAs, func(m map[string]any) {
			kase(m, 0, 1)["reference_events"] = events(m, 1)
		}, "programs[0].cases[1].reference_events: 1 events on a case that is neither same_as nor checked with its reference's output"},
		{"reference events with same_as null", sameAs, func(m map[string]any) {
			kase(m, 0, 0)["expect"].(map[string]any)["same_as"] = nil
		}, "programs[0].cases[0].reference_events: 2 events on a case that is neither same_as nor checked with its reference's output"},
		{"a key in another case", sameAs, func(m map[string]any) {
			// The decoder fills reference_events from this key too.
			kase(m, 0, 1)["Reference_Events"] = events(m, 1)
		}, `programs[0].cases[1]: key "Reference_Events" is not "reference_events"`},
		{"a key folded by Unicode", written, func(m map[string]any) {
			m["ſchema"] = report.Schema // U+017F folds to s
		}, `the report: key "ſchema" is not "schema"`},
		{"a missing case key", written, func(m map[string]any) { delete(kase(m, 1, 0), "event") }, `programs[1].cases[0] has no "event"`},
		{"empty strings by the million", written, func(m map[string]any) {
			// 3 bytes of JSON each, 16 bytes of string header in memory.
			p := m["programs"].([]any)[0].(map[string]any)
			p["sandbox_warnings"] = make([]any, 3<<20)
			for i := range p["sandbox_warnings"].([]any) {
				p["sandbox_warnings"].([]any)[i] = ""
			}
		}, "most of it for the entries of sandbox_warnings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var m map[string]any
			if err := json.Unmarshal(tt.report, &m); err != nil {
				t.Fatal(err)
			}
			tt.edit(m)
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			err = reportread.CheckShape(b)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("checkShape = %v, want an error containing %q", err, tt.want)
			}
			// Read says the same: the shape pass comes first.
			if _, rerr := reportread.Read(bytes.NewReader(b), int64(len(b))); rerr == nil || rerr.Error() != err.Error() {
				t.Errorf("Read = %v, want %v", rerr, err)
			}
		})
	}
}

// TestShapeRefusesRawJSON guards what a map of the report cannot express:
// a key given twice (the decoder keeps the last), nesting beyond the
// decoder's bound, and JSON that ends early.
func TestShapeRefusesRawJSON(t *testing.T) {
	t.Parallel()
	written := reporttest.Encoded(t, reporttest.Report())
	body := string(written[1:])
	for _, tt := range []struct{ name, data, want string }{
		{"a key twice", `{"verdict": "true",` + body, `the report: "verdict" is given twice`},
		{"a case key twice", strings.Replace(string(written), `"args": [`, `"args": [], "args": [`, 1), `programs[0].cases[0]: "args" is given twice`},
		{"deep nesting", `{"x": ` + strings.Repeat("[", reportread.MaxNesting+1) + strings.Repeat("]", reportread.MaxNesting+1) + "," + body, "nested more than 10000 deep"},
		{"cut", string(written[:len(written)/2]), "JSON"},
		{"not an object", `[]`, "not a report"},
	} {
		if err := reportread.CheckShape([]byte(tt.data)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: checkShape = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

// TestShapeCostOfRealReports guards the bound's premise: a report behaves
// writes takes at most about its own size to decode (decodeCost), far from
// maxDecodeFactor, whatever its shape: the fixture, same_as and repeat
// reports, a large report of many cases with output, and 50,000 cases with
// no output at all (the shape whose JSON is smallest for its structs).
func TestShapeCostOfRealReports(t *testing.T) {
	t.Parallel()
	var big, many bytes.Buffer
	br := reporttest.Big()
	br.RunID = "run-big"
	if err := report.Encode(&big, br); err != nil {
		t.Fatal(err)
	}
	if err := report.Encode(&many, manyCases(50000)); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"fixture": reporttest.Encoded(t, reporttest.Report()), "same_as": reporttest.SameAs(t, reportwrite.DefaultMaxReportSize), "big": big.Bytes(), "50,000 cases": many.Bytes(),
	} {
		cost, err := reportread.DecodeCost(data)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		ratio := float64(cost) / float64(len(data))
		if ratio > 1.5 {
			t.Errorf("%s: decoding %d bytes costs %d (%.2f × its size), want at most 1.5 ×", name, len(data), cost, ratio)
		}
		if _, err := reportread.Read(bytes.NewReader(data), int64(len(data))); err != nil {
			t.Errorf("%s: Read: %v", name, err)
		}
	}
}

// manyCases is a report of one program per 10 cases, n cases in all, each
// false with no output: as small as a real case gets in JSON.
func manyCases(n int) report.Report {
	in := assemble.Input{Spec: &spec.Spec{Path: "behaves.yml", Root: "."}, StartedAt: reporttest.StartedAt, Duration: time.Minute, RunID: "run-many"}
	for p := range n / 10 {
		var cases []spec.Case
		var events []runner.Event
		var results []verdict.CaseResult
		for c := range 10 {
			cases = append(cases, reporttest.Case(fmt.Sprintf("c%d", c), c+1, verdict.Expectation{ExitCode: 1}))
			ev := reporttest.Event(reporttest.IntP(0), "")
			events = append(events, ev)
			results = append(results, verdict.Judge(verdict.Expectation{ExitCode: 1}, ev))
		}
		prog := reporttest.Program(fmt.Sprintf("p%d", p), "p.py", p+1, cases...)
		in.Spec.Programs = append(in.Spec.Programs, prog)
		in.Programs = append(in.Programs, reporttest.Ran(prog, runner.Observation{Acquisition: runner.AcquisitionComplete, Settings: reporttest.Settings, Events: events}, 0, results...))
	}
	return assemble.Report(in)
}
