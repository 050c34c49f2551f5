package yamledit

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImports keeps yamledit a leaf: yaml.v3 and the standard library,
// nothing of behaves, no environment.
func TestImports(t *testing.T) {
	t.Parallel()
	importrule.Check(t, "yamledit", importrule.Rule{
		Direct:    []string{"gopkg.in/yaml.v3"},
		Forbidden: importrule.Outside,
	})
	importrule.NoProcessState(t, "yamledit")
}
