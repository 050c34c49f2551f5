package junit

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImports keeps the package a renderer of reports: the standard library
// and the report and verdict packages, nothing of the spec (it converts a
// report alone, made elsewhere too) and nothing that reaches Docker, the
// network or GitHub, even indirectly.
func TestImports(t *testing.T) {
	t.Parallel()
	importrule.Check(t, "junit", importrule.Rule{
		Direct:    []string{"internal/escape", "internal/report", "internal/verdict"},
		Forbidden: append([]string{"internal/spec", "internal/assemble", "internal/runner/docker", "internal/cli", "internal/publish"}, importrule.Outside...),
	})
}
