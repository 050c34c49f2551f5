package verdict_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/verdict"
)

func TestCount(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n    int64
		want string
	}{{0, "0 bytes"}, {1, "1 byte"}, {2, "2 bytes"}, {-1, "-1 bytes"}} {
		if got := verdict.Count(tt.n, "byte", "bytes"); got != tt.want {
			t.Errorf("Count(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	if got := verdict.Plural(1, "program is", "programs are"); got != "program is" {
		t.Errorf("Plural(1) = %q", got)
	}
}

// parenPlural is a noun written for one and many at once: "case(s)".
var parenPlural = regexp.MustCompile(`[A-Za-z]\(s\)`)

// TestNoParenthesizedPlurals walks every Go file of the module that is not
// a test and refuses a string literal holding a noun like "case(s)": a
// count's noun comes from Count or Plural.
func TestNoParenthesizedPlurals(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && parenPlural.MatchString(lit.Value) {
				t.Errorf("%s: %s: write the noun with Count or Plural", fset.Position(lit.Pos()), lit.Value)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("walked %d Go files from %s: not the module", files, root)
	}
}
