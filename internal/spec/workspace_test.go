package spec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/gittest"
)

// Where the spec file itself may be: inside the root, after symlinks too,
// and never under .git. These are plain errors (no position: the spec is
// never read), kept as golden files under testdata/spec/location.
func TestGoldenSpecLocation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// setup returns the --spec path to load.
		setup func(t *testing.T, repo, outside string) string
	}{
		{
			name: "spec_symlinked_out_of_root",
			setup: func(t *testing.T, repo, outside string) string {
				write(t, filepath.Join(outside, "behaves.yml"), specWith("x.py", ""))
				symlink(t, filepath.Join(outside, "behaves.yml"), filepath.Join(repo, "behaves.yml"))
				return filepath.Join(repo, "behaves.yml")
			},
		},
		{
			name: "spec_folder_symlinked_out_of_root",
			setup: func(t *testing.T, repo, outside string) string {
				write(t, filepath.Join(outside, "behaves.yml"), specWith("x.py", ""))
				symlink(t, outside, filepath.Join(repo, "tests"))
				return filepath.Join(repo, "tests", "behaves.yml")
			},
		},
		{
			name: "spec_under_git",
			setup: func(t *testing.T, repo, outside string) string {
				write(t, filepath.Join(repo, ".git", "behaves.yml"), specWith("../x.py", ""))
				return filepath.Join(repo, ".git", "behaves.yml")
			},
		},
		{
			name: "spec_symlinked_into_git",
			setup: func(t *testing.T, repo, outside string) string {
				write(t, filepath.Join(repo, ".git", "behaves.yml"), specWith("../x.py", ""))
				symlink(t, ".git/behaves.yml", filepath.Join(repo, "behaves.yml"))
				return filepath.Join(repo, "behaves.yml")
			},
		},
		{
			name: "git_file_pointing_nowhere",
			setup: func(t *testing.T, repo, outside string) string {
				wt := filepath.Join(outside, "wt")
				write(t, filepath.Join(wt, ".git"), "gitdir: /home/runner/work/repo/repo/.git/worktrees/wt\n")
				write(t, filepath.Join(wt, "behaves.yml"), specWith("x.py", ""))
				return filepath.Join(wt, "behaves.yml")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo := repoDir(t)
			outside := plainDir(t)
			write(t, filepath.Join(repo, "x.py"), "")
			path := tt.setup(t, repo, outside)
			track(t, repo)
			s, err := Load(path, Options{})
			var errs Errors
			if err == nil || s != nil || errors.As(err, &errs) {
				t.Fatalf("Load = %v, %v; want a plain error", s, err)
			}
			got := strings.ReplaceAll(scrub(err.Error(), repo), outside, "<outside>") + "\n"
			checkGolden(t, filepath.Join("testdata", "spec", "location", tt.name+".out"), got)
		})
	}
}

// A spec reached through a symlink that stays in the repository loads.
func TestLoadSpecSymlinkInsideRoot(t *testing.T) {
	t.Parallel()
	repo := repoDir(t)
	write(t, filepath.Join(repo, "x.py"), "print(1)\n")
	write(t, filepath.Join(repo, "specs", "real.yml"), specWith("../x.py", ""))
	symlink(t, "real.yml", filepath.Join(repo, "specs", "behaves.yml"))
	track(t, repo)
	s, err := Load(filepath.Join(repo, "specs", "behaves.yml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Root != repo || s.Programs[0].File != "x.py" {
		t.Errorf("Root %q, File %q", s.Root, s.Programs[0].File)
	}
}

// Inside a submodule only what the submodule's own index lists is tracked.
func TestLoadSubmodule(t *testing.T) {
	t.Parallel()
	upstream := gittest.NewRepo(t)
	write(t, filepath.Join(upstream, "lib.py"), "lib\n")
	gittest.Commit(t, upstream, "lib")

	repo := repoDir(t)
	write(t, filepath.Join(repo, "x.py"), "")
	gittest.Commit(t, repo, "base")
	gittest.Git(t, repo, "submodule", "add", "-q", upstream, "vendor/lib")
	write(t, filepath.Join(repo, "vendor", "lib", "secret.txt"), "not in the submodule's index\n")
	write(t, filepath.Join(repo, "behaves.yml"), specWith("vendor/lib/lib.py", "        stdin_file: vendor/lib/secret.txt\n"))
	gittest.Git(t, repo, "add", "behaves.yml")
	// git add in the parent never adds a file inside a submodule.
	_, err := Load(filepath.Join(repo, "behaves.yml"), Options{})
	if err == nil || strings.Contains(err.Error(), "vendor/lib/lib.py") || !strings.Contains(err.Error(), `stdin_file "vendor/lib/secret.txt" is not a file git tracks`) {
		t.Errorf("Load = %v; want only the submodule's untracked file refused", err)
	}
}

// A work tree whose index cannot be read fails closed, before any path is
// checked.
func TestLoadIndexUnreadable(t *testing.T) {
	t.Parallel()
	repo := repoDir(t)
	write(t, filepath.Join(repo, "x.py"), "")
	write(t, filepath.Join(repo, "behaves.yml"), specWith("x.py", ""))
	track(t, repo)
	gittest.Git(t, repo, "update-index", "--split-index")
	_, err := Load(filepath.Join(repo, "behaves.yml"), Options{})
	var errs Errors
	if err == nil || errors.As(err, &errs) || !strings.Contains(err.Error(), "finding the files git tracks") || !strings.Contains(err.Error(), `the index is split (extension "link")`) {
		t.Errorf("Load = %v; want a plain error about the split index", err)
	}
}

func TestIsDotGit(t *testing.T) {
	t.Parallel()
	for _, c := range []string{".git", ".GIT", ".Git", ".git.", ".git ", ".git. .", "git~1", "GIT~1", ".g\u200cit", "\ufeff.git"} {
		if !isDotGit(c) {
			t.Errorf("isDotGit(%q) = false", c)
		}
	}
	for _, c := range []string{"git", ".gitignore", ".gitmodules", "x.git", ".git-x", "..git", "git~2", ""} {
		if isDotGit(c) {
			t.Errorf("isDotGit(%q) = true", c)
		}
	}
	for p, want := range map[string]bool{
		"a/.git/b": true, `a\.git\b`: true, ".git": true, "a/b/.GIT": true,
		"a/.gitignore": false, "a/b": false, "": false,
	} {
		if hasDotGit(p) != want {
			t.Errorf("hasDotGit(%q) = %v", p, !want)
		}
	}
}

func TestParseAllowGlob(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"gen/**", "**", "gen/*.py", "a/**/b/*.txt", "samples/[a-c]?.py", `we\*rd`, "x"} {
		if g, err := ParseAllowGlob(s); err != nil || g.String() != s {
			t.Errorf("ParseAllowGlob(%q) = %v, %v", s, g, err)
		}
	}
	for s, want := range map[string]string{
		"":             "empty pattern",
		"/gen/**":      "absolute",
		"gen/":         "empty component",
		"gen//x":       "empty component",
		"./gen":        `"." component`,
		"../x":         `".." component`,
		"gen/**x":      "** inside a component",
		"gen/a**":      "** inside a component",
		".git/**":      "names .git",
		"sub/.GIT/*":   "names .git",
		"gen/[a":       "not a valid glob",
		"gen/\x00":     "control characters",
		"gen/x\\":      "not a valid glob",
		"a/git~1/conf": "names .git",
	} {
		_, err := ParseAllowGlob(s)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAllowGlob(%q) = %v; want an error containing %q", s, err, want)
		}
	}
}

func TestAllowGlobMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		yes, no []string
	}{
		{"gen/**", []string{"gen/a.py", "gen/x/y/z.py", "gen"}, []string{"generated/a.py", "a/gen/b.py", "x.py"}},
		{"**", []string{"a", "a/b/c"}, nil},
		{"gen/*.py", []string{"gen/a.py", "gen/.hidden.py"}, []string{"gen/a/b.py", "gen/a.txt", "gen.py"}},
		{"**/out/*.txt", []string{"out/a.txt", "x/y/out/b.txt"}, []string{"out/x/a.txt", "xout/a.txt"}},
		{"a/**/b", []string{"a/b", "a/x/b", "a/x/y/b"}, []string{"a/x/c", "b"}},
		{"**/**/x", []string{"x", "a/x", "a/b/x"}, []string{"a/y"}},
		{"s/[a-c]?.py", []string{"s/a1.py", "s/cz.py"}, []string{"s/d1.py", "s/a.py"}},
		{`we\*rd`, []string{"we*rd"}, []string{"weXrd"}},
	}
	for _, tt := range tests {
		g, err := ParseAllowGlob(tt.pattern)
		if err != nil {
			t.Fatalf("ParseAllowGlob(%q): %v", tt.pattern, err)
		}
		for _, p := range tt.yes {
			if !g.Match(p) {
				t.Errorf("%q does not match %q", tt.pattern, p)
			}
		}
		for _, p := range tt.no {
			if g.Match(p) {
				t.Errorf("%q matches %q", tt.pattern, p)
			}
		}
	}
	if (AllowGlob{}).Match("x") {
		t.Error("the zero AllowGlob matches")
	}
}

// --allow-untracked admits untracked files under its globs but never a path
// through .git, whatever the glob.
func TestAllowUntrackedNeverAdmitsGit(t *testing.T) {
	t.Parallel()
	repo := repoDir(t)
	write(t, filepath.Join(repo, "x.py"), "")
	write(t, filepath.Join(repo, "behaves.yml"), specWith("gen/a.py", "        stdin_file: .git/config\n      - name: d\n        stdin_file: link\n"))
	track(t, repo)
	write(t, filepath.Join(repo, "gen", "a.py"), "a\n")
	symlink(t, ".git/config", filepath.Join(repo, "link"))
	_, err := Load(filepath.Join(repo, "behaves.yml"), Options{AllowUntracked: []AllowGlob{mustGlob(t, "**")}})
	var errs Errors
	if !errors.As(err, &errs) || len(errs) != 2 {
		t.Fatalf("Load = %v; want two errors", err)
	}
	for _, want := range []string{`stdin_file ".git/config" has a path component named .git`, `stdin_file "link" resolves to ".git/config", which has a path component named .git`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("errors do not mention %q:\n%s", want, err)
		}
	}
	if _, err := os.Stat(filepath.Join(repo, ".git", "config")); err != nil {
		t.Fatalf("the fixture has no .git/config: %v", err)
	}
}
