package htmlreport

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImports keeps the package a renderer of reports: the standard
// library and the report, verdict and runner packages, nothing of the
// spec (it renders a report alone) and nothing that reaches Docker, the
// network or GitHub, even indirectly.
func TestImports(t *testing.T) {
	t.Parallel()
	importrule.Check(t, "htmlreport", importrule.Rule{
		Direct:    []string{"internal/escape", "internal/linediff", "internal/report", "internal/verdict"},
		Forbidden: append([]string{"internal/spec", "internal/assemble", "internal/runner/docker", "internal/cli", "internal/publish"}, importrule.Outside...),
	})
}
