package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/behaves-dev/behaves/internal/gittest"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/google/go-cmp/cmp"
)

const testImage = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// repoDir makes a temporary git repository and returns its real path.
// Files written into it are untracked until track adds them.
func repoDir(t testing.TB) string {
	t.Helper()
	return gittest.NewRepo(t)
}

// track stages every file of a repository made by repoDir (git add -A),
// so that a spec may name them; a folder without a .git directory is left
// alone.
func track(t testing.TB, repo string) {
	t.Helper()
	if fi, err := os.Lstat(filepath.Join(repo, ".git")); err == nil && fi.IsDir() {
		gittest.AddAll(t, repo)
	}
}

// plainDir makes a temporary folder outside any git work tree and returns
// its real path.
func plainDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// write creates a file and its folders.
func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sparse creates a file of size bytes without writing them.
func sparse(t testing.TB, path string, size int64) {
	t.Helper()
	write(t, path, "")
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

func symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

// mustGlob parses an --allow-untracked pattern.
func mustGlob(t testing.TB, s string) AllowGlob {
	t.Helper()
	g, err := ParseAllowGlob(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// specWith returns a valid spec whose one program runs file and whose one
// case has the extra YAML lines (indented for a case mapping).
func specWith(file, caseLines string) string {
	return fmt.Sprintf(`version: 1
profiles:
  sh:
    image: %s
    command: [sh]
programs:
  - name: p
    file: %s
    profile: sh
    cases:
      - name: c
%s`, testImage, file, caseLines)
}

func TestLoadFilesystem(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	write(t, filepath.Join(outside, "secret.txt"), "secret\n")
	write(t, filepath.Join(outside, "dir", "x.py"), "print('outside')\n")

	tests := []struct {
		name  string
		setup func(t *testing.T, repo string) (specPath string)
		opt   Options
		// ownGit: setup stages what it wants tracked itself (the test
		// stages every file otherwise).
		ownGit bool
		// want lists substrings of the error text, one per expected error;
		// empty means Load must succeed.
		want  []string
		check func(t *testing.T, repo string, s *Spec)
	}{
		{
			name: "symlink inside the root is followed",
			setup: func(t *testing.T, repo string) string {
				write(t, filepath.Join(repo, "real", "main.py"), "print(1)\n")
				symlink(t, "../real/main.py", filepath.Join(repo, "links", "prog.py"))
				write(t, filepath.Join(repo, "in.txt"), "input\n")
				symlink(t, "in.txt", filepath.Join(repo, "stdin-link"))
				write(t, filepath.Join(repo, "behaves.yml"), specWith("links/prog.py", "        stdin_file: stdin-link\n"))
				return filepath.Join(repo, "behaves.yml")
			},
			check: func(t *testing.T, repo string, s *Spec) {
				p := s.Programs[0]
				if p.File != "links/prog.py" || p.Program.Entry != "prog.py" || string(p.Program.Files["prog.py"]) != "print(1)\n" {
					t.Errorf("program = %+v", p)
				}
				if c := p.Cases[0]; string(c.Invocation.Stdin) != "input\n" || c.StdinFile != "stdin-link" {
					t.Errorf("case = %+v", c)
				}
			},
		},
		{
			name: "symlink out of the root",
			setup: func(t *testing.T, repo string) string {
				symlink(t, filepath.Join(outside, "dir", "x.py"), filepath.Join(repo, "x.py"))
				write(t, filepath.Join(repo, "behaves.yml"), specWith("x.py", ""))
				return filepath.Join(repo, "behaves.yml")
			},
			want: []string{`behaves.yml:8:11: file "x.py" resolves to "` + filepath.Join(outside, "dir", "x.py") + `", outside the repository root`},
		},
		{
			name: "stdin_file symlink out of the root",
			setup: func(t *testing.T, repo string) string {
				write(t, filepath.Join(repo, "x.py"), "")
				symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(repo, "in.txt"))
				write(t, filepath.Join(repo, "behaves.yml"), specWith("x.py", "        stdin_file: in.txt\n"))
				return filepath.Join(repo, "behaves.yml")
			},
			want: []string{`behaves.yml:12:21: stdin_file "in.txt" resolves to "` + filepath.Join(outside, "secret.txt") + `", outside`},
		},
		{
			name: "symlinked folder out of the root",
			setup: func(t *testing.T, repo string) string {
				symlink(t, filepath.Join(outside, "dir"), filepath.Join(repo, "vendor"))
				write(t, filepath.Join(repo, "behaves.yml"), specWith("vendor/x.py", ""))
				return filepath.Join(repo, "behaves.yml")
			},
			// vendor/x.py is no path git tracks: admit it, so that the
			// root check behind the workspace rule is what refuses it.
			opt:  Options{AllowUntracked: []AllowGlob{mustGlob(t, "vendor/**")}},
			want: []string{`file "vendor/x.py" resolves to "` + filepath.Join(outside, "dir", "x.py") + `", outside`},
		},
		{
			name: "dev zero through a symlink",
			setup: func(t *testing.T, repo string) string {
				write(t, filepath.Join(repo, "x.py"), "")
				symlink(t, "/dev/zero", filepath.Join(repo, "zero"))
				write(t, filepath.Join(repo, "behaves.yml"), specWith("zero", "        stdin_file: zero\n"))
				return filepath.Join(repo, "behaves.yml")
			},
			want: []string{
				`behaves.yml:8:11: file "zero" resolves to "/dev/zero", outside the repository root`,
				`behaves.yml:12:21: stdin_file "zero" resolves to "/dev/zero", outside the repository root`,
			},
		},
		{
			name: "proc self environ through a symlink",
			setup: func(t *testing.T, repo string) string {
				write(t, filepath.Join(repo, "x.py"), "")
				symlink(t, "/proc/self/environ", filepath.Join(repo, "env"))
				write(t, filepath.Join(repo, "behaves.yml"), specWith("x.py", "        stdin_file: env\n"))
				return filepath.Join(repo, "behaves.yml")
			},
			want: []string{`stdin_file "env" resolves to "/proc/`},
		},
		{
			name: "absolute stdin_file",
			setup: func(t *testing.T, repo string) string {
				write(t, filepath.Join(repo, "x.py"), "")
				write(t, filepath.Join(repo, "behaves.yml"), specWith("x.py", "        stdin_file: /proc/self/environ\n"))
				return filepath.Join(repo, "behaves.yml")
			},
			want: []string{`stdin_file "/proc/self/environ" is an absolute path`},
		},
		{
			name: "glob match through a symlink out of the root",
			setup: func(t *testing.T, repo string) string {
				write(t, filepath.Join(repo, "s", "a.py"), "a\n")
				symlink(t, filepath.Join(outside, "dir", "x.py"), filepath.Join(repo, "s", "b.py"))
				write(t, filepath.Join(repo, "behaves.yml"), strings.Replace(specWith("x", ""), "file: x", "files: s/*.py", 1))
				return filepath.Join(repo, "behaves.yml")
			},
			want: []string{`files match "s/b.py" resolves to "` + filepath.Join(outside, "dir", "x.py") + `"`},
		},
		{
			name: "dangling symlink",
			setup: func(t *testing.T, repo string) string {
				symlink(t, "nowhere.py", filepath.Join(repo, "x.py"))
				write(t, filepath.Join(repo, "behaves.yml"), specWith("x.py", ""))
				return filepath.Join(repo, "behaves.yml")
			},
			want: []string{`file "x.py" does not exist`},
		},
		{
			name: "symlink loop",
			setup: func(t *testing.T, repo string) string {
				symlink(t, "b", filepath.Join(repo, "a"))
				symlink(t, "a", filepath.Join(repo, "b"))
				write(t, filepath.Join(repo, "behaves.yml"), specWith("a", ""))
				return filepath.Join(repo, "behaves.yml")
			},
			want: []string{`file "a" cannot be resolved`},
		},
		{
			name: "without .git the spec's folder is the root",
			setup: func(t *testing.T, repo string) string {
				if err := os.RemoveAll(filepath.Join(repo, ".git")); err != nil {
					t.Fatal(err)
				}
				write(t, filepath.Join(repo, "x.py"), "")
				write(t, filepath.Join(repo, "specs", "behaves.yml"), specWith("../x.py", ""))
				return filepath.Join(repo, "specs", "behaves.yml")
			},
			want: []string{`file "../x.py" is outside the repository root ` + "<repo>/specs"},
		},
		{
			name: "outside a git work tree every file under the root may be named",
			setup: func(t *testing.T, repo string) string {
				if err := os.RemoveAll(filepath.Join(repo, ".git")); err != nil {
					t.Fatal(err)
				}
				write(t, filepath.Join(repo, "gen", "x.py"), "x\n")
				write(t, filepath.Join(repo, "behaves.yml"), specWith("gen/x.py", "        stdin_file: gen/x.py\n"))
				return filepath.Join(repo, "behaves.yml")
			},
			check: func(t *testing.T, repo string, s *Spec) {
				if s.Programs[0].File != "gen/x.py" {
					t.Errorf("File = %q", s.Programs[0].File)
				}
			},
		},
		{
			name: "a linked worktree (.git is a file) marks the root",
			setup: func(t *testing.T, repo string) string {
				write(t, filepath.Join(repo, "shared", "x.py"), "x\n")
				gittest.Commit(t, repo, "base")
				wt := filepath.Join(repo, "wt")
				gittest.Git(t, repo, "worktree", "add", "-q", "-b", "side", wt)
				write(t, filepath.Join(wt, "a", "b", "behaves.yml"), specWith("../../shared/x.py", ""))
				return filepath.Join(wt, "a", "b", "behaves.yml")
			},
			check: func(t *testing.T, repo string, s *Spec) {
				if want := filepath.Join(repo, "wt"); s.Root != want {
					t.Errorf("Root = %q, want %q", s.Root, want)
				}
				if s.Programs[0].File != "shared/x.py" {
					t.Errorf("File = %q", s.Programs[0].File)
				}
			},
		},
		{
			name: "a symlinked folder inside the root is followed only if both paths are tracked",
			setup: func(t *testing.T, repo string) string {
				write(t, filepath.Join(repo, "real", "x.py"), "x\n")
				symlink(t, "real", filepath.Join(repo, "alias"))
				write(t, filepath.Join(repo, "behaves.yml"), specWith("alias/x.py", ""))
				return filepath.Join(repo, "behaves.yml")
			},
			// git tracks alias (a symlink) and real/x.py, never alias/x.py.
			want: []string{`file "alias/x.py" is not a file git tracks`},
		},
		{
			name:   "untracked as written",
			ownGit: true,
			setup: func(t *testing.T, repo string) string {
				write(t, filepath.Join(repo, "x.py"), "")
				write(t, filepath.Join(repo, "behaves.yml"), specWith("x.py", "        stdin_file: creds.json\n"))
				track(t, repo)
				write(t, filepath.Join(repo, "creds.json"), `{"token": "x"}`)
				return filepath.Join(repo, "behaves.yml")
			},
			want: []string{`behaves.yml:12:21: stdin_file "creds.json" is not a file git tracks`},
		},
		{
			name:   "untracked as written, admitted by --allow-untracked",
			ownGit: true,
			setup: func(t *testing.T, repo string) string {
				write(t, filepath.Join(repo, "x.py"), "")
				write(t, filepath.Join(repo, "behaves.yml"), specWith("gen/deep/y.py", "        stdin_file: x.py\n"))
				track(t, repo)
				write(t, filepath.Join(repo, "gen", "deep", "y.py"), "y\n")
				return filepath.Join(repo, "behaves.yml")
			},
			opt: Options{AllowUntracked: []AllowGlob{mustGlob(t, "gen/**")}},
			check: func(t *testing.T, repo string, s *Spec) {
				if string(s.Programs[0].Program.Files["y.py"]) != "y\n" {
					t.Errorf("program = %+v", s.Programs[0].Program)
				}
			},
		},
		{
			name:   "a tracked symlink to an untracked file",
			ownGit: true,
			setup: func(t *testing.T, repo string) string {
				write(t, filepath.Join(repo, "x.py"), "")
				symlink(t, "creds.json", filepath.Join(repo, "in.txt"))
				write(t, filepath.Join(repo, "behaves.yml"), specWith("x.py", "        stdin_file: in.txt\n"))
				track(t, repo)
				write(t, filepath.Join(repo, "creds.json"), `{"token": "x"}`)
				return filepath.Join(repo, "behaves.yml")
			},
			want: []string{`stdin_file "in.txt" resolves to "creds.json", which is not a file git tracks`},
		},
		{
			name:   "intent-to-add is not tracked",
			ownGit: true,
			setup: func(t *testing.T, repo string) string {
				write(t, filepath.Join(repo, "x.py"), "")
				write(t, filepath.Join(repo, "behaves.yml"), specWith("x.py", "        stdin_file: later.txt\n"))
				track(t, repo)
				write(t, filepath.Join(repo, "later.txt"), "x")
				gittest.Git(t, repo, "add", "-N", "later.txt")
				return filepath.Join(repo, "behaves.yml")
			},
			want: []string{`stdin_file "later.txt" is not a file git tracks`},
		},
		{
			name: "glob syntax in the spec's folder name is literal",
			setup: func(t *testing.T, repo string) string {
				dir := filepath.Join(repo, "we[ir]d*?")
				write(t, filepath.Join(dir, "s", "a.py"), "a\n")
				write(t, filepath.Join(repo, "weid", "s", "b.py"), "b\n")
				write(t, filepath.Join(dir, "behaves.yml"), strings.Replace(specWith("x", ""), "file: x", "files: s/*.py", 1))
				return filepath.Join(dir, "behaves.yml")
			},
			check: func(t *testing.T, repo string, s *Spec) {
				if len(s.Programs) != 1 || s.Programs[0].Name != "p/a.py" || s.Programs[0].File != "we[ir]d*?/s/a.py" {
					t.Errorf("programs = %+v", s.Programs)
				}
			},
		},
		{
			name: "file above the size cap",
			setup: func(t *testing.T, repo string) string {
				write(t, filepath.Join(repo, "x.py"), strings.Repeat("x", 2048))
				write(t, filepath.Join(repo, "behaves.yml"), specWith("x.py", ""))
				return filepath.Join(repo, "behaves.yml")
			},
			opt:  Options{MaxFileSize: 1024},
			want: []string{`file "x.py" is 2048 bytes, above the 1KiB cap for the files a spec names`},
		},
		{
			name: "the default cap is 16MiB",
			setup: func(t *testing.T, repo string) string {
				sparse(t, filepath.Join(repo, "x.py"), DefaultMaxFileSize+1)
				write(t, filepath.Join(repo, "behaves.yml"), specWith("x.py", ""))
				return filepath.Join(repo, "behaves.yml")
			},
			want: []string{`file "x.py" is 16777217 bytes (16.0MiB), above the 16MiB cap`},
		},
		{
			name: "a directory is not a program",
			setup: func(t *testing.T, repo string) string {
				write(t, filepath.Join(repo, "d", "x.py"), "")
				write(t, filepath.Join(repo, "behaves.yml"), specWith("d", "        stdin_file: .\n"))
				return filepath.Join(repo, "behaves.yml")
			},
			want: []string{`file "d" is a directory`, `stdin_file "." is a directory`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo := repoDir(t)
			path := tt.setup(t, repo)
			if !tt.ownGit {
				track(t, repo)
			}
			s, err := Load(path, tt.opt)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				if tt.check != nil {
					tt.check(t, repo, s)
				}
				return
			}
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("Load = %v (%T), want Errors", err, err)
			}
			text := strings.ReplaceAll(err.Error(), repo, "<repo>")
			if len(errs) != len(tt.want) {
				t.Errorf("got %d errors, want %d:\n%s", len(errs), len(tt.want), text)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) && !strings.Contains(err.Error(), w) {
					t.Errorf("errors do not mention %q:\n%s", w, text)
				}
			}
		})
	}
}

func TestLoadSpecReadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yml")
	sparse(t, big, MaxSpecSize+1)
	for _, path := range []string{filepath.Join(dir, "missing.yml"), dir, big} {
		s, err := Load(path, Options{})
		var errs Errors
		if err == nil || s != nil || errors.As(err, &errs) {
			t.Errorf("Load(%s) = %v, %v; want a plain error", path, s, err)
		}
	}
}

func TestLoadReturnsErrorsUnwrapped(t *testing.T) {
	t.Parallel()
	repo := repoDir(t)
	path := filepath.Join(repo, "behaves.yml")
	write(t, path, "version: 2\n")
	_, err := Load(path, Options{})
	errs, ok := err.(Errors)
	if !ok {
		t.Fatalf("Load returned %T, want Errors itself", err)
	}
	want := Errors{
		{Pos: Pos{File: path, Line: 1, Col: 1}, Msg: `the spec is missing required key profiles: define at least one profile with image and command`},
		{Pos: Pos{File: path, Line: 1, Col: 1}, Msg: `the spec is missing required key programs: list at least one program with its cases`},
		{Pos: Pos{File: path, Line: 1, Col: 10}, Msg: `unsupported version 2: this behaves reads version 1`},
	}
	if diff := cmp.Diff(want, errs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestErrorFormat(t *testing.T) {
	t.Parallel()
	errs := Errors{
		{Pos: Pos{File: "behaves.yml", Line: 3, Col: 5}, Msg: "one"},
		{Pos: Pos{File: "behaves.yml", Line: 7}, Msg: "two"},
	}
	want := "behaves.yml:3:5: one\nbehaves.yml:7: two"
	if got := errs.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var err error = errs
	var target Errors
	if !errors.As(fmt.Errorf("wrapped: %w", err), &target) || len(target) != 2 {
		t.Errorf("errors.As failed on %v", err)
	}
}

func TestErrorsSorted(t *testing.T) {
	t.Parallel()
	es := Errors{
		{Pos: Pos{Line: 9, Col: 1}, Msg: "c"},
		{Pos: Pos{Line: 2, Col: 7}, Msg: "b"},
		{Pos: Pos{Line: 2, Col: 3}, Msg: "a"},
		{Pos: Pos{Line: 9, Col: 1}, Msg: "d"},
		{Pos: Pos{Line: 2}, Msg: "line only"},
	}
	es.sort()
	var got []string
	for _, e := range es {
		got = append(got, e.Msg)
	}
	if diff := cmp.Diff([]string{"line only", "a", "b", "c", "d"}, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestOptionsDefaults(t *testing.T) {
	t.Parallel()
	got := Options{}.withDefaults()
	if got.Ceilings != DefaultCeilings || got.MaxFileSize != DefaultMaxFileSize {
		t.Errorf("withDefaults = %+v", got)
	}
	if DefaultMaxFileSize < 16<<20 {
		t.Errorf("DefaultMaxFileSize = %d, the issue requires at least 16 MiB", DefaultMaxFileSize)
	}
	custom := Options{Ceilings: Ceilings{MaxCases: 5}, MaxFileSize: 10}.withDefaults()
	if custom.Ceilings.MaxCases != 5 || custom.MaxFileSize != 10 || custom.Ceilings.MaxTimeout != DefaultCeilings.MaxTimeout {
		t.Errorf("withDefaults kept = %+v", custom)
	}
}

func TestImagesOverride(t *testing.T) {
	t.Parallel()
	repo := repoDir(t)
	write(t, filepath.Join(repo, "x.py"), "")
	path := filepath.Join(repo, "behaves.yml")
	write(t, path, strings.Replace(specWith("x.py", ""), "image: "+testImage, "image: python:3.12", 1))
	track(t, repo)
	override := "sha256:" + strings.Repeat("ab", 32)

	if _, err := Load(path, Options{}); err == nil || !strings.Contains(err.Error(), `image "python:3.12" is unpinned`) {
		t.Errorf("without override: %v", err)
	}
	s, err := Load(path, Options{Images: map[string]string{"sh": override}})
	if err != nil {
		t.Fatalf("with override: %v", err)
	}
	if got := s.Profiles["sh"].Runtime.Image; got != override {
		t.Errorf("image = %q, want %q", got, override)
	}
	_, err = Load(path, Options{Images: map[string]string{"sh": override, "shh": override}})
	if err == nil || !strings.Contains(err.Error(), `--image shh=`) || !strings.Contains(err.Error(), `no profile is named "shh" (did you mean "sh"?)`) {
		t.Errorf("unknown override: %v", err)
	}
}

func TestJob(t *testing.T) {
	t.Parallel()
	repo := repoDir(t)
	write(t, filepath.Join(repo, "x.py"), "print(1)\n")
	path := filepath.Join(repo, "behaves.yml")
	write(t, path, specWith("x.py", "        args: [a, b]\n        stdin: hi\n        expect: {stdout: {equals: SECRET-EXPECTED}}\n"))
	track(t, repo)
	s, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	job := s.Job(s.Programs[0])
	want := runner.Job{
		Program: runner.Program{Files: map[string][]byte{"x.py": []byte("print(1)\n")}, Entry: "x.py"},
		Profile: runner.Profile{
			Name: "sh", Image: testImage, Command: []string{"sh"}, ProgramName: "x.py",
			Timeout: DefaultTimeout, Memory: DefaultMemory, CPUs: DefaultCPUs, Pids: DefaultPids,
			OutputLimit: DefaultOutputLimit, OutputCeiling: 64 * DefaultOutputLimit, User: DefaultUser,
			NetworkFiles: runner.NetworkFilesNone,
		},
		Invocations: []runner.Invocation{{Args: []string{"a", "b"}, Stdin: []byte("hi")}},
	}
	if diff := cmp.Diff(want, job); diff != "" {
		t.Errorf("Job (-want +got):\n%s", diff)
	}
	if strings.Contains(fmt.Sprintf("%#v", job), "SECRET-EXPECTED") {
		t.Error("an expected value reached the runner's job")
	}
	// The spec's own profile keeps program_name unset.
	if s.Profiles["sh"].Runtime.ProgramName != "" {
		t.Errorf("profile ProgramName = %q", s.Profiles["sh"].Runtime.ProgramName)
	}
}

func TestProgramIDStable(t *testing.T) {
	t.Parallel()
	sum := sha256.Sum256([]byte("fizzbuzz\x00solutions/fizzbuzz.py"))
	if got, want := programID("fizzbuzz", "solutions/fizzbuzz.py"), hex.EncodeToString(sum[:])[:16]; got != want {
		t.Errorf("programID = %s, want %s", got, want)
	}
	// The same tree in two places gives the same IDs.
	var ids [2][]string
	for i := range ids {
		repo := repoDir(t)
		write(t, filepath.Join(repo, "solutions", "a.py"), "a")
		write(t, filepath.Join(repo, "solutions", "b.py"), "b")
		write(t, filepath.Join(repo, "specs", "behaves.yml"), strings.Replace(specWith("x", ""), "file: x", "files: ../solutions/*.py", 1))
		track(t, repo)
		s, err := Load(filepath.Join(repo, "specs", "behaves.yml"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range s.Programs {
			ids[i] = append(ids[i], p.ID+" "+p.Name+" "+p.File+" group="+p.Group)
		}
	}
	want := []string{
		programID("p", "solutions/a.py") + " p/a.py solutions/a.py group=p",
		programID("p", "solutions/b.py") + " p/b.py solutions/b.py group=p",
	}
	if diff := cmp.Diff(want, ids[0]); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(ids[0], ids[1]); diff != "" {
		t.Errorf("ids differ across roots (-first +second):\n%s", diff)
	}
	// A file: entry is no group's sample.
	repo := repoDir(t)
	write(t, filepath.Join(repo, "x"), "x")
	write(t, filepath.Join(repo, "behaves.yml"), specWith("x", ""))
	track(t, repo)
	s, err := Load(filepath.Join(repo, "behaves.yml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g := s.Programs[0].Group; g != "" {
		t.Errorf("a file: entry's Group = %q, want \"\"", g)
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0B", 0, true},
		{"1B", 1, true},
		{"64KiB", 64 << 10, true},
		{"256MiB", 256 << 20, true},
		{"4GiB", 4 << 30, true},
		{"8589934591GiB", 8589934591 << 30, true},
		{"8589934592GiB", 0, false}, // overflows int64
		{"64KB", 0, false},
		{"64k", 0, false},
		{"64kib", 0, false},
		{"1.5MiB", 0, false},
		{"-1MiB", 0, false},
		{"64", 0, false},
		{" 64KiB", 0, false},
		{"64 KiB", 0, false},
		{"1TiB", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		10 * time.Minute:                 "10m",
		time.Hour:                        "1h",
		90 * time.Minute:                 "1h30m",
		5 * time.Second:                  "5s",
		1500 * time.Millisecond:          "1.5s",
		time.Hour + 5*time.Second:        "1h0m5s",
		2*time.Minute + 30*time.Second:   "2m30s",
		250 * time.Millisecond:           "250ms",
		10*time.Minute + time.Nanosecond: "10m0.000000001s",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestCheckImage(t *testing.T) {
	t.Parallel()
	hex64 := strings.Repeat("0123456789abcdef", 4)
	tests := []struct {
		in      string
		wantErr string // "" means pinned
	}{
		{"sha256:" + hex64, ""},
		{"python@sha256:" + hex64, ""},
		{"python:3.12-slim@sha256:" + hex64, ""},
		{"docker.io/library/python:3.12@sha256:" + hex64, ""},
		{"localhost:5000/team/img_x__y.z-w:v1@sha256:" + hex64, ""},
		{"127.0.0.1:5000/busybox@sha256:" + hex64, ""},
		{"python:3.12", "is unpinned"},
		{"python", "is unpinned"},
		{"", "is unpinned"},
		{"sha256:" + hex64[:63], "local image ID"},
		{"sha256:" + strings.ToUpper(hex64), "local image ID"},
		{hex64, "is unpinned"},
		{"python@sha256:" + hex64 + "0", "digest after @"},
		{"python@sha512:" + hex64, "digest after @"},
		{"python@" + hex64, "digest after @"},
		{"Python@sha256:" + hex64, "not a valid image name"},
		{"@sha256:" + hex64, "not a valid image name"},
		{"py thon@sha256:" + hex64, "not a valid image name"},
		{"python:@sha256:" + hex64, "not a valid image name"},
	}
	for _, tt := range tests {
		got := checkImage(tt.in)
		if (tt.wantErr == "") != (got == "") || !strings.Contains(got, tt.wantErr) {
			t.Errorf("checkImage(%q) = %q, want %q", tt.in, got, tt.wantErr)
		}
	}
}

func TestCheckUser(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"65534:65534":           true,
		"1:1":                   true,
		"1000:100":              true,
		"4294967294:4294967294": true,
		"4294967295:1":          false, // (uid_t)-1
		"4294967296:1":          false,
		"0:0":                   false,
		"0:1000":                false,
		"1000:0":                false,
		"nobody":                false,
		"nobody:nogroup":        false,
		"1000":                  false,
		"-1:-1":                 false,
		"1000:1000:1":           false,
		" 1000:1000":            false,
		"":                      false,
	}
	for in, ok := range tests {
		if got := checkUser(in); (got == "") != ok {
			t.Errorf("checkUser(%q) = %q, want ok=%v", in, got, ok)
		}
	}
}

// TestSyntaxErrorLines: a YAML syntax error is at the line of the
// mistake and a column (the parser gives none: the first non-blank one,
// or the character at fault), and says what to change.
func TestSyntaxErrorLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in        string
		line, col int
		want      string
	}{
		{"a: 1\nb: 2\nc: [1\nd: 3\n", 3, 1, `close it with "]"`},
		{"a: 1\nb:\n  c: 1\n d: 2\n", 4, 2, "indent it exactly as its sibling keys"},
		{"a: 1\nb:\n  c: 1\n  d: 2\n e: 3\n", 5, 2, "indent it exactly as its sibling keys"},
		{"a: 1\nb: 2\nc: d: e\n", 3, 4, `quote the value ("d: e")`},
		{"a: 1\nb: 2\nc: @x\n", 3, 4, "quote the value"},
		{"a: 1\nb: 2\n\tc: 3\n", 3, 1, "YAML indents with spaces only"},
		{"a: 1\nb: 2\nc: *x\n", 3, 1, "write the value out"},
		{"a: 1\nb: 2\nc: 3\n- x\n", 4, 1, "put the list under its key"},
		{"a: 1\nb: 2\nc:\n  - 1\n  x: 2\n", 5, 3, `start it with "- "`},
		{"a: 1\n b: 2\n", 2, 2, "indent this line as the keys it belongs with"},
		{"a: [\n", 1, 1, "write the value"},
		{"a: \"\x01\"\n", 1, 5, "U+0001: remove it"},
		{"a: 1\nb: \xff\n", 2, 4, "save it as UTF-8"},
		{"a: 1\n---\nb: [\n", 3, 1, "write the value"},
		{"a:\n  - b\n    c: 1\n", 2, 5, `write "b:"`},
		{"a:\n  - name x\n\n    c: 1\n", 2, 5, `write "name: x"`},
		{"a: 'b\nc: 1\n", 1, 4, "end it with the quote it begins with"},
	}
	for _, tt := range tests {
		l := &loader{file: "s.yml"}
		if doc := l.parse([]byte(tt.in), "a spec", "empty"); doc != nil && len(l.errs) == 0 {
			t.Errorf("parse(%q) succeeded", tt.in)
			continue
		}
		if len(l.errs) != 1 || l.errs[0].Pos.Line != tt.line || l.errs[0].Pos.Col != tt.col || !strings.Contains(l.errs[0].Msg, tt.want) {
			t.Errorf("parse(%q) errors = %v, want one at %d:%d saying %q", tt.in, l.errs, tt.line, tt.col, tt.want)
		}
	}
}

// TestLoadMissingSpec: a spec that is not there is named (as given and
// where it was looked for) with how to name another, never as lstat's
// text; a missing folder and a link to nothing are said so.
func TestLoadMissingSpec(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "gone.yml"), filepath.Join(dir, "dangling.yml")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "behaves.yml"), "no spec at " + filepath.Join(dir, "behaves.yml") + ": the file does not exist"},
		{filepath.Join(dir, "sub", "behaves.yml"), "no spec at " + filepath.Join(dir, "sub", "behaves.yml") + ": the folder " + filepath.Join(dir, "sub") + " does not exist"},
		{filepath.Join(dir, "dangling.yml"), "no spec at " + filepath.Join(dir, "dangling.yml") + ": it is a symbolic link to " + filepath.Join(dir, "gone.yml") + ", which does not exist"},
	} {
		_, err := Load(tc.path, Options{})
		if err == nil {
			t.Fatalf("Load(%s) succeeded", tc.path)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, tc.want) || !strings.Contains(msg, "name another with --spec FILE") || strings.Contains(msg, "lstat") {
			t.Errorf("Load(%s):\n got %s\nwant %s…, and how to name another spec", tc.path, msg, tc.want)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Load(%s): %v is not fs.ErrNotExist", tc.path, err)
		}
	}
}

// TestLoadMissingSpecOtherExtension: a spec named .yaml where a .yml
// file is (and the reverse) suggests that file.
func TestLoadMissingSpecOtherExtension(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"behaves.yml", "other.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("version: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for given, want := range map[string]string{
		"behaves.yaml": "(did you mean " + filepath.Join(dir, "behaves.yml") + "?)",
		"other.yml":    "(did you mean " + filepath.Join(dir, "other.yaml") + "?)",
	} {
		_, err := Load(filepath.Join(dir, given), Options{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%s): %v; want it to say %s", given, err, want)
		}
	}
	if _, err := Load(filepath.Join(dir, "none.yml"), Options{}); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("Load(none.yml): %v; want no suggestion, nothing is close", err)
	}
}
