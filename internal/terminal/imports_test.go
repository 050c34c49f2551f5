package terminal

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImports keeps the package a renderer of reports: the standard library
// and the report and verdict packages, nothing of the spec (it renders a
// report alone: run's, rescore's and merge's alike) and nothing that
// reaches Docker, the network or GitHub, even indirectly.
func TestImports(t *testing.T) {
	t.Parallel()
	// The spec and Docker are forbidden anywhere below it; runner is
	// reachable through report and verdict (the evidence types), but Direct
	// leaves it out, so the renderer never imports it itself. It takes a
	// report already read: reading, writing and merging reports are not its.
	importrule.Check(t, "terminal", importrule.Rule{
		Direct:    []string{"internal/escape", "internal/report", "internal/verdict"},
		Forbidden: append([]string{"internal/spec", "internal/assemble", "internal/runner/docker", "internal/reportread", "internal/reportwrite", "internal/reportmerge", "internal/cli", "internal/publish"}, importrule.Outside...),
	})
}
