package htmlreport

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/behaves-dev/behaves/"

// TestImports keeps the package a renderer of reports: the standard
// library and the report, verdict and runner packages, nothing that
// reaches Docker, the network or GitHub.
func TestImports(t *testing.T) {
	t.Parallel()
	allowed := map[string]bool{module + "internal/linediff": true, module + "internal/report": true, module + "internal/verdict": true, module + "internal/runner": true}
	out, err := exec.Command("go", "list", "-f", "{{join .Imports \"\\n\"}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, imp := range strings.Fields(string(out)) {
		if strings.Contains(imp, ".") && !allowed[imp] || imp == "net/http" || imp == "os/exec" {
			t.Errorf("htmlreport imports %s", imp)
		}
	}
}
