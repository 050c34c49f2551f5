package record

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImports keeps record a library of edits: it plans from a spec and a
// report already read and writes files, but runs nothing, reaches no
// sandbox, network or GitHub, never reaches the command line, and reads no
// environment (the command line decides whether recording is allowed).
func TestImports(t *testing.T) {
	t.Parallel()
	importrule.Check(t, "record", importrule.Rule{
		Direct: []string{"internal/spec", "internal/report", "internal/runner", "internal/verdict", "internal/escape",
			"internal/linediff", "internal/yamledit", "gopkg.in/yaml.v3"},
		Forbidden: append([]string{"internal/cli", "internal/run", "internal/engine", "internal/runner/docker", "internal/ghpublish", "internal/publish"},
			importrule.Outside...),
	})
	importrule.NoProcessState(t, "record")
}
