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

// A report with a build stage reads back with it; one written before
// build stages (no build, no build_failure) still reads; a build with an
// unknown resource limit is refused.
func TestReadBuild(t *testing.T) {
	t.Parallel()
	r := reporttest.FailedBuild()
	var buf bytes.Buffer
	if err := report.Encode(&buf, r); err != nil {
		t.Fatal(err)
	}
	schematest.Check(t, "the encoded report", buf.Bytes())
	back, err := reportread.Read(bytes.NewReader(buf.Bytes()), 1<<20)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	b := back.Programs[0].Build
	if b == nil || b.Stderr != "main.c:1: error: x\n" || b.ExitCode == nil || *b.ExitCode != 1 || b.OutputSize != 64<<20 || b.Tmpfs["/tmp"] != 64<<20 {
		t.Errorf("build read back as %+v", b)
	}
	if got := back.Programs[0].Cases[0].Event.BuildFailure; !strings.HasPrefix(got, "build failed: exit 1") {
		t.Errorf("build_failure read back as %q", got)
	}

	// An earlier behaves wrote neither key.
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	p := m["programs"].([]any)[0].(map[string]any)
	delete(p, "build")
	delete(p["cases"].([]any)[0].(map[string]any)["event"].(map[string]any), "build_failure")
	old, _ := json.Marshal(m)
	if _, err := reportread.Read(bytes.NewReader(old), 1<<20); err != nil {
		t.Errorf("a report without build keys: %v", err)
	}

	p = m["programs"].([]any)[0].(map[string]any)
	p["build"] = map[string]any{"resource_limit": "disk", "command": []any{}}
	bad, _ := json.Marshal(m)
	if _, err := reportread.Read(bytes.NewReader(bad), 1<<20); err == nil || !strings.Contains(err.Error(), "resource_limit") {
		t.Errorf("a build with resource_limit disk: %v, want refused", err)
	}
}
