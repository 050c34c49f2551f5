package publish

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/behaves-dev/behaves/"

// TestImports keeps the package a pure renderer of reports: it imports the
// standard library and the report, verdict and runner (evidence types)
// packages, and nothing of the spec (it renders a report alone, which may
// come from another run) nor anything that reaches Docker, the network or
// GitHub, even indirectly.
func TestImports(t *testing.T) {
	t.Parallel()
	direct := goList(t, "{{join .Imports \"\\n\"}}")
	allowed := map[string]bool{module + "internal/ghlimits": true, module + "internal/linediff": true, module + "internal/report": true, module + "internal/verdict": true, module + "internal/runner": true}
	for _, imp := range direct {
		if strings.Contains(imp, ".") && !allowed[imp] {
			t.Errorf("publish imports %s; it may import only the standard library and %v", imp, allowed)
		}
		if strings.HasPrefix(imp, module) && !allowed[imp] {
			t.Errorf("publish imports %s", imp)
		}
	}
	for _, dep := range goList(t, "{{join .Deps \"\\n\"}}") {
		switch {
		case dep == module+"internal/spec", dep == module+"internal/assemble",
			strings.HasPrefix(dep, module+"internal/runner/docker"),
			strings.HasPrefix(dep, module+"internal/cli"),
			strings.HasPrefix(dep, "github.com/docker/"),
			strings.HasPrefix(dep, "github.com/google/go-github"),
			dep == "net/http", dep == "os/exec":
			t.Errorf("publish depends on %s", dep)
		}
	}
}

func goList(t *testing.T, format string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", format, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	return strings.Fields(string(out))
}
