package gittest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Env is the environment git runs with: the process's, without any GIT_*
// variable, with config isolation and an identity added.
func Env(tb testing.TB) []string {
	tb.Helper()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env,
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=behaves test",
		"GIT_AUTHOR_EMAIL=test@behaves.invalid",
		"GIT_COMMITTER_NAME=behaves test",
		"GIT_COMMITTER_EMAIL=test@behaves.invalid",
		"GIT_TERMINAL_PROMPT=0",
	)
}

// Git runs git with args in dir and returns its standard output; it fails
// the test when git is missing or exits non-zero.
func Git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	bin, err := exec.LookPath("git")
	if err != nil {
		tb.Fatalf("these tests create fixtures with the git binary, which is missing: %v", err)
	}
	cmd := exec.Command(bin, append([]string{"-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always"}, args...)...)
	cmd.Dir = dir
	cmd.Env = Env(tb)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return stdout.String()
}

// Init makes dir a git repository (git init) and returns it.
func Init(tb testing.TB, dir string) string {
	tb.Helper()
	Git(tb, dir, "init", "-q")
	return dir
}

// NewRepo makes a repository in a fresh temporary folder and returns its
// real path (symlinks resolved).
func NewRepo(tb testing.TB) string {
	tb.Helper()
	dir, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return Init(tb, dir)
}

// AddAll stages every file in the work tree (git add -A), ignored ones too.
func AddAll(tb testing.TB, dir string) {
	tb.Helper()
	Git(tb, dir, "add", "-A", "-f", ".")
}

// Commit stages everything and commits it.
func Commit(tb testing.TB, dir, msg string) {
	tb.Helper()
	AddAll(tb, dir)
	Git(tb, dir, "commit", "-q", "--allow-empty", "-m", msg)
}

// WriteFile writes a file under dir (making its folders) and fails the test
// on error.
func WriteFile(tb testing.TB, dir, rel, content string) {
	tb.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// GitFails runs git with args in dir, which must exit non-zero, and
// returns its standard output and error together.
func GitFails(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	bin, err := exec.LookPath("git")
	if err != nil {
		tb.Fatalf("these tests create fixtures with the git binary, which is missing: %v", err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = Env(tb)
	out, err := cmd.CombinedOutput()
	if err == nil {
		tb.Fatalf("git %s in %s succeeded, want a failure:\n%s", strings.Join(args, " "), dir, out)
	}
	return string(out)
}

// Shell runs script with sh -c in dir, in git's isolated environment (Env),
// and returns its standard output; it fails the test when the script exits
// non-zero.
func Shell(tb testing.TB, dir, script string) string {
	tb.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = Env(tb)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("sh -c %q in %s: %v\n%s", script, dir, err, stderr.String())
	}
	return stdout.String()
}
