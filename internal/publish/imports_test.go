package publish

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImports keeps the package a pure renderer of reports: it imports the
// standard library and the report, verdict and runner (evidence types)
// packages (and GitHub's limits and the line diff), and nothing of the
// spec (it renders a report alone, which may come from another run) nor
// anything that reaches Docker, the network or GitHub, even indirectly.
func TestImports(t *testing.T) {
	t.Parallel()
	// The spec and Docker are forbidden anywhere below it; runner is
	// reachable through report and verdict (the evidence types), but Direct
	// leaves it out, so the renderer never imports it itself. It takes a
	// report already read: reading, writing and merging reports are not its.
	importrule.Check(t, "publish", importrule.Rule{
		Direct:    []string{"internal/escape", "internal/ghlimits", "internal/linediff", "internal/report", "internal/verdict"},
		Forbidden: append([]string{"internal/spec", "internal/assemble", "internal/runner/docker", "internal/reportread", "internal/reportwrite", "internal/reportmerge", "internal/cli"}, importrule.Outside...),
	})
}
