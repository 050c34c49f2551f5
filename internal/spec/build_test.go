package spec

import (
	"path/filepath"
	"strings"
	"testing"
)

// A build stage's cpus are checked against the engine's CPU count like
// the profile's, at the build's own position.
func TestCheckCPUsBuild(t *testing.T) {
	t.Parallel()
	dir := plainDir(t)
	write(t, filepath.Join(dir, "main.c"), "int main(){return 0;}\n")
	write(t, filepath.Join(dir, "behaves.yml"), `version: 1
profiles:
  c:
    image: sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
    command: [/build/main]
    build:
      command: [gcc, -o, /build/main]
      cpus: 4
programs:
  - {name: m, file: main.c, profile: c, cases: [{name: one}]}
`)
	s, err := Load(filepath.Join(dir, "behaves.yml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckCPUs(4); err != nil {
		t.Errorf("CheckCPUs(4): %v", err)
	}
	err = s.CheckCPUs(2)
	if err == nil || !strings.Contains(err.Error(), "behaves.yml:8:13: build cpus 4") {
		t.Errorf("CheckCPUs(2) = %v, want the build's cpus at 8:13", err)
	}
}
