package reportmerge_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportmerge"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/verdict"
)

var split = []int{2, 1, 3, 1}

func shards(t *testing.T, idx ...int) []reportmerge.Input {
	t.Helper()
	var in []reportmerge.Input
	for _, i := range idx {
		in = append(in, reportmerge.Input{Path: "shard-" + string(rune('0'+i)) + ".json", Report: reporttest.ShardReport(t, i, 3, split, reporttest.ShardDigest)})
	}
	return in
}

// TestMergeEqualsUnsharded: three shards merge into the report the
// unsharded run builds: the same programs in spec order, counts, groups
// and verdict; and the merge reads back.
func TestMergeEqualsUnsharded(t *testing.T) {
	t.Parallel()
	want := reporttest.RoundTrip(t, reporttest.Report())
	got, err := reportmerge.Merge(shards(t, 3, 1, 2), reportmerge.Options{PassAt: []int{1, 2}, RunID: "merged", Version: "v0.1.0-test"})
	if err != nil {
		t.Fatal(err)
	}
	got = reporttest.RoundTrip(t, got)
	if !reflect.DeepEqual(got.Programs, want.Programs) {
		t.Errorf("merged programs differ from the unsharded run's")
	}
	if got.Counts != want.Counts || got.Verdict != want.Verdict {
		t.Errorf("merged counts %+v verdict %s, unsharded %+v %s", got.Counts, got.Verdict, want.Counts, want.Verdict)
	}
	if !reflect.DeepEqual(got.Groups, want.Groups) {
		t.Errorf("merged groups %+v, unsharded %+v", got.Groups, want.Groups)
	}
	s := got.Shard
	if s == nil || s.Index != 0 || s.Count != 3 || !reflect.DeepEqual(s.Merged, []int{1, 2, 3}) || len(s.Missing) != 0 {
		t.Errorf("merged shard block %+v", s)
	}
	if !got.StartedAt.Equal(reporttest.StartedAt.Add(time.Second)) {
		t.Errorf("started_at %v, want the earliest shard's", got.StartedAt)
	}
}

// TestMergePassAt: the merge computes pass@k for the k it is asked, not
// the shards'.
func TestMergePassAt(t *testing.T) {
	t.Parallel()
	got, err := reportmerge.Merge(shards(t, 1, 2, 3), reportmerge.Options{PassAt: []int{1, 5}, RunID: "merged"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Groups) != 1 {
		t.Fatalf("groups %+v", got.Groups)
	}
	g := got.Groups[0]
	if _, ok := g.PassAt["5"]; !ok || len(g.PassAt) != 2 || g.PassAtReasons["5"] == "" {
		t.Errorf("pass_at %v reasons %v, want k 1 and 5 (5 null, with a reason)", g.PassAt, g.PassAtReasons)
	}
}

func TestMergeRefuses(t *testing.T) {
	t.Parallel()
	other := reporttest.ShardReport(t, 2, 3, split, "sha256:"+reporttest.Hex64('e'))
	four := reporttest.ShardReport(t, 2, 4, []int{2, 1, 3, 4}, reporttest.ShardDigest)
	unsharded := reporttest.RoundTrip(t, reporttest.Report())
	moved := reporttest.ShardReport(t, 2, 3, []int{2, 2, 3, 1}, reporttest.ShardDigest) // another table
	tests := []struct {
		name string
		in   []reportmerge.Input
		want string
	}{
		{"no reports", nil, "no shard reports"},
		{"same shard twice", append(shards(t, 1, 2, 3), reportmerge.Input{Path: "again.json", Report: reporttest.ShardReport(t, 2, 3, split, reporttest.ShardDigest)}), "overlap: both are shard 2/3"},
		{"spec digest", append(shards(t, 1, 3), reportmerge.Input{Path: "other.json", Report: other}), "different specs"},
		{"count", append(shards(t, 1, 3), reportmerge.Input{Path: "four.json", Report: four}), "of 3 shards"},
		{"table", append(shards(t, 1, 3), reportmerge.Input{Path: "moved.json", Report: moved}), "different shard tables"},
		{"not a shard", append(shards(t, 1, 2), reportmerge.Input{Path: "whole.json", Report: unsharded}), "whole.json: it has no shard"},
		{"missing", shards(t, 1, 3), "shard 2/3 missing"},
	}
	for _, tt := range tests {
		_, err := reportmerge.Merge(tt.in, reportmerge.Options{RunID: "merged"})
		var me *reportmerge.Error
		if !errors.As(err, &me) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want a Error containing %q", tt.name, err, tt.want)
		}
	}
}

// TestMergeOverlappingPrograms: two reports of different shards that hold
// one program (a forged table) are refused.
func TestMergeOverlappingPrograms(t *testing.T) {
	t.Parallel()
	in := shards(t, 1, 2, 3)
	// Shard 3's report also claims program 2 (on shard 1): Read would
	// refuse it, so it is made here without Read.
	r := in[2].Report
	r.Programs = append(r.Programs, in[0].Report.Programs[0])
	in[2].Report = r
	_, err := reportmerge.Merge(in, reportmerge.Options{RunID: "merged"})
	if err == nil || !strings.Contains(err.Error(), "overlap: both hold program") {
		t.Fatalf("err = %v, want an overlap of programs", err)
	}
}

// TestMergeAllowMissing: the missing shard's programs are in the report,
// undetermined with no cases, and the run cannot be true even when every
// program that ran is.
func TestMergeAllowMissing(t *testing.T) {
	t.Parallel()
	// Shard 1 holds fizzbuzz (true) alone; shard 2 the rest, missing.
	on := []int{1, 2, 2, 2}
	in := []reportmerge.Input{{Path: "s1.json", Report: reporttest.ShardReport(t, 1, 2, on, reporttest.ShardDigest)}}
	if in[0].Report.Verdict != verdict.True {
		t.Fatalf("shard 1 is %s, want true", in[0].Report.Verdict)
	}
	got, err := reportmerge.Merge(in, reportmerge.Options{AllowMissing: true, RunID: "merged"})
	if err != nil {
		t.Fatal(err)
	}
	got = reporttest.RoundTrip(t, got)
	if got.Verdict != verdict.Undetermined {
		t.Errorf("verdict %s, want undetermined", got.Verdict)
	}
	if len(got.Programs) != 4 || got.Counts.Programs.Undetermined != 3 || got.Counts.Programs.True != 1 {
		t.Fatalf("programs %d, counts %+v", len(got.Programs), got.Counts)
	}
	p := got.Programs[1]
	if p.ID != "id-samples/wrong.py" || p.Reason != "shard 2/2 missing" || len(p.Cases) != 0 || p.Group != "samples" || p.Line != 30 {
		t.Errorf("missing program %+v", p)
	}
	// Nothing of another evidence format: a rescore of the merge leaves it
	// undetermined instead of refusing it as an earlier behaves' report.
	if p.EvidenceFormat != report.EvidenceFormat {
		t.Errorf("missing program's evidence_format %d, want %d", p.EvidenceFormat, report.EvidenceFormat)
	}
	if !reflect.DeepEqual(got.Shard.Missing, []int{2}) || !reflect.DeepEqual(got.Shard.Merged, []int{1}) {
		t.Errorf("shard block %+v", got.Shard)
	}
	if g := got.Groups[0]; g.N != 2 || g.Undetermined != 2 {
		t.Errorf("group %+v: the missing samples must count as undetermined", g)
	}
}

// TestMergeCountsNondeterministic: a merge of shards that hold a
// nondeterministic case counts it as the shard did, and reads back (Read
// recomputes the counts and refuses any other).
func TestMergeCountsNondeterministic(t *testing.T) {
	t.Parallel()
	rep := reporttest.RoundTrip(t, reporttest.RepeatReport())
	if rep.Counts.Cases.Nondeterministic == 0 {
		t.Fatal("the repeat fixture has no nondeterministic case")
	}
	table := make([]report.ShardProgram, len(rep.Programs))
	for i, p := range rep.Programs {
		table[i] = report.ShardProgram{ID: p.ID, Name: p.Name, Group: p.Group, File: p.File, Profile: p.Profile,
			Line: p.Line, Col: p.Col, Cases: len(p.Cases), Shard: 1}
	}
	rep.Shard = &report.Shard{Index: 1, Count: 1, SpecDigest: reporttest.ShardDigest, Programs: table}
	rep = reporttest.RoundTrip(t, rep)
	got, err := reportmerge.Merge([]reportmerge.Input{{Path: "shard-1.json", Report: rep}}, reportmerge.Options{RunID: "merged", Version: "v0.1.0-test"})
	if err != nil {
		t.Fatal(err)
	}
	if got = reporttest.RoundTrip(t, got); got.Counts != rep.Counts {
		t.Errorf("merged counts %+v, the shard's %+v", got.Counts, rep.Counts)
	}
}
