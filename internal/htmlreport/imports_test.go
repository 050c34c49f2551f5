package htmlreport

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/behaves-dev/behaves/"

// TestImports keeps the package a renderer of reports: the standard
// library and the report, verdict and runner packages, nothing of the
// spec (it renders a report alone) and nothing that reaches Docker, the
// network or GitHub, even indirectly.
func TestImports(t *testing.T) {
	t.Parallel()
	allowed := map[string]bool{module + "internal/linediff": true, module + "internal/report": true, module + "internal/verdict": true, module + "internal/runner": true}
	for _, imp := range goList(t, "{{join .Imports \"\\n\"}}") {
		if strings.Contains(imp, ".") && !allowed[imp] || imp == "net/http" || imp == "os/exec" {
			t.Errorf("htmlreport imports %s", imp)
		}
	}
	for _, dep := range goList(t, "{{join .Deps \"\\n\"}}") {
		switch {
		case dep == module+"internal/spec", dep == module+"internal/assemble",
			strings.HasPrefix(dep, module+"internal/runner/docker"),
			strings.HasPrefix(dep, module+"internal/cli"),
			strings.HasPrefix(dep, module+"internal/publish"),
			strings.HasPrefix(dep, "github.com/docker/"),
			strings.HasPrefix(dep, "github.com/google/go-github"),
			dep == "net/http", dep == "os/exec":
			t.Errorf("htmlreport depends on %s", dep)
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
