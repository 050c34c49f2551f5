package reporttest

import (
	"bytes"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
)

// ShardDigest is the spec digest of ShardReport's shards.
var ShardDigest = "sha256:" + Hex64('d')

// ShardTable puts Input's four programs on shards by on (1-based).
func ShardTable(in assemble.Input, on []int) []report.ShardProgram {
	t := make([]report.ShardProgram, len(in.Spec.Programs))
	for i, p := range in.Spec.Programs {
		t[i] = report.ShardProgram{ID: p.ID, Name: p.Name, Group: p.Group, File: p.File, Profile: p.Profile,
			Line: p.Pos.Line, Col: p.Pos.Col, Cases: len(p.Cases), Shard: on[i]}
	}
	return t
}

// ShardReport is the report of shard i of Input split as on: the
// fixture's input restricted to the shard's programs, round-tripped
// through Encode and Read as merge reads it.
func ShardReport(t testing.TB, i, count int, on []int, digest string) report.Report {
	t.Helper()
	full := Input()
	in := full
	sp := *full.Spec
	sp.Programs = nil
	in.Programs = nil
	for k, p := range full.Spec.Programs {
		if on[k] != i {
			continue
		}
		sp.Programs = append(sp.Programs, p)
		in.Programs = append(in.Programs, full.Programs[k])
	}
	in.Spec = &sp
	in.RunID = "shard-" + string(rune('0'+i))
	in.StartedAt = StartedAt.Add(time.Duration(i) * time.Second)
	in.Shard = &report.Shard{Index: i, Count: count, SpecDigest: digest, Programs: ShardTable(full, on)}
	return RoundTrip(t, assemble.Report(in))
}

// RoundTrip is r encoded (Encoded: checked against the strict report
// schema) and read back with reportread.Read, as a stored report is read.
func RoundTrip(t testing.TB, r report.Report) report.Report {
	t.Helper()
	got, err := reportread.Read(bytes.NewReader(Encoded(t, r)), 1<<30)
	if err != nil {
		t.Fatalf("Read refuses the report: %v", err)
	}
	return got
}
