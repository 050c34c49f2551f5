package github

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImports keeps the package a leaf of behaves: go-github and the
// standard library only, so that publishing a report never pulls in the
// Docker client or the spec parser. Package report imports both spec and
// runner, which is why the provenance check takes strings instead of a
// report.GitHub.
func TestImports(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const self = "github.com/behaves-dev/behaves/internal/publish/github"
	var found bool
	for _, dep := range strings.Fields(string(out)) {
		switch {
		case dep == self:
			found = true
		case dep == "github.com/behaves-dev/behaves/internal/ghlimits":
			// GitHub's limits, constants shared with the renderer.
		case strings.HasPrefix(dep, "github.com/behaves-dev/behaves/"):
			t.Errorf("imports %s: this package imports nothing of behaves but ghlimits", dep)
		case strings.HasPrefix(dep, "github.com/docker/"):
			t.Errorf("imports %s: no Docker here", dep)
		case strings.HasPrefix(dep, "gopkg.in/yaml"):
			t.Errorf("imports %s: no spec parsing here", dep)
		}
	}
	if !found {
		t.Fatalf("go list -deps did not list %s:\n%s", self, out)
	}
}
