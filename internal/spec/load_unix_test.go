//go:build unix

package spec

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO must be refused by type, before anything opens it (opening a FIFO
// for reading blocks until a writer comes, so a hang here is the failure).
// git cannot track a FIFO, so this runs outside a git work tree, where
// every file under the root may be named.
func TestLoadRefusesFIFO(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		spec func(repo string) string
		want []string
	}{
		{
			name: "file",
			spec: func(string) string { return specWith("pipe", "") },
			want: []string{`behaves.yml:8:11: file "pipe" is a named pipe (FIFO), not a regular file`},
		},
		{
			name: "stdin_file",
			spec: func(string) string { return specWith("x.py", "        stdin_file: pipe\n") },
			want: []string{`behaves.yml:12:21: stdin_file "pipe" is a named pipe (FIFO), not a regular file`},
		},
		{
			name: "files glob",
			spec: func(string) string { return strings.Replace(specWith("x", ""), "file: x", "files: \"*\"", 1) },
			want: []string{
				`files match "link" is a named pipe (FIFO), not a regular file`,
				`files match "pipe" is a named pipe (FIFO), not a regular file`,
			},
		},
		{
			name: "symlink to a FIFO",
			spec: func(string) string { return specWith("x.py", "        stdin_file: link\n") },
			want: []string{`stdin_file "link" is a named pipe (FIFO), not a regular file`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo := plainDir(t)
			if err := syscall.Mkfifo(filepath.Join(repo, "pipe"), 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			symlink(t, "pipe", filepath.Join(repo, "link"))
			write(t, filepath.Join(repo, "x.py"), "")
			path := filepath.Join(repo, "behaves.yml")
			write(t, path, tt.spec(repo))
			_, err := Load(path, Options{})
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("Load = %v, want Errors", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("errors do not mention %q:\n%s", w, err)
				}
			}
		})
	}
}

// The spec file itself being a FIFO is a plain read error, without a hang.
func TestLoadSpecFIFO(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "behaves.yml")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	_, err := Load(path, Options{})
	var errs Errors
	if err == nil || errors.As(err, &errs) || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Load = %v, want a plain not-a-regular-file error", err)
	}
}
