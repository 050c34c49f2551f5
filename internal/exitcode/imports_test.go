package exitcode

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImports keeps the exit-code policy a pure function of a verdict or a
// report: it imports report and verdict only, never the command line, the
// spec, nor anything that reaches Docker, GitHub or the network.
func TestImports(t *testing.T) {
	t.Parallel()
	importrule.Check(t, "exitcode", importrule.Rule{
		Direct:    []string{"internal/report", "internal/verdict"},
		Forbidden: append([]string{"internal/cli", "internal/spec", "internal/runner/docker"}, importrule.Outside...),
	})
}
