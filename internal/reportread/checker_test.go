package reportread_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reporttest"
)

// TestReadCheckerRuns: a report of an earlier behaves (no checker_runs)
// reads; checker runs that do not fit their case (another checker, a run
// it does not have, a stream that is not one or has no checker, out of
// order, output that is not the run's, a digest that is not one, applied
// settings without an image, a build image without a build, an answer
// from the reference that is not its output, too many) do not.
func TestReadCheckerRuns(t *testing.T) {
	t.Parallel()
	good := reporttest.Encoded(t, assemble.Report(reporttest.CheckedInput()))
	if _, err := reportread.Read(bytes.NewReader(good), 1<<20); err != nil {
		t.Fatalf("the checked report: %v", err)
	}
	edit := func(f func(cases []map[string]any)) []byte {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		var cases []map[string]any
		for _, c := range m["programs"].([]any)[0].(map[string]any)["cases"].([]any) {
			cases = append(cases, c.(map[string]any))
		}
		f(cases)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	runs := func(c map[string]any) []any { return c["checker_runs"].([]any) }
	run := func(c map[string]any, k int) map[string]any { return runs(c)[k].(map[string]any) }
	old := edit(func(cases []map[string]any) {
		for _, c := range cases {
			delete(c, "checker_runs")
		}
	})
	if _, err := reportread.Read(bytes.NewReader(old), 1<<20); err != nil {
		t.Errorf("cases without checker_runs: %v", err)
	}
	for name, tc := range map[string]struct {
		f    func(cases []map[string]any)
		want string
	}{
		"another checker":              {func(cs []map[string]any) { run(cs[0], 0)["checker"] = "other" }, "is not the checker of the case's stdout matcher"},
		"a run the case does not have": {func(cs []map[string]any) { run(cs[0], 1)["run"] = 2 }, "run 2 of a case that ran 2 times"},
		"a negative run":               {func(cs []map[string]any) { run(cs[0], 0)["run"] = -1 }, "run -1"},
		"not a stream":                 {func(cs []map[string]any) { run(cs[0], 0)["stream"] = "stdin" }, "is not stdout or stderr"},
		"a stream without a checker":   {func(cs []map[string]any) { run(cs[0], 0)["stream"] = "stderr" }, "stderr matcher"},
		"on a case without a checker":  {func(cs []map[string]any) { cs[3]["checker_runs"] = []any{run(cs[0], 0)} }, "stdout matcher"},
		"out of order": {func(cs []map[string]any) {
			r := runs(cs[0])
			r[0], r[1] = r[1], r[0]
		}, "is not after the one before"},
		"twice":        {func(cs []map[string]any) { cs[0]["checker_runs"] = []any{run(cs[0], 0), run(cs[0], 0)} }, "is not after the one before"},
		"other output": {func(cs []map[string]any) { run(cs[0], 0)["output_sha256"] = reporttest.Hex64('c') }, "output_sha256 is not the digest of run 0's stdout"},
		"not a digest": {func(cs []map[string]any) { run(cs[1], 1)["answer_sha256"] = "x" }, "answer_sha256"},
		"its event another program": {func(cs []map[string]any) {
			run(cs[0], 0)["event"].(map[string]any)["program_sha256"] = reporttest.Hex64('d')
		}, "its event's program_sha256"},
		"applied without an image": {func(cs []map[string]any) {
			run(cs[0], 0)["applied"].(map[string]any)["image"] = ""
		}, "applied names no image"},
		"a build image without a build": {func(cs []map[string]any) { run(cs[0], 0)["build_image_id"] = "sha256:" + reporttest.Hex64('e') }, "have no build"},
		"an answer from the reference, and no reference events": {func(cs []map[string]any) {
			cs[0]["expect"].(map[string]any)["stdout"].(map[string]any)["answer_reference"] = "r"
		}, "its answer is the reference's output, and the case has no reference_events"},
		"an answer that is not the reference's output": {func(cs []map[string]any) {
			cs[0]["expect"].(map[string]any)["stdout"].(map[string]any)["answer_reference"] = "r"
			// The second run's event: its stdout is not the answer the
			// checker got.
			cs[0]["reference_events"] = []any{cs[0]["runs"].([]any)[1].(map[string]any)["event"]}
		}, "answer_sha256 is not the digest of the reference's stdout"},
		"a damaged event": {func(cs []map[string]any) { run(cs[0], 1)["event"].(map[string]any)["stderr_kept_bytes"] = 3 }, "the report was damaged"},
		"too many": {func(cs []map[string]any) {
			var many []any
			for range report.MaxCheckerRuns + 1 {
				many = append(many, map[string]any{})
			}
			cs[0]["checker_runs"] = many
		}, "more than 200 entries"},
	} {
		_, err := reportread.Read(bytes.NewReader(edit(tc.f)), 1<<20)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Read said %v, want %q", name, err, tc.want)
		}
	}
}
