package reporttest

import (
	"os"
	"testing"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reportschema/schematest"
)

// What a test writes of a report is checked against the strict copy of
// the report's schema (schematest) where it is written: Encoded, Commit,
// Written and ReadFile, which the tests that write reports go through.

// Committer is a Writer of a run's report (reportwrite.Writer, or
// assemble.Writer that wraps it).
type Committer interface {
	Commit(report.Report) (report.Report, error)
	Path() string
}

// Commit commits r through w, as a run does, and fails t when the report
// it wrote does not validate against the strict report schema.
func Commit(t testing.TB, w Committer, r report.Report) (report.Report, error) {
	t.Helper()
	out, err := w.Commit(r)
	if err == nil {
		Written(t, w.Path())
	}
	return out, err
}

// Written is the report a test wrote at path, read back and checked
// against the strict report schema.
func Written(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	schematest.Check(t, path, b)
	return b
}

// ReadFile is reportread.File of a report that a test's run wrote at
// path, checked first against the strict report schema.
func ReadFile(t testing.TB, path string, limit int64) (report.Report, error) {
	t.Helper()
	if b, err := os.ReadFile(path); err == nil {
		schematest.Check(t, path, b)
	}
	return reportread.File(path, limit)
}
