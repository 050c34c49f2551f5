// Package importrule checks, from a package's tests, what the package may
// import and depend on, so that a package's place in the data flow (a
// renderer takes a report alone, the report knows no spec) is kept by a
// test rather than by a comment.
package importrule

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Module is behaves' module path; Rule's paths that start with "internal/"
// are taken relative to it.
const Module = "github.com/behaves-dev/behaves"

// Outside is what no package but the ones that run programs or publish may
// reach: Docker, GitHub, the network and other processes.
var Outside = []string{"github.com/docker", "github.com/google/go-github", "net/http", "os/exec"}

// Rule is what the package in the test's working directory may import.
type Rule struct {
	// Direct, when not nil, lists the packages of behaves and of other
	// modules the package may import itself, besides the standard library.
	Direct []string
	// Forbidden lists what the package must not depend on, even
	// indirectly: each a package with everything below it.
	Forbidden []string
}

// Check fails t for each import of the package that the rule refuses.
// name is the package's name in the messages.
func Check(t testing.TB, name string, r Rule) {
	t.Helper()
	if r.Direct != nil {
		for _, imp := range goList(t, "{{join .Imports \"\\n\"}}") {
			if isStd(imp) {
				continue
			}
			if !matchesAny(imp, r.Direct, false) {
				t.Errorf("%s imports %s; it may import only the standard library and %v", name, imp, r.Direct)
			}
		}
	}
	for _, dep := range goList(t, "{{join .Deps \"\\n\"}}") {
		if matchesAny(dep, r.Forbidden, true) {
			t.Errorf("%s depends on %s", name, dep)
		}
	}
}

// matchesAny says whether pkg is one of paths, or (below) inside one.
func matchesAny(pkg string, paths []string, below bool) bool {
	for _, p := range paths {
		if strings.HasPrefix(p, "internal/") {
			p = Module + "/" + p
		}
		if pkg == p || below && strings.HasPrefix(pkg, p+"/") {
			return true
		}
	}
	return false
}

// isStd says whether an import path is the standard library's: its first
// element has no dot.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

func goList(t testing.TB, format string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", format, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	return strings.Fields(string(out))
}

// ImportedOnlyBy fails t for each package of the module, besides allowed,
// that imports the package in the test's working directory, in its code
// or in its tests. name is the package's name in the messages.
func ImportedOnlyBy(t testing.TB, name string, allowed []string) {
	t.Helper()
	self := goList(t, "{{.ImportPath}}")
	if len(self) != 1 {
		t.Fatalf("go list: %v, want one package", self)
	}
	importedOnlyBy(t, self[0], name, allowed)
}

// PathImportedOnlyBy fails t for each package of the module, besides
// allowed, that imports path (a package of any module), in its code or in
// its tests: a dependency that only one place may use.
func PathImportedOnlyBy(t testing.TB, path string, allowed []string) {
	t.Helper()
	importedOnlyBy(t, path, path, allowed)
}

func importedOnlyBy(t testing.TB, self, name string, allowed []string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}} {{join .Imports \" \"}} {{join .TestImports \" \"}} {{join .XTestImports \" \"}}", Module+"/...").Output()
	if err != nil {
		t.Fatalf("go list %s/...: %v", Module, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] == self || strings.TrimSuffix(f[0], "_test") == self || matchesAny(f[0], allowed, false) {
			continue
		}
		for _, imp := range f[1:] {
			if imp == self {
				t.Errorf("%s imports %s; only %v may", f[0], name, allowed)
				break
			}
		}
	}
}

// processState are the os functions and variables that read the process's
// arguments and environment: only the command line (internal/cli, and
// main) reads them; a library is given what it needs.
var processState = map[string]bool{"Args": true, "Getenv": true, "LookupEnv": true, "Environ": true, "ExpandEnv": true}

// NoProcessState fails t for each use, in the non-test files of the
// package in the test's working directory, of os.Args or of os's
// environment readers (Getenv, LookupEnv, Environ, ExpandEnv). name is the
// package's name in the messages.
func NoProcessState(t testing.TB, name string) {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		osName := ""
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == "os" {
				osName = "os"
				if imp.Name != nil {
					osName = imp.Name.Name
				}
			}
		}
		if osName == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == osName && processState[sel.Sel.Name] {
				t.Errorf("%s: %s reads os.%s: only the command line reads the process's arguments and environment", fset.Position(sel.Pos()), name, sel.Sel.Name)
			}
			return true
		})
	}
}
