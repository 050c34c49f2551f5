package reportmerge_test

import (
	"slices"
	"testing"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportmerge"
	"github.com/behaves-dev/behaves/internal/reporttest"
)

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
		*r = reporttest.RoundTrip(t, report.Folded(*r, []int{1, 2}))
	}
	got, err := reportmerge.Merge(in, reportmerge.Options{PassAt: []int{1, 2}, RunID: "merged"})
	if err != nil {
		t.Fatal(err)
	}
	got = reporttest.RoundTrip(t, got)
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
	plain, err := reportmerge.Merge(shards(t, 1, 2, 3), reportmerge.Options{RunID: "merged"})
	if err != nil || plain.Reuse != nil {
		t.Errorf("merge without reuse: %v, reuse %+v; want no reuse block", err, plain.Reuse)
	}
}
