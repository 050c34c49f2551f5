package escape

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImports keeps the escaping a leaf: the standard library alone, so
// that every renderer and reader can build on it.
func TestImports(t *testing.T) {
	t.Parallel()
	importrule.Check(t, "escape", importrule.Rule{
		Direct:    []string{},
		Forbidden: importrule.Outside,
	})
}
