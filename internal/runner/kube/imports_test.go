package kube

import (
	"testing"

	"github.com/behaves-dev/behaves/internal/importrule"
)

// TestImports keeps client-go's clientset (and its scheme of every API
// group) out of behaves: its registration at process start cost every
// behaves process, Docker runs included, about 20 MiB of resident memory
// (client.go). The backend reaches the API through client.go alone.
func TestImports(t *testing.T) {
	t.Parallel()
	importrule.Check(t, "runner/kube", importrule.Rule{
		Forbidden: []string{"k8s.io/client-go/kubernetes", "internal/runner/docker", "internal/cli", "github.com/docker"},
	})
}
