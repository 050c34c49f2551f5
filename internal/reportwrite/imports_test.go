package reportwrite

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImports keeps the spooling writer beside the report, downstream of
// it: it writes the report's types with the report's fold, and knows
// nothing of the spec (package assemble makes the entries it spools), of
// reading or merging reports, or of the renderers, even indirectly.
func TestImports(t *testing.T) {
	t.Parallel()
	importrule.Check(t, "reportwrite", importrule.Rule{
		Direct:    []string{"internal/report", "internal/verdict"},
		Forbidden: append([]string{"internal/spec", "internal/assemble", "internal/engine", "internal/rescore", "internal/reuse", "internal/cli", "internal/runner/docker", "internal/terminal", "internal/publish", "internal/junit", "internal/htmlreport", "internal/reportread", "internal/reportmerge"}, importrule.Outside...),
	})
}
