package reportread

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImports keeps the reader beside the report, downstream of it: it
// reads a report alone, with the report's types and fold, the verdicts and
// the evidence types, and knows nothing of the spec, of what runs or
// writes reports, or of the renderers, even indirectly.
func TestImports(t *testing.T) {
	t.Parallel()
	importrule.Check(t, "reportread", importrule.Rule{
		Direct:    []string{"internal/escape", "internal/filekind", "internal/report", "internal/runner", "internal/verdict"},
		Forbidden: append([]string{"internal/spec", "internal/assemble", "internal/engine", "internal/rescore", "internal/reuse", "internal/cli", "internal/runner/docker", "internal/terminal", "internal/publish", "internal/junit", "internal/htmlreport", "internal/reportwrite", "internal/reportmerge"}, importrule.Outside...),
	})
}
