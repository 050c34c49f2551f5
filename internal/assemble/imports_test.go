package assemble

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/behaves-dev/behaves/"

// TestImports keeps the package between the spec and the report: it
// reads the spec, the evidence and the verdicts and writes the report,
// and reaches nothing that runs programs, renders a report or talks to
// Docker, the network or GitHub, even indirectly.
func TestImports(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-f", "{{join .Deps \"\\n\"}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch {
		case strings.HasPrefix(dep, module+"internal/engine"),
			strings.HasPrefix(dep, module+"internal/cli"),
			strings.HasPrefix(dep, module+"internal/runner/docker"),
			strings.HasPrefix(dep, module+"internal/terminal"),
			strings.HasPrefix(dep, module+"internal/publish"),
			strings.HasPrefix(dep, module+"internal/junit"),
			strings.HasPrefix(dep, module+"internal/htmlreport"),
			strings.HasPrefix(dep, "github.com/docker/"),
			strings.HasPrefix(dep, "github.com/google/go-github"),
			dep == "net/http", dep == "os/exec":
			t.Errorf("assemble depends on %s", dep)
		}
	}
}
