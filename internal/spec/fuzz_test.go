package spec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary bytes to Load as a spec inside a repository that
// holds the test files. Load must not panic, must return either a spec or
// Errors, and every error must carry a line. A spec Load accepts must pass
// the JSON Schema too (an editor must never mark a valid spec wrong).
func FuzzLoad(f *testing.F) {
	for _, dir := range []string{"ok", "err"} {
		specs, _ := filepath.Glob(filepath.Join("testdata", "spec", dir, "*.yaml"))
		for _, p := range specs {
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte(""))
	f.Add([]byte("version: 1\nprofiles: {a: {image: x, command: [y]}}\nprograms: [{name: n, files: '../files/*/*', profile: a, cases: [{name: c}]}]\n"))
	repo := copyTree(f)
	dir := filepath.Join(repo, "ok")
	opt := Options{Ceilings: Ceilings{MaxCases: 200}, MaxFileSize: 1 << 20}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := os.CreateTemp(dir, "fuzz-*.yaml")
		if err != nil {
			t.Fatal(err)
		}
		path := file.Name()
		defer os.Remove(path)
		if _, err := file.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := file.Close(); err != nil {
			t.Fatal(err)
		}
		s, err := Load(path, opt)
		if err == nil {
			if s == nil || len(s.Programs) == 0 {
				t.Fatalf("Load returned no error and no programs: %+v", s)
			}
			for _, p := range s.Programs {
				if _, ok := p.Program.Files[p.Program.Entry]; !ok || len(p.Cases) == 0 || len(p.Program.Files) != 1 {
					t.Fatalf("invalid program accepted: %+v", p)
				}
			}
			if err := validateYAML(t, data); err != nil {
				t.Fatalf("Load accepts the spec, the schema refuses it: %v", err)
			}
			return
		}
		if s != nil {
			t.Fatalf("Load returned a spec and an error")
		}
		var errs Errors
		if !errors.As(err, &errs) || len(errs) == 0 {
			t.Fatalf("Load returned %T %v, want non-empty Errors", err, err)
		}
		for _, e := range errs {
			if e.Pos.Line <= 0 {
				t.Fatalf("error without a line: %+v", e)
			}
			// A problem inside a cases file is placed in that file, one
			// of the test tree's.
			if e.Pos.File != path && !strings.HasPrefix(e.Pos.File, filepath.Join(repo, "files")+string(filepath.Separator)) {
				t.Fatalf("error in file %q, want %q or a cases file", e.Pos.File, path)
			}
		}
	})
}
