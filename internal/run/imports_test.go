package run

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImports keeps a run a library call: it drives a sandbox through
// runner's interface (the command line wires Docker in), publishes
// nothing, never reaches the command line, and reads no environment of
// its own, nor registry credentials (authn's keychain, internal/pin).
func TestImports(t *testing.T) {
	t.Parallel()
	importrule.Check(t, "run", importrule.Rule{
		Forbidden: []string{"internal/cli", "internal/runner/docker", "internal/ghpublish", "internal/publish",
			"github.com/docker", "github.com/google/go-containerregistry/pkg/authn", "internal/pin", "github.com/google/go-github", "net/http", "os/exec"},
	})
	importrule.NoProcessState(t, "run")
}
