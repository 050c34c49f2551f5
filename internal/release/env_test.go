package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/gittest"
)

// TestCheckGo: a release refuses any Go but the release go.mod names,
// older or newer or built with experiments, and says which of its Gos is
// the wrong one and what to do.
func TestCheckGo(t *testing.T) {
	t.Parallel()
	const goMod = "module example.com/m\n\ngo 1.26.8\n\nrequire x v1.0.0\n"
	for _, tc := range []struct {
		goMod, version string
		want           string // "" when accepted, else a part of the error
	}{
		{goMod, "go1.26.8", ""},
		{goMod, "go1.26.7", "is go1.26.7, and go.mod asks for go1.26.8"},
		{goMod, "go1.26.9", "is go1.26.9, and go.mod asks for go1.26.8"},
		{goMod, "go1.27.0", "put go1.26.8's go first on PATH"},
		{goMod, "go1.26.8 X:nogreenteagc", "is go1.26.8 X:nogreenteagc"},
		{goMod, "devel go1.27-abcdef", "asks for go1.26.8"},
		{"module m\ngo 1.26.0\ntoolchain go1.26.8 // the release's\n", "go1.26.8", ""},
		{"module m\ngo 1.26.0\ntoolchain go1.26.8\n", "go1.26.0", "asks for go1.26.8"},
		{"module m\ngo 1.26\n", "go1.26.8", "names no Go release"},
		{"module m\n", "go1.26.8", "no go line"},
	} {
		err := CheckGo([]byte(tc.goMod), tc.version, "the go command on PATH")
		if tc.want == "" {
			if err != nil {
				t.Errorf("go.mod %q, %s: %v", tc.goMod, tc.version, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("go.mod %q, %s: error %v, want one saying %q", tc.goMod, tc.version, err, tc.want)
		}
	}
}

// TestCheckGoTheRepository: this repository's go.mod names a release, the
// one this test runs with (the release's own check would refuse it).
func TestCheckGoTheRepository(t *testing.T) {
	t.Parallel()
	goMod, err := git(t.Context(), ".", "show", "HEAD:go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WantGo([]byte(goMod)); err != nil {
		t.Fatal(err)
	}
}

// TestDescribe: a work tree with changes or untracked files is refused,
// naming --allow-dirty; with it, HEAD is described with the version marked
// +dirty (and an image tag without the +); an ignored file is no change.
func TestDescribe(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t)
	gittest.WriteFile(t, repo, "internal/cli/VERSION", "1.2.3\n")
	gittest.WriteFile(t, repo, ".gitignore", "/dist/\n")
	gittest.Commit(t, repo, "one")
	head := gittest.Git(t, repo, "rev-parse", "HEAD")
	ctx := t.Context()

	gittest.WriteFile(t, repo, "dist/behaves-linux-amd64", "ignored")
	rel, err := describe(ctx, repo, false)
	if err != nil || rel.Version != "1.2.3" || rel.Commit != strings.TrimSpace(head) || rel.Tag() != "1.2.3" {
		t.Fatalf("a clean tree: %+v, %v", rel, err)
	}
	ct := strings.TrimSpace(gittest.Git(t, repo, "show", "-s", "--format=%cI", "HEAD"))
	if want, _ := time.Parse(time.RFC3339, ct); !rel.Time.Equal(want) {
		t.Errorf("the time is %v, the commit's %s", rel.Time, ct)
	}

	for name, dirty := range map[string]func(dir string){
		"a change":          func(dir string) { gittest.WriteFile(t, dir, "internal/cli/VERSION", "9.9.9\n") },
		"an untracked file": func(dir string) { gittest.WriteFile(t, dir, "new.go", "package main\n") },
		"a staged change": func(dir string) {
			gittest.WriteFile(t, dir, "staged.txt", "x")
			gittest.Git(t, dir, "add", "staged.txt")
		},
	} {
		clone := t.TempDir()
		if err := cloneHEAD(ctx, repo, clone, rel.Commit); err != nil {
			t.Fatal(err)
		}
		dirty(clone)
		if got, err := describe(ctx, clone, false); err == nil || !strings.Contains(err.Error(), "--allow-dirty") {
			t.Errorf("%s: %+v, %v; want a refusal naming --allow-dirty", name, got, err)
		}
		got, err := describe(ctx, clone, true)
		if err != nil || got.Version != "1.2.3+dirty" || got.Tag() != "1.2.3_dirty" || got.Commit != rel.Commit {
			t.Errorf("%s, allowed: %+v, %v; want HEAD as 1.2.3+dirty", name, got, err)
		}
	}
}

// TestGitIgnoresTheUsersConfig: the release's git ignores the global and
// system configuration and GIT_* variables: with core.autocrlf=true in a
// global config (and in GIT_CONFIG_* variables), a clone still holds the
// committed bytes, where a plain git clone converts them.
func TestGitIgnoresTheUsersConfig(t *testing.T) {
	repo := gittest.NewRepo(t)
	const page = "<p>\n</p>\n"
	gittest.WriteFile(t, repo, "page.tmpl", page)
	gittest.Commit(t, repo, "one")
	commit := strings.TrimSpace(gittest.Git(t, repo, "rev-parse", "HEAD"))
	cfg := t.TempDir()
	gittest.WriteFile(t, cfg, "gitconfig", "[core]\n\tautocrlf = true\n")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(cfg, "gitconfig"))
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "core.autocrlf")
	t.Setenv("GIT_CONFIG_VALUE_0", "true")

	// The configuration works: a plain clone converts the file.
	plain := filepath.Join(t.TempDir(), "plain")
	if out, err := exec.Command("git", "clone", "--quiet", repo, plain).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(plain, "page.tmpl")); string(b) != "<p>\r\n</p>\r\n" {
		t.Fatalf("a plain clone under core.autocrlf=true holds %q: the test shows nothing", b)
	}

	t.Setenv("GIT_DIR", filepath.Join(t.TempDir(), "not-a-repository"))
	clone := filepath.Join(t.TempDir(), "clone")
	if err := cloneHEAD(t.Context(), repo, clone, commit); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(clone, "page.tmpl")); string(b) != page {
		t.Errorf("the release's clone holds %q, the commit %q", b, page)
	}
}
