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
	importrule.Check(t, "terminal", importrule.Rule{
		Direct:    []string{"internal/escape", "internal/report", "internal/verdict"},
		Forbidden: append([]string{"internal/spec", "internal/assemble", "internal/runner/docker", "internal/cli", "internal/publish"}, importrule.Outside...),
	})
}
