package report_test

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/spec"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// TestEmptyShard: a shard the slicing gave no program is true (the merge
// judges the whole); a run with no programs is still undetermined.
func TestEmptyShard(t *testing.T) {
	t.Parallel()
	in := assemble.Input{Spec: &spec.Spec{Path: "behaves.yml"}, RunID: "r",
		Shard: &report.Shard{Index: 2, Count: 2, SpecDigest: reporttest.ShardDigest, Programs: []report.ShardProgram{{ID: "a", Cases: 1, Shard: 1}}}}
	if r := reporttest.RoundTrip(t, assemble.Report(in)); r.Verdict != verdict.True {
		t.Errorf("empty shard: %s, want true", r.Verdict)
	}
	in.Shard = nil
	if r := assemble.Report(in); r.Verdict != verdict.Undetermined {
		t.Errorf("no programs: %s, want undetermined", r.Verdict)
	}
}
