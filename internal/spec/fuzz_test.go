package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
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

// FuzzJSONLine checks the JSON Lines reader against encoding/json: a line
// json.Valid accepts gives the value json.Unmarshal reads (duplicate keys
// aside: the last one wins there, and the loader refuses them), unless it
// nests too deeply; a line it refuses gives an error with a column on the
// line.
func FuzzJSONLine(f *testing.F) {
	for _, s := range []string{
		`{"name": "a", "args": ["1", "2"], "expect": {"exit_code": 0, "stdout": {"equals": "3"}}}`,
		`{"name": "\ud83d\ude00 \u00e9", "stdin": "a\u0000b\n"}`,
		`[1, 2.5, -0, 1e3, true, false, null, {}, []]`,
		`{"a": 1,}`, `{"a" 1}`, `{} {}`, `"x"`, ` `, `{"a": tru}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := jsonLine(data, 1)
		if err != nil {
			var je *jsonError
			if !errors.As(err, &je) || je.col < 1 || je.col > utf8.RuneCount(data)+1 {
				t.Fatalf("error %v without a column on the line", err)
			}
			if json.Valid(data) && !strings.Contains(je.msg, "nested more than") {
				t.Fatalf("valid JSON %q refused: %v", data, err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("invalid JSON %q accepted", data)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if got := nodeValue(t, n); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: read %#v, encoding/json reads %#v", data, got, want)
		}
	})
}

// nodeValue turns a node from jsonLine back into what encoding/json
// decodes (with UseNumber), the last of duplicate keys winning.
func nodeValue(t *testing.T, n *yaml.Node) any {
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = nodeValue(t, n.Content[i+1])
		}
		return m
	case yaml.SequenceNode:
		s := []any{}
		for _, c := range n.Content {
			s = append(s, nodeValue(t, c))
		}
		return s
	}
	switch n.Tag {
	case "!!str":
		return n.Value
	case "!!int", "!!float":
		return json.Number(n.Value)
	case "!!bool":
		return n.Value == "true"
	case "!!null":
		return nil
	}
	t.Fatalf("node with tag %q", n.Tag)
	return nil
}
