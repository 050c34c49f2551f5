package cli

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestBackendImports keeps the command line backend-neutral: it drives a
// sandbox backend through runner's types (Sandbox, Sweeper, ImagePuller),
// and docker.go is the one file that imports the Docker backend, to wire
// it. A second backend is then a package beside runner/docker and one such
// file.
func TestBackendImports(t *testing.T) {
	t.Parallel()
	const docker = "github.com/behaves-dev/behaves/internal/runner/docker"
	wiring := importersOf(t, func(path string) bool { return path == docker || strings.HasPrefix(path, docker+"/") })
	if len(wiring) != 1 || wiring[0] != "docker.go" {
		t.Errorf("files importing %s: %v, want only docker.go", docker, wiring)
	}
}

// TestKubeImports: kube.go is the one file of the command line that
// imports the Kubernetes backend, to wire it, as docker.go does Docker.
func TestKubeImports(t *testing.T) {
	t.Parallel()
	const kube = "github.com/behaves-dev/behaves/internal/runner/kube"
	wiring := importersOf(t, func(path string) bool { return path == kube || strings.HasPrefix(path, kube+"/") })
	if len(wiring) != 1 || wiring[0] != "kube.go" {
		t.Errorf("files importing %s: %v, want only kube.go", kube, wiring)
	}
}

// TestCredentialFiles keeps registry credentials out of run, publish and
// the action: internal/pin is the one package that reads them (the Docker
// config and its credential helpers), and pin.go and init.go, the
// commands that resolve tags, are the only files of the command line that
// import it.
func TestCredentialFiles(t *testing.T) {
	t.Parallel()
	const pin = "github.com/behaves-dev/behaves/internal/pin"
	importers := importersOf(t, func(path string) bool { return path == pin })
	if strings.Join(importers, " ") != "init.go pin.go" {
		t.Errorf("files importing %s: %v, want only init.go and pin.go", pin, importers)
	}
}

// importersOf lists the command line's own files (not its tests) that
// import a path imported says yes to, each once, in name order.
func importersOf(t *testing.T, imported func(path string) bool) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); imported(path) {
				out = append(out, name)
				break
			}
		}
	}
	return out
}
