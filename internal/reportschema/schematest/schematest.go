// Package schematest validates reports against the strict copy of the
// report's JSON Schema (reportschema.Strict), for the tests of every
// package that writes reports: a member the schema does not describe, or
// one it names and the report lacks, fails the test that wrote it.
package schematest

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/behaves-dev/behaves/internal/reportschema"
)

// compiled is the strict schema, compiled once per test binary.
var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	data, err := reportschema.Strict()
	if err != nil {
		return nil, err
	}
	return Compile(data, reportschema.ID)
})

// Compile compiles a JSON Schema document (draft 2020-12) whose $id is
// id with santhosh-tekuri/jsonschema, offline: a $ref outside the
// document fails the compile instead of fetching anything. The spec's
// schema tests use it too.
func Compile(data []byte, id string) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	if err := c.AddResource(id, doc); err != nil {
		return nil, err
	}
	return c.Compile(id)
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("the schema refers to %s, outside itself", url)
}

// Validate checks a report's JSON against the strict schema.
func Validate(data []byte) error {
	sch, err := compiled()
	if err != nil {
		return fmt.Errorf("compiling the report schema: %w", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("the report is not JSON: %w", err)
	}
	return sch.Validate(v)
}

// Check fails tb when data, a report's JSON that what tb tests wrote,
// does not validate against the strict schema.
func Check(tb testing.TB, what string, data []byte) {
	tb.Helper()
	if err := Validate(data); err != nil {
		tb.Errorf("%s does not validate against the report schema (docs/behaves.report.schema.json, strict): %v", what, err)
	}
}
