package reportread_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reportschema/schematest"
	"github.com/behaves-dev/behaves/internal/reporttest"
)

// TestReadChecksShard: a shard block that does not agree with the report's
// programs is refused.
func TestReadChecksShard(t *testing.T) {
	t.Parallel()
	good := reporttest.ShardReport(t, 2, 3, []int{2, 1, 3, 1}, reporttest.ShardDigest)
	var buf bytes.Buffer
	if err := report.Encode(&buf, good); err != nil {
		t.Fatal(err)
	}
	schematest.Check(t, "the shard's report", buf.Bytes())
	base := buf.Bytes()
	edit := func(f func(s map[string]any)) error {
		var m map[string]any
		if err := json.Unmarshal(base, &m); err != nil {
			t.Fatal(err)
		}
		f(m["shard"].(map[string]any))
		b, _ := json.Marshal(m)
		_, err := reportread.Read(bytes.NewReader(b), 1<<30)
		return err
	}
	table := func(s map[string]any) []any { return s["programs"].([]any) }
	tests := map[string]func(s map[string]any){
		"index above count":   func(s map[string]any) { s["index"] = 4.0 },
		"count zero":          func(s map[string]any) { s["count"] = 0.0 },
		"digest":              func(s map[string]any) { s["spec_digest"] = "md5:x" },
		"program elsewhere":   func(s map[string]any) { table(s)[0].(map[string]any)["shard"] = 1.0 },
		"program not in it":   func(s map[string]any) { s["programs"] = table(s)[1:] },
		"shard program lost":  func(s map[string]any) { table(s)[1].(map[string]any)["shard"] = 2.0 },
		"shard out of range":  func(s map[string]any) { table(s)[1].(map[string]any)["shard"] = 9.0 },
		"shard lists missing": func(s map[string]any) { s["missing"] = []any{1.0} },
	}
	for name, f := range tests {
		if err := edit(f); err == nil || !strings.Contains(err.Error(), "shard") {
			t.Errorf("%s: Read err = %v, want a shard refusal", name, err)
		}
	}
	if err := edit(func(map[string]any) {}); err != nil {
		t.Errorf("the unedited shard report: %v", err)
	}
}
