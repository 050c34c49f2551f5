package reportmerge

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImports keeps the merge beside the report, downstream of it: it
// combines reports already read (package reportread) with the report's
// fold, and knows nothing of the spec, of writing reports, or of the
// renderers, even indirectly.
func TestImports(t *testing.T) {
	t.Parallel()
	importrule.Check(t, "reportmerge", importrule.Rule{
		Direct:    []string{"internal/report", "internal/runner", "internal/verdict"},
		Forbidden: append([]string{"internal/spec", "internal/assemble", "internal/engine", "internal/rescore", "internal/reuse", "internal/cli", "internal/runner/docker", "internal/terminal", "internal/publish", "internal/junit", "internal/htmlreport", "internal/reportread", "internal/reportwrite"}, importrule.Outside...),
	})
}
