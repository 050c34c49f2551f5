package reportread_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reporttest"
)

// TestReadRefusesForgedReuse edits a report of a run given stored reports
// (reporttest.Reused, written as the engine writes one and read back
// checked) as a forger would: Read refuses each.
func TestReadRefusesForgedReuse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, want string
		edit       func(r *report.Report)
	}{
		{"marks without a block", "without a reuse block", func(r *report.Report) { r.Reuse = nil }},
		{"counts edited", "reuse counts", func(r *report.Report) { r.Reuse.Reused++ }},
		{"reason with markup", "is not a reason", func(r *report.Report) { r.Programs[1].Cases[0].NotReused.Reason = "<b>changed</b>" }},
		{"both marks", "both reused_from and not_reused", func(r *report.Report) {
			r.Programs[0].Cases[0].NotReused = &report.NotReused{Reason: "undetermined"}
		}},
		{"a bad execution ID", "must be IDs", func(r *report.Report) { r.Programs[0].Cases[0].ReusedFrom.ExecutionID = "a b" }},
		{"a bad source", "commit IDs", func(r *report.Report) { r.Reuse.Sources[0].GitHub.SHA = "main" }},
		{"too many sources", "more than 1024 entries", func(r *report.Report) {
			for range report.MaxReuseRuns {
				r.Reuse.Sources = append(r.Reuse.Sources, r.Reuse.Sources[0])
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := reporttest.Reused(t)
			tc.edit(&r)
			var buf bytes.Buffer
			if err := report.Encode(&buf, r); err != nil {
				t.Fatal(err)
			}
			_, err := reportread.Read(&buf, 1<<30)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Read: %v, want a refusal saying %q", err, tc.want)
			}
		})
	}
}
