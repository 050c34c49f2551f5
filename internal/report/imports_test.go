package report

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImports keeps the package a leaf of the data flow: it knows the
// evidence (runner's types) and the verdicts, and nothing of the spec or
// of what runs, assembles, writes, reads, merges, renders or publishes a
// report, even indirectly, so that the renderers and readers that take a
// report alone stay apart from the spec too. Package assemble turns the
// spec into report entries; reportwrite, reportread and reportmerge import
// this package, never the reverse.
func TestImports(t *testing.T) {
	t.Parallel()
	importrule.Check(t, "report", importrule.Rule{
		Direct:    []string{"internal/runner", "internal/verdict"},
		Forbidden: append([]string{"internal/spec", "internal/assemble", "internal/engine", "internal/rescore", "internal/cli", "internal/runner/docker", "internal/reportread", "internal/reportwrite", "internal/reportmerge", "internal/terminal", "internal/publish", "internal/junit", "internal/htmlreport"}, importrule.Outside...),
	})
}
