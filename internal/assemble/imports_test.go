package assemble

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImports keeps the package between the spec and the report: it
// reads the spec, the evidence and the verdicts and writes the report,
// and reaches nothing that runs programs, renders a report or talks to
// Docker, the network or GitHub, even indirectly.
func TestImports(t *testing.T) {
	t.Parallel()
	importrule.Check(t, "assemble", importrule.Rule{
		Direct:    nil,
		Forbidden: append([]string{"internal/engine", "internal/cli", "internal/runner/docker", "internal/terminal", "internal/publish", "internal/junit", "internal/htmlreport"}, importrule.Outside...),
	})
}
