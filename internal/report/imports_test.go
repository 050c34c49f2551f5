package report

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/behaves-dev/behaves/"

// TestImports keeps the package a leaf of the data flow: it knows the
// evidence (runner's types) and the verdicts, and nothing of the spec or
// of what runs, assembles, renders or publishes a report, even indirectly,
// so that the renderers and readers that take a report alone stay apart
// from the spec too. Package assemble turns the spec into report entries.
func TestImports(t *testing.T) {
	t.Parallel()
	above := []string{"internal/spec", "internal/assemble", "internal/engine", "internal/rescore",
		"internal/cli", "internal/runner/docker", "internal/terminal", "internal/publish",
		"internal/junit", "internal/htmlreport"}
	out, err := exec.Command("go", "list", "-f", "{{join .Deps \"\\n\"}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, a := range above {
			if dep == module+a || strings.HasPrefix(dep, module+a+"/") {
				t.Errorf("report depends on %s", dep)
			}
		}
		switch {
		case strings.HasPrefix(dep, "github.com/docker/"),
			strings.HasPrefix(dep, "github.com/google/go-github"),
			dep == "net/http", dep == "os/exec":
			t.Errorf("report depends on %s", dep)
		}
	}
}
