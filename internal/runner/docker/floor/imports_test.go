package floor

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImportedOnlyByTheBench: a floor weakens the sandbox, so nothing
// but the benchmark's scenarios and the sandbox itself may reach one.
func TestImportedOnlyByTheBench(t *testing.T) {
	importrule.Check(t, "runner/docker/floor", importrule.Rule{Direct: []string{}})
	importrule.ImportedOnlyBy(t, "runner/docker/floor", []string{"internal/bench", "internal/runner/docker"})
}
