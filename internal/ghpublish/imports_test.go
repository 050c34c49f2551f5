package ghpublish

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImports keeps publishing a library of reports: it reads a report
// and the GitHub run it is given (Target), renders through the renderers
// and posts through publish/github; it never reaches the spec, the engine,
// Docker or the command line, and reads no environment of its own, nor
// registry credentials (authn's keychain, internal/pin).
func TestImports(t *testing.T) {
	t.Parallel()
	importrule.Check(t, "ghpublish", importrule.Rule{
		Direct: []string{"internal/escape", "internal/exitcode", "internal/htmlreport", "internal/junit", "internal/publish", "internal/publish/github",
			"internal/report", "internal/reportread", "internal/terminal", "internal/verdict"},
		Forbidden: []string{"internal/cli", "internal/spec", "internal/assemble", "internal/engine", "internal/runner/docker",
			"github.com/docker", "github.com/google/go-containerregistry/pkg/authn", "internal/pin", "os/exec"},
	})
	importrule.NoProcessState(t, "ghpublish")
}
