package report_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
)

// withReuse is the fixture's report as a run given a stored report of run
// "prior" makes it: its first program's first case reused, its second run
// now for a changed program, the reuse block folded as Commit folds it.
func withReuse(t *testing.T) report.Report {
	t.Helper()
	r := reporttest.Report()
	r.Programs = slices.Clone(r.Programs)
	p := &r.Programs[0]
	p.Cases = slices.Clone(p.Cases)
	p.Cases[0].ReusedFrom = &report.Origin{RunID: "prior", ExecutionID: "0b7e9a52-4f7c-4a1e-9a43-3c1d2f7e8a90"}
	p.Cases[1].NotReused = report.NewNotReused("changed: program", "changed since the stored run")
	r.Reuse = &report.Reuse{Sources: []report.ReuseSource{{RunID: "prior", GitHub: report.GitHub{RunID: "42", SHA: strings.Repeat("a", 40), Repository: "o/r"}}}}
	return report.Folded(r, nil)
}

func TestReuseBlockFoldsFromTheCases(t *testing.T) {
	t.Parallel()
	r := roundTrip(t, withReuse(t))
	ran := 0
	for _, p := range r.Programs {
		for _, c := range p.Cases {
			ran += c.RunCount()
		}
	}
	ran -= r.Programs[0].Cases[0].RunCount()
	u := r.Reuse
	if u == nil || u.Reused != r.Programs[0].Cases[0].RunCount() || u.Ran != ran ||
		!slices.Equal(u.NotReused, []report.ReasonCount{{Reason: "changed: program", Cases: 1}}) || len(u.Sources) != 1 {
		t.Errorf("reuse block %+v, want 1 reused, %d ran, one changed program, one source", u, ran)
	}
	if !r.Programs[0].Cases[0].Reused() || r.Programs[0].Cases[1].Reused() {
		t.Errorf("reused marks lost on the way through Encode and Read")
	}
}

func TestReadRefusesForgedReuse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, want string
		edit       func(r *report.Report)
	}{
		{"marks without a block", "without a reuse block", func(r *report.Report) { r.Reuse = nil }},
		{"counts edited", "reuse counts", func(r *report.Report) { r.Reuse.Reused++ }},
		{"reason with markup", "is not a reason", func(r *report.Report) { r.Programs[0].Cases[1].NotReused.Reason = "<b>changed</b>" }},
		{"both marks", "both reused_from and not_reused", func(r *report.Report) {
			r.Programs[0].Cases[0].NotReused = &report.NotReused{Reason: "undetermined"}
		}},
		{"a bad execution ID", "must be IDs", func(r *report.Report) { r.Programs[0].Cases[0].ReusedFrom.ExecutionID = "a b" }},
		{"a bad source", "commit IDs", func(r *report.Report) { r.Reuse.Sources[0].GitHub.SHA = "main" }},
		{"too many sources", "more than 32 entries", func(r *report.Report) {
			for range report.MaxReuseSources {
				r.Reuse.Sources = append(r.Reuse.Sources, r.Reuse.Sources[0])
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := withReuse(t)
			r.Programs = slices.Clone(r.Programs)
			r.Programs[0].Cases = slices.Clone(r.Programs[0].Cases)
			o := *r.Programs[0].Cases[0].ReusedFrom
			r.Programs[0].Cases[0].ReusedFrom = &o
			n := *r.Programs[0].Cases[1].NotReused
			r.Programs[0].Cases[1].NotReused = &n
			u := *r.Reuse
			u.Sources = slices.Clone(u.Sources)
			r.Reuse = &u
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
