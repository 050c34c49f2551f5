package reportread_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestReadRefusesRunForgery guards Read against edited runs: each edit of
// the repeat report must be refused, and a report of an earlier
// behaves (no runs, no nondeterministic) still reads.
func TestReadRefusesRunForgery(t *testing.T) {
	t.Parallel()
	written := reporttest.Encoded(t, reporttest.RepeatReport())
	kase := func(m map[string]any, j int) map[string]any {
		return m["programs"].([]any)[0].(map[string]any)["cases"].([]any)[j].(map[string]any)
	}
	run := func(m map[string]any, j, k int) map[string]any { return kase(m, j)["runs"].([]any)[k].(map[string]any) }
	tests := []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"case made true, runs left", func(m map[string]any) {
			c := kase(m, 0)
			c["verdict"], c["nondeterministic"] = "true", false
		}, "is not what its 3 runs fold to"},
		{"nondeterministic dropped", func(m map[string]any) { kase(m, 0)["nondeterministic"] = false }, "is not what its 3 runs fold to"},
		{"a false run made true", func(m map[string]any) { run(m, 0, 1)["verdict"] = "true" }, "is not what its 3 runs fold to"},
		{"runs dropped", func(m map[string]any) { kase(m, 0)["runs"] = []any{} }, "nondeterministic without runs"},
		{"one run", func(m map[string]any) { kase(m, 1)["runs"] = kase(m, 1)["runs"].([]any)[:1] }, "one run in runs"},
		{"first run is not the event", func(m map[string]any) { run(m, 0, 0)["event"].(map[string]any)["duration_ms"] = 7.0 }, "runs[0].event"},
		{"a run's output rewritten", func(m map[string]any) {
			e := run(m, 0, 1)["event"].(map[string]any)
			e["stdout"], e["stdout_base64"] = "4\n", ""
		}, "run 2: stdout holds 2 bytes, but stdout_kept_bytes says 3: the report was damaged"},
		{"run with a bad limit", func(m map[string]any) { run(m, 0, 2)["event"].(map[string]any)["resource_limit"] = "x" }, "run 3: unknown resource_limit"},
		{"nondeterministic count", func(m map[string]any) {
			m["counts"].(map[string]any)["cases"].(map[string]any)["nondeterministic"] = 0.0
		}, "counts"},
		{"nondeterministic on a case that ran once", func(m map[string]any) {
			kase(m, 2)["nondeterministic"] = true
		}, "nondeterministic without runs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var m map[string]any
			if err := json.Unmarshal(written, &m); err != nil {
				t.Fatal(err)
			}
			tt.edit(m)
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := reportread.Read(bytes.NewReader(b), 1<<20); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Read = %v, want an error containing %q", err, tt.want)
			}
		})
	}

	// An earlier behaves wrote neither runs nor nondeterministic.
	old := reporttest.Encoded(t, reporttest.Report())
	var m map[string]any
	if err := json.Unmarshal(old, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"programs", "cases"} {
		delete(m["counts"].(map[string]any)[k].(map[string]any), "nondeterministic")
	}
	for _, p := range m["programs"].([]any) {
		for _, c := range p.(map[string]any)["cases"].([]any) {
			delete(c.(map[string]any), "runs")
			delete(c.(map[string]any), "nondeterministic")
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := reportread.Read(bytes.NewReader(b), 1<<20); err != nil || r.Verdict != verdict.False {
		t.Errorf("Read of a report without runs = %v, %v; want false, nil", r.Verdict, err)
	}
}
