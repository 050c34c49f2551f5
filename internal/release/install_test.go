package release

import (
	"archive/zip"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testVersion is the version the module is published under in the test's
// proxy.
const testVersion = "v0.0.0-installtest"

// TestGoInstallFromCleanCache: the README's install line works. The
// module is published, as a module proxy serves it, into a file proxy
// that also serves every dependency from this machine's module cache
// (no network: GOPROXY names only the two folders); `go install github.com/behaves-dev/behaves@VERSION` then
// runs with an empty module cache and builds a behaves that prints its
// version.
func TestGoInstallFromCleanCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds behaves from a module proxy: not under -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root := filepath.Join("..", "..")
	modcache := goEnvValue(t, goBin, "GOMODCACHE")
	proxy := t.TempDir()
	// The module itself; the dependencies come from the module cache's
	// download folder, which has a proxy's layout.
	at := filepath.Join(proxy, "github.com", "behaves-dev", "behaves", "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(at, "list"), testVersion+"\n")
	write(t, filepath.Join(at, testVersion+".info"), `{"Version":"`+testVersion+`","Time":"2026-01-01T00:00:00Z"}`)
	write(t, filepath.Join(at, testVersion+".mod"), string(mod))
	moduleZip(t, root, filepath.Join(at, testVersion+".zip"))

	gopath := t.TempDir()
	cmd := exec.Command(goBin, "install", "github.com/behaves-dev/behaves@"+testVersion)
	cmd.Dir = t.TempDir() // outside any module
	cmd.Env = append(os.Environ(),
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(modcache, "cache", "download")),
		"GOSUMDB=off", "GOFLAGS=-mod=mod",
		"GOPATH="+gopath, "GOMODCACHE="+filepath.Join(gopath, "pkg", "mod"), "GOBIN="+filepath.Join(gopath, "bin"),
		"GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install from a clean module cache: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(gopath, "bin", "behaves"), "version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "behaves") {
		t.Errorf("the installed behaves: %v\n%s", err, out)
	}
	// The test's module cache is read-only, as go makes every module
	// cache: make it removable for the temporary folder's cleanup. (Not
	// go clean -modcache, which, without the test's environment, would
	// empty this machine's own cache.)
	_ = filepath.WalkDir(gopath, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
}

func goEnvValue(t *testing.T, goBin, name string) string {
	t.Helper()
	out, err := exec.Command(goBin, "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// moduleZip writes the module at root as a proxy serves it: every
// regular file under the module's prefix, leaving out .git, other
// modules (a folder with its own go.mod, such as an example's) and what
// a module zip never holds.
func moduleZip(t *testing.T, root, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	prefix := "github.com/behaves-dev/behaves@" + testVersion + "/"
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel != "." && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if rel != "." {
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		w, err := zw.Create(prefix + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(w, src)
		return err
	})
	if err != nil {
		t.Fatalf("zipping the module: %v", err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}
