package reportread_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/assemble"
	"github.com/behaves-dev/behaves/internal/reportread"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/runner"
)

// folderReport is reporttest's report with its first program made a
// folder program (files, an executable, a link, a with: file), as
// assemble writes it.
func folderReport(t *testing.T) []byte {
	in := reporttest.Input()
	p := in.Programs[0].Spec
	p.File = "tool"
	p.Program = runner.Program{
		Folder: true,
		Entry:  "main.py",
		Files: runner.FilesOf(map[string][]byte{
			"main.py":      []byte("from tool import parsing\n"),
			"parsing.py":   []byte("def parse(s): return s\n"),
			"run.sh":       []byte("#!/bin/sh\n"),
			"harness/h.py": []byte("import main\n"),
		}),
		Executable: map[string]bool{"run.sh": true},
		Links:      map[string]string{"latest.py": "main.py"},
	}
	p.With = map[string]string{"harness/h.py": "problems/harness/h.py"}
	in.Programs[0].Spec = p // its cases' records stay as they ran
	return reporttest.Encoded(t, assemble.Report(in))
}

// TestFilesList: a program's files list is what was delivered, each file
// with where it comes from, and program_sha256 is its digest.
func TestFilesList(t *testing.T) {
	r, err := reportread.Read(bytes.NewReader(folderReport(t)), 1<<20)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	p := r.Programs[0]
	var got []string
	for _, f := range p.Files {
		got = append(got, f.Mode+" "+f.Path+" <- "+f.Source+" "+f.Target)
	}
	want := []string{
		"100644 harness/h.py <- problems/harness/h.py ",
		"120000 latest.py <- tool/latest.py main.py",
		"100644 main.py <- tool/main.py ",
		"100644 parsing.py <- tool/parsing.py ",
		"100755 run.sh <- tool/run.sh ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("files\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if p.FileCount != 5 || p.FilesOmitted || p.Dir != "tool" {
		t.Errorf("file_count %d, files_omitted %v, dir %q", p.FileCount, p.FilesOmitted, p.Dir)
	}
	if p.Files[2].Bytes != int64(len("from tool import parsing\n")) {
		t.Errorf("main.py: %d bytes", p.Files[2].Bytes)
	}
}

// TestReadRefusesForgedFiles: a files list that disagrees with
// program_sha256, or that is not a list behaves writes, is refused
// naming the field.
func TestReadRefusesForgedFiles(t *testing.T) {
	t.Parallel()
	written := folderReport(t)
	files := func(m map[string]any) []any {
		return m["programs"].([]any)[0].(map[string]any)["files"].([]any)
	}
	file := func(m map[string]any, i int) map[string]any { return files(m)[i].(map[string]any) }
	prog := func(m map[string]any) map[string]any { return m["programs"].([]any)[0].(map[string]any) }
	other := reporttest.Hex64('a')
	tests := []forgery{
		{"a file's digest", func(m map[string]any) { file(m, 3)["sha256"] = other }, "the files list and program_sha256 disagree"},
		{"program_sha256", func(m map[string]any) { prog(m)["program_sha256"] = other }, "program 1: program_sha256"},
		{"a file dropped", func(m map[string]any) {
			p := prog(m)
			p["files"] = files(m)[1:]
			p["file_count"] = 4.0
		}, "disagree"},
		{"a file added", func(m map[string]any) {
			p := prog(m)
			p["files"] = append(files(m), map[string]any{"path": "zz.py", "source": "tool/zz.py", "mode": "100644", "bytes": 0.0, "sha256": other, "target": ""})
			p["file_count"] = 6.0
		}, "disagree"},
		{"a mode", func(m map[string]any) { file(m, 4)["mode"] = "100644" }, "disagree"},
		{"an unknown mode", func(m map[string]any) { file(m, 4)["mode"] = "040000" }, "files[4]: unknown mode"},
		{"a path", func(m map[string]any) { file(m, 2)["path"] = "../main.py" }, "files[2]: path"},
		{"a source", func(m map[string]any) { file(m, 2)["source"] = "/etc/passwd" }, "files[2]: path"},
		{"the order", func(m map[string]any) {
			f := files(m)
			f[2], f[3] = f[3], f[2]
		}, `files[3]: path "main.py" is not after "parsing.py"`},
		{"a link out", func(m map[string]any) { file(m, 1)["target"] = "../../etc/shadow" }, "files[1]: link"},
		{"a file with a target", func(m map[string]any) { file(m, 2)["target"] = "x" }, "files[2]: a file"},
		{"file_count", func(m map[string]any) { prog(m)["file_count"] = 7.0 }, "file_count 7, but files lists 5"},
		{"omitted, yet listed", func(m map[string]any) { prog(m)["files_omitted"] = true }, "files_omitted with 5 files listed"},
		{"a short digest", func(m map[string]any) { file(m, 0)["sha256"] = "abc" }, "files[0]: sha256"},
	}
	refusesForgeries(t, written, tests)
	// An omitted list with its count stands: the digest is still checked
	// by reuse and rescore against the spec's files.
	var m map[string]any
	if err := json.Unmarshal(written, &m); err != nil {
		t.Fatal(err)
	}
	prog(m)["files"], prog(m)["files_omitted"] = []any{}, true
	b, _ := json.Marshal(m)
	if _, err := reportread.Read(bytes.NewReader(b), 1<<20); err != nil {
		t.Errorf("Read of an omitted list: %v", err)
	}
}
