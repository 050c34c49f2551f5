package reportread_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/reportwrite"
)

// TestReadReferenceEvents: a report of an earlier behaves (no
// reference_events, no same_as) reads; reference events on a case that is
// not same_as, or a same_as with a stream that is not one, do not.
func TestReadReferenceEvents(t *testing.T) {
	t.Parallel()
	good := reporttest.SameAs(t, reportwrite.DefaultMaxReportSize)
	edit := func(f func(cases []any)) []byte {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		f(m["programs"].([]any)[0].(map[string]any)["cases"].([]any))
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	kases := func(cases []any) (diff, plain map[string]any) {
		return cases[0].(map[string]any), cases[1].(map[string]any)
	}
	// An earlier behaves wrote neither key on its cases, and had no same_as.
	old := edit(func(cases []any) {
		_, plain := kases(cases)
		delete(plain, "reference_events")
		delete(plain["expect"].(map[string]any), "same_as")
	})
	if _, err := reportread.Read(bytes.NewReader(old), 1<<20); err != nil {
		t.Errorf("a case without reference_events and same_as: %v", err)
	}
	for name, f := range map[string]func(cases []any){
		"reference events on a plain case": func(cases []any) {
			diff, plain := kases(cases)
			plain["reference_events"] = diff["reference_events"]
		},
		"a stream that is not one": func(cases []any) {
			diff, _ := kases(cases)
			diff["expect"].(map[string]any)["same_as"].(map[string]any)["streams"] = []any{"stdin"}
		},
		"a reference event with a negative size": func(cases []any) {
			diff, _ := kases(cases)
			diff["reference_events"].([]any)[1].(map[string]any)["stdout_bytes"] = -1
		},
	} {
		if _, err := reportread.Read(bytes.NewReader(edit(f)), 1<<20); err == nil {
			t.Errorf("%s: Read accepted it", name)
		}
	}
}
