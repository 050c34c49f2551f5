package match

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImports keeps the matcher a pure question about stored evidence: the
// spec, the key and the report's types (and verdict's word on which streams
// a checker must have judged), nothing that runs a program,
// renders a report or holds a caller's policy.
func TestImports(t *testing.T) {
	t.Parallel()
	importrule.Check(t, "match", importrule.Rule{
		Direct:    []string{"internal/evidence", "internal/report", "internal/runner", "internal/spec", "internal/verdict"},
		Forbidden: append([]string{"internal/runner/docker", "internal/engine", "internal/reuse", "internal/rescore", "internal/cli", "internal/assemble"}, importrule.Outside...),
	})
}
