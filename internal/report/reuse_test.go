package report_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/report"
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
			_, err := report.Read(&buf, 1<<30)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Read: %v, want a refusal saying %q", err, tc.want)
			}
		})
	}
}

// TestMergeKeepsReuse: shards given stored reports merge into one report
// whose cases keep their marks and whose sources are every shard's, each
// run once.
func TestMergeKeepsReuse(t *testing.T) {
	t.Parallel()
	in := shards(t, 1, 2, 3)
	for k := range in {
		r := &in[k].Report
		src := "prior"
		if k == 2 {
			src = "older"
		}
		r.Reuse = &report.Reuse{Sources: []report.ReuseSource{{RunID: "prior"}, {RunID: src}}}
		r.Programs = slices.Clone(r.Programs)
		if k == 0 && len(r.Programs) > 0 {
			r.Programs[0].Cases = slices.Clone(r.Programs[0].Cases)
			r.Programs[0].Cases[0].ReusedFrom = &report.Origin{RunID: "prior", ExecutionID: "e1"}
		}
		*r = roundTrip(t, report.Folded(*r, []int{1, 2}))
	}
	got, err := report.Merge(in, report.MergeOptions{PassAt: []int{1, 2}, RunID: "merged"})
	if err != nil {
		t.Fatal(err)
	}
	got = roundTrip(t, got)
	var sources []string
	for _, s := range got.Reuse.Sources {
		sources = append(sources, s.RunID)
	}
	if !slices.Equal(sources, []string{"prior", "older"}) {
		t.Errorf("merged sources %v, want prior, older", sources)
	}
	marked := 0
	for _, p := range got.Programs {
		for _, c := range p.Cases {
			if c.Reused() {
				marked++
			}
		}
	}
	if marked != 1 || got.Reuse.Reused != 1 {
		t.Errorf("merged: %d reused cases, reuse block %+v; want the shard's 1", marked, got.Reuse)
	}
	// A merge of shards none of which was given stored reports has none.
	plain, err := report.Merge(shards(t, 1, 2, 3), report.MergeOptions{RunID: "merged"})
	if err != nil || plain.Reuse != nil {
		t.Errorf("merge without reuse: %v, reuse %+v; want no reuse block", err, plain.Reuse)
	}
}
