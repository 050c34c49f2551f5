package reportschema_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportschema"
	"github.com/behaves-dev/behaves/internal/reportschema/schematest"
	"github.com/behaves-dev/behaves/internal/reporttest"
)

var update = flag.Bool("update", false, "rewrite docs/behaves.report.schema.json")

// TestPublishedFile: docs/behaves.report.schema.json is the published
// schema this behaves generates.
func TestPublishedFile(t *testing.T) {
	t.Parallel()
	got, err := reportschema.Published()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "docs", "behaves.report.schema.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not the schema this behaves generates: run go test ./internal/reportschema -update", path)
	}
}

// TestReportsValidate: reports the real code writes (Encode, and the
// spooling Writer) validate against the strict schema; one with a member
// the schema does not describe, or without one it names, does not; and
// the published schema accepts the added member.
func TestReportsValidate(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := report.Encode(&buf, reporttest.Report()); err != nil {
		t.Fatal(err)
	}
	schematest.Check(t, "an encoded report", buf.Bytes())
	var zero bytes.Buffer
	if err := report.Encode(&zero, report.Report{}); err != nil {
		t.Fatal(err)
	}
	schematest.Check(t, "the report of a run that ran nothing", zero.Bytes())
	golden, err := filepath.Glob(filepath.Join("..", "assemble", "testdata", "*.golden.json"))
	if err != nil || len(golden) == 0 {
		t.Fatalf("no golden reports: %v", err)
	}
	for _, path := range golden {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		schematest.Check(t, path, data)
	}

	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	m["programs"].([]any)[0].(map[string]any)["surprise"] = 1
	added, _ := json.Marshal(m)
	if schematest.Validate(added) == nil {
		t.Error("the strict schema accepts a member it does not describe")
	}
	if err := validatePublished(added); err != nil {
		t.Errorf("the published schema refuses a member it does not describe (v1 grows by additions): %v", err)
	}
	delete(m["programs"].([]any)[0].(map[string]any), "surprise")
	delete(m["programs"].([]any)[0].(map[string]any)["settings"].(map[string]any), "applied")
	missing, _ := json.Marshal(m)
	if schematest.Validate(missing) == nil {
		t.Error("the strict schema accepts a report without a member it names")
	}
	if err := validatePublished(missing); err != nil {
		t.Errorf("the published schema refuses a report without a member (an earlier behaves's): %v", err)
	}
}

// validatePublished validates data against the published schema.
func validatePublished(data []byte) error {
	sch, err := reportschema.Published()
	if err != nil {
		return err
	}
	compiled, err := schematest.Compile(sch, reportschema.ID)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return compiled.Validate(v)
}
