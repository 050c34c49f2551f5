package gitindex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/gittest"
)

func mustOpen(t *testing.T, root string) *Repo {
	t.Helper()
	r, err := Open(root)
	if err != nil {
		t.Fatalf("Open(%s): %v", root, err)
	}
	return r
}

func TestOpenPlainRepo(t *testing.T) {
	t.Parallel()
	repo := fixtureRepo(t)
	wantTracked(t, mustOpen(t, repo), map[string]bool{
		"a.txt":          true,
		"link":           true,
		"dir/sub/one.py": true,
		"untracked.txt":  false,
		"dir":            false,
		"nothing/here":   false,
	})
}

// A fresh git init has no index file yet: nothing is tracked, and that is
// not an error.
func TestOpenFreshRepo(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t)
	gittest.WriteFile(t, repo, "x.py", "x\n")
	if _, err := os.Stat(filepath.Join(repo, ".git", "index")); !os.IsNotExist(err) {
		t.Fatalf("a fresh repository has an index: %v", err)
	}
	wantTracked(t, mustOpen(t, repo), map[string]bool{"x.py": false})
}

// A linked worktree's .git is a file naming its gitdir (under the main
// repository's .git/worktrees, with a commondir back to it); its index is
// its own.
func TestOpenWorktree(t *testing.T) {
	t.Parallel()
	main := fixtureRepo(t)
	gittest.Git(t, main, "commit", "-q", "-m", "base")
	wt := filepath.Join(t.TempDir(), "wt")
	gittest.Git(t, main, "worktree", "add", "-q", "-b", "side", wt)
	gittest.WriteFile(t, wt, "only-in-wt.txt", "wt\n")
	gittest.Git(t, wt, "add", "only-in-wt.txt")
	gittest.WriteFile(t, wt, "loose.txt", "untracked\n")

	if fi, err := os.Lstat(filepath.Join(wt, ".git")); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("the worktree's .git is not a file: %v", err)
	}
	r := mustOpen(t, wt)
	if !strings.Contains(filepath.ToSlash(r.GitDir()), "/.git/worktrees/") {
		t.Errorf("GitDir = %s, want one under the main repository's .git/worktrees", r.GitDir())
	}
	if _, err := os.Stat(filepath.Join(r.GitDir(), "commondir")); err != nil {
		t.Errorf("the worktree's gitdir has no commondir: %v", err)
	}
	wantTracked(t, r, map[string]bool{
		"a.txt":          true,
		"only-in-wt.txt": true,
		"loose.txt":      false,
	})
	// The main work tree's index does not know the worktree's new file.
	wantTracked(t, mustOpen(t, main), map[string]bool{"only-in-wt.txt": false})
}

// A submodule's paths are tracked only if its own index lists them; the
// parent index holds just a gitlink for it.
func TestOpenSubmodule(t *testing.T) {
	t.Parallel()
	upstream := gittest.NewRepo(t)
	gittest.WriteFile(t, upstream, "lib.py", "lib\n")
	gittest.WriteFile(t, upstream, "inner/deep.py", "deep\n")
	gittest.Commit(t, upstream, "lib")

	parent := gittest.NewRepo(t)
	gittest.WriteFile(t, parent, "main.py", "main\n")
	gittest.Commit(t, parent, "main")
	gittest.Git(t, parent, "submodule", "add", "-q", upstream, "vendor/lib")
	gittest.WriteFile(t, parent, "vendor/lib/generated.py", "untracked in the submodule\n")

	data, err := os.ReadFile(filepath.Join(parent, "vendor", "lib", ".git"))
	if err != nil || !strings.HasPrefix(string(data), "gitdir: ../../.git/modules/") {
		t.Fatalf("the submodule's .git file = %q, %v; want a relative gitdir", data, err)
	}
	r := mustOpen(t, parent)
	if e, ok := r.index.Lookup("vendor/lib"); !ok || e.Mode != ModeGitlink {
		t.Fatalf("the parent index has %+v, %v for the submodule; want a gitlink", e, ok)
	}
	wantTracked(t, r, map[string]bool{
		"main.py":                  true,
		"vendor/lib":               false, // a gitlink is not a file
		"vendor/lib/lib.py":        true,
		"vendor/lib/inner/deep.py": true,
		"vendor/lib/generated.py":  false,
		"vendor/lib/.gitmodules":   false,
	})

	// A submodule that is not checked out tracks nothing.
	if err := os.RemoveAll(filepath.Join(parent, "vendor", "lib")); err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, parent, "vendor/lib/lib.py", "planted\n")
	wantTracked(t, mustOpen(t, parent), map[string]bool{"vendor/lib/lib.py": false})
}

// A submodule whose .git file points nowhere makes its paths an error, not
// untracked-or-tracked by guess.
func TestOpenSubmoduleUnreadable(t *testing.T) {
	t.Parallel()
	upstream := gittest.NewRepo(t)
	gittest.WriteFile(t, upstream, "lib.py", "lib\n")
	gittest.Commit(t, upstream, "lib")
	parent := gittest.NewRepo(t)
	gittest.Git(t, parent, "submodule", "add", "-q", upstream, "lib")
	gittest.WriteFile(t, parent, "lib/.git", "gitdir: /nonexistent/modules/lib\n")
	r := mustOpen(t, parent)
	if ok, err := r.Tracked("lib/lib.py"); err == nil || ok || !strings.Contains(err.Error(), "does not exist here") {
		t.Errorf("Tracked = %v, %v; want an error saying the gitdir does not exist", ok, err)
	}
}

func TestOpenFailsClosed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T) string
		want  string
	}{
		{
			name: "gitdir of another machine",
			setup: func(t *testing.T) string {
				root := t.TempDir()
				gittest.WriteFile(t, root, ".git", "gitdir: /home/runner/work/repo/.git/worktrees/x\n")
				return root
			},
			want: `points at the git directory "/home/runner/work/repo/.git/worktrees/x", which does not exist here`,
		},
		{
			name: "relative gitdir that does not exist",
			setup: func(t *testing.T) string {
				root := t.TempDir()
				gittest.WriteFile(t, root, ".git", "gitdir: ../gone\n")
				return root
			},
			want: "which does not exist here",
		},
		{
			name: ".git file without gitdir",
			setup: func(t *testing.T) string {
				root := t.TempDir()
				gittest.WriteFile(t, root, ".git", "hello\n")
				return root
			},
			want: `does not start with "gitdir:"`,
		},
		{
			name: "gitdir is a file",
			setup: func(t *testing.T) string {
				root := t.TempDir()
				gittest.WriteFile(t, root, "file", "x")
				gittest.WriteFile(t, root, ".git", "gitdir: file\n")
				return root
			},
			want: "not a folder",
		},
		{
			name: "split index",
			setup: func(t *testing.T) string {
				repo := fixtureRepo(t)
				gittest.Git(t, repo, "update-index", "--split-index")
				return repo
			},
			want: `the index is split (extension "link")`,
		},
		{
			name: "sparse index",
			setup: func(t *testing.T) string {
				repo := fixtureRepo(t)
				gittest.Git(t, repo, "commit", "-q", "-m", "base")
				gittest.Git(t, repo, "sparse-checkout", "init", "--cone", "--sparse-index")
				gittest.Git(t, repo, "sparse-checkout", "set", "dir/sub")
				return repo
			},
			want: `the index is sparse (extension "sdir")`,
		},
		{
			name: "index is a folder",
			setup: func(t *testing.T) string {
				repo := gittest.NewRepo(t)
				if err := os.Mkdir(filepath.Join(repo, ".git", "index"), 0o755); err != nil {
					t.Fatal(err)
				}
				return repo
			},
			want: "not a regular file",
		},
		{
			name: "no .git at all",
			setup: func(t *testing.T) string {
				return t.TempDir()
			},
			want: "finding the git directory",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := Open(tt.setup(t))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open = %v, %v; want an error containing %q", r, err, tt.want)
			}
		})
	}
}

// A sparse checkout without a sparse index keeps every path, marking the
// ones outside the cone skip-worktree: those are not tracked content.
func TestOpenSparseCheckoutWithoutSparseIndex(t *testing.T) {
	t.Parallel()
	repo := fixtureRepo(t)
	gittest.Git(t, repo, "commit", "-q", "-m", "base")
	gittest.Git(t, repo, "sparse-checkout", "init", "--cone", "--no-sparse-index")
	gittest.Git(t, repo, "sparse-checkout", "set", "dir/sub")
	wantTracked(t, mustOpen(t, repo), map[string]bool{
		"dir/sub/one.py":      true,
		"dir/subway/three.py": false,
	})
}
