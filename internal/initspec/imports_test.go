package initspec

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImports keeps init offline and credential-free on its own: it reads
// the work tree and the git index, and asks a registry only through the
// Resolve function its caller gives (pin's, wired by the command line).
func TestImports(t *testing.T) {
	t.Parallel()
	importrule.Check(t, "initspec", importrule.Rule{
		Forbidden: append([]string{"internal/pin", "internal/cli", "internal/run", "internal/runner/docker",
			"github.com/google/go-containerregistry"}, importrule.Outside...),
	})
	importrule.NoProcessState(t, "initspec")
}
