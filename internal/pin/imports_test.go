package pin

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImports keeps registry credentials in one place. pin is the one
// package of behaves that reads them (authn's keychain reads the Docker
// config and runs its credential helpers); only the command line imports
// pin (and, within it, only pin.go and init.go: see TestCredentialFiles in
// internal/cli), and nothing else of behaves imports the keychain but
// internal/release, the release tool that pushes the action's image and is
// not part of the behaves binary. pin itself never reaches the engine,
// the runner, the report or the command line, and reads no environment of
// its own.
func TestImports(t *testing.T) {
	t.Parallel()
	importrule.Check(t, "pin", importrule.Rule{
		Forbidden: []string{"internal/cli", "internal/run", "internal/engine", "internal/runner/docker", "internal/ghpublish",
			"internal/publish", "internal/report", "github.com/docker/docker"},
		// os/exec it does reach: the keychain runs the Docker config's
		// credential helpers (docker-credential-*), as docker pull does.
	})
	importrule.ImportedOnlyBy(t, "pin", []string{"internal/cli"})
	for _, keychain := range []string{
		"github.com/google/go-containerregistry/pkg/authn",
		"github.com/docker/cli/cli/config",
		"github.com/docker/docker-credential-helpers/client",
	} {
		importrule.PathImportedOnlyBy(t, keychain, []string{"internal/pin", "internal/release"})
	}
	importrule.NoProcessState(t, "pin")
}
